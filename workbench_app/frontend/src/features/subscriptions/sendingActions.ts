// What can be done to a subscription or an alert from any list of them: pause or resume, send (or
// check) now, delete. Each refreshes every list and log (SENDINGS_KEY).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { Sending } from "./sendingDraft";
import { SENDINGS_KEY, type SendingKind } from "./subscriptionQueries";

export function sendingId(kind: SendingKind, item: Sending): number {
  return kind === "subscription" ? (item as { subscription_id: number }).subscription_id : (item as { alert_id: number }).alert_id;
}

export function useSendingActions(kind: SendingKind) {
  const queryClient = useQueryClient();
  const changed = () => void queryClient.invalidateQueries({ queryKey: SENDINGS_KEY });
  const pause = useMutation({
    mutationFn: ({ id, paused }: { id: number; paused: boolean }): Promise<Sending> => kind === "subscription"
      ? data(api.PATCH("/subscriptions/{subscription_id}", { params: { path: { subscription_id: id } }, body: { paused } }))
      : data(api.PATCH("/alerts/{alert_id}", { params: { path: { alert_id: id } }, body: { paused } })),
    onSuccess: changed,
  });
  const remove = useMutation({
    mutationFn: (id: number) => kind === "subscription"
      ? data(api.DELETE("/subscriptions/{subscription_id}", { params: { path: { subscription_id: id } } }))
      : data(api.DELETE("/alerts/{alert_id}", { params: { path: { alert_id: id } } })),
    onSuccess: changed,
  });
  const runNow = useMutation({
    mutationFn: (id: number) => kind === "subscription"
      ? data(api.POST("/subscriptions/{subscription_id}/send", { params: { path: { subscription_id: id } } }))
      : data(api.POST("/alerts/{alert_id}/check", { params: { path: { alert_id: id } } })),
    onSettled: changed,
  });
  return { pause, remove, runNow, error: pause.error ?? remove.error ?? runNow.error };
}
