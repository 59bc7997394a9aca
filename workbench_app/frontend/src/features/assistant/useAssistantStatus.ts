import { useQuery } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { AssistantStatus } from "./types";

/** Whether the assistant is on, and the person's use of this hour's quota (small: the nav reads it). */
export function useAssistantStatus() {
  return useQuery({ queryKey: ["assistant", "status"], queryFn: () => data(api.GET("/assistant/status")) as Promise<AssistantStatus> });
}
