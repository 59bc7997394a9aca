// Saved questions and folders, keyed once for every screen that lists, opens or saves them: saving a
// question from the editor, the builder or the assistant invalidates QUESTIONS_KEY, and the lists
// of every screen (by folder, by search, all of them) read again.
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";

export const FOLDERS_KEY = ["folders"] as const;
export const QUESTIONS_KEY = ["questions"] as const;

export const foldersQuery = () => queryOptions({
  queryKey: FOLDERS_KEY,
  queryFn: async () => (await data(api.GET("/folders"))).folders,
});

/** The questions of a folder, or those a search finds anywhere (`folderId` is then not used). */
export const questionsQuery = (folderId: number | null, search: string) => queryOptions({
  queryKey: [...QUESTIONS_KEY, search ? null : folderId, search] as const,
  queryFn: async () => (await data(api.GET("/questions", { params: { query: search
    ? { search } : folderId !== null ? { folder_id: folderId } : {} } }))).questions,
});

export const allQuestionsQuery = () => queryOptions({
  queryKey: [...QUESTIONS_KEY, "all"] as const,
  queryFn: async () => (await data(api.GET("/questions", { params: { query: {} } }))).questions,
});

export const questionQuery = (questionId: number) => queryOptions({
  queryKey: ["question", questionId] as const,
  queryFn: () => data(api.GET("/questions/{question_id}", { params: { path: { question_id: questionId } } })),
});

/** The names of a saved question's columns (for a dashboard filter linked to one). */
export const questionColumnsQuery = (questionId: number) => queryOptions({
  queryKey: ["question-columns", questionId] as const,
  queryFn: async () => (await data(api.GET("/questions/{question_id}/columns", {
    params: { path: { question_id: questionId } },
  }))).columns.map((column) => column.name),
  staleTime: 60_000,
});

/** Saves a question from any editor (SQL, builder, analysis): a change of `questionId`, else a new one. */
export async function saveQuestion(questionId: number | undefined, body: components["schemas"]["NewQuestion"]) {
  return questionId
    ? data(api.PATCH("/questions/{question_id}", { params: { path: { question_id: questionId } }, body }))
    : data(api.POST("/questions", { body }));
}
