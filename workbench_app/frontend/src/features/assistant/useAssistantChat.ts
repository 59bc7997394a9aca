// Sending a message and following the answer as it streams (server-sent events over fetch, through
// the typed client so the CSRF token and refusals are handled as everywhere else).
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { api } from "../../api/client";
import { ASSISTANT_KEY } from "./assistantQueries";
import { readEvents } from "./serverEvents";
import type { AnswerEvents, Notice, ToolRun } from "./types";

export interface LiveAnswer {
  question: string;
  text: string;
  tools: ToolRun[];
  notices: Notice[];
  failure: Notice | null;
  finished: boolean;
}

export function useAssistantChat(conversationId: number) {
  const queryClient = useQueryClient();
  const [live, setLive] = useState<LiveAnswer | null>(null);
  const [refusal, setRefusal] = useState<unknown>(null);

  const send = useCallback(async (question: string) => {
    setRefusal(null);
    setLive({ question, text: "", tools: [], notices: [], failure: null, finished: false });
    try {
      const { data: body } = await api.POST("/assistant/conversations/{conversation_id}/messages", {
        params: { path: { conversation_id: conversationId } },
        body: { content: question },
        headers: { Accept: "text/event-stream" },
        parseAs: "stream",
      });
      if (!body) throw new Error("no answer body");
      await readEvents(body as ReadableStream<Uint8Array>, ({ event, data }) => {
        // The stream is outside the typed client: each event's data is the document's shape for it.
        const payload: unknown = JSON.parse(data);
        setLive((current) => {
          if (!current) return current;
          switch (event) {
            case "delta": return { ...current, text: current.text + (payload as AnswerEvents["delta"]).text };
            case "tool": return { ...current, tools: [...current.tools, payload as AnswerEvents["tool"]] };
            case "notice": return { ...current, notices: [...current.notices, payload as AnswerEvents["notice"]] };
            case "error": return { ...current, failure: payload as AnswerEvents["error"], finished: true };
            case "done": return { ...current, text: (payload as AnswerEvents["done"]).message.content, finished: true };
            default: return current;
          }
        });
      });
    } catch (error) {
      setLive(null);
      setRefusal(error);
    } finally {
      // The stored conversation (now holding both messages) replaces the live copy.
      await queryClient.invalidateQueries({ queryKey: ASSISTANT_KEY });
      setLive(null);
    }
  }, [conversationId, queryClient]);

  return { live, refusal, send };
}
