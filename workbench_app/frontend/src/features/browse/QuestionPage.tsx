import { useQuery } from "@tanstack/react-query";
import { Navigate, useParams } from "react-router";
import { api, data } from "../../api/client";
import type { Question } from "../../api/models";
import { ErrorMessage } from "../../ui/ErrorMessage";

/** A saved question opens in the screen it was made with. */
export default function QuestionPage() {
  const { questionId } = useParams();
  const question = useQuery({
    queryKey: ["question", questionId],
    queryFn: async () => (await data(api.GET("/questions/{question_id}", { params: { path: { question_id: Number(questionId) } } }))) as Question,
  });
  if (question.error) return <ErrorMessage error={question.error} />;
  if (!question.data) return null;
  return <Navigate replace to={question.data.kind === "builder" ? `/question/new?question=${questionId}` : `/sql?question=${questionId}`} />;
}
