// The assistant's reads, keyed once under ASSISTANT_KEY: a message sent, a conversation renamed or
// removed invalidates it, and the list, the conversation and the quota (status) read again.
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";

export const ASSISTANT_KEY = ["assistant"] as const;

/** Whether the assistant is on, and the person's use of this hour's quota (small: the nav reads it). */
export const assistantStatusQuery = () => queryOptions({
  queryKey: [...ASSISTANT_KEY, "status"] as const,
  queryFn: () => data(api.GET("/assistant/status")),
});

export const conversationsQuery = () => queryOptions({
  queryKey: [...ASSISTANT_KEY, "conversations"] as const,
  queryFn: async () => (await data(api.GET("/assistant/conversations"))).conversations,
});

export const conversationQuery = (conversationId: number) => queryOptions({
  queryKey: [...ASSISTANT_KEY, "conversation", conversationId] as const,
  queryFn: () => data(api.GET("/assistant/conversations/{conversation_id}", { params: { path: { conversation_id: conversationId } } })),
});

export const providerQuery = () => queryOptions({
  queryKey: [...ASSISTANT_KEY, "provider"] as const,
  queryFn: () => data(api.GET("/assistant/provider")),
});

/** A chart of an earlier answer, run again under the person's permissions when the conversation is opened. */
export const artifactRunQuery = (sql: string) => queryOptions({
  queryKey: [...ASSISTANT_KEY, "chart", sql] as const,
  queryFn: () => data(api.POST("/sql", { body: { sql } })),
});
