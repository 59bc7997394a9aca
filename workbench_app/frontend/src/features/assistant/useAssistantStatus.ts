import { useQuery } from "@tanstack/react-query";
import { assistantStatusQuery } from "./assistantQueries";

/** Whether the assistant is on, and the person's use of this hour's quota (small: the nav reads it). */
export function useAssistantStatus() {
  return useQuery(assistantStatusQuery());
}
