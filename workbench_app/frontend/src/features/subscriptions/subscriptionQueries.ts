// The subscriptions' and alerts' reads, each keyed once; invalidating SENDINGS_KEY reaches them all
// (a target's list, an administrator's list of everyone's, the delivery logs).
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";

export const SENDINGS_KEY = ["sendings"] as const;
export type TargetKind = "dashboard" | "question";
export type SendingKind = "subscription" | "alert";

export const targetSubscriptionsQuery = (kind: TargetKind, targetId: number) => queryOptions({
  queryKey: [...SENDINGS_KEY, "subscriptions", kind, targetId] as const,
  queryFn: async () => (await data(api.GET("/subscriptions", {
    params: { query: { target_kind: kind, target_id: targetId } } }))).subscriptions,
});

export const questionAlertsQuery = (questionId: number) => queryOptions({
  queryKey: [...SENDINGS_KEY, "alerts", questionId] as const,
  queryFn: async () => (await data(api.GET("/alerts", { params: { query: { question_id: questionId } } }))).alerts,
});

export const everyonesSubscriptionsQuery = () => queryOptions({
  queryKey: [...SENDINGS_KEY, "subscriptions", "all"] as const,
  queryFn: async () => (await data(api.GET("/subscriptions", { params: { query: { all: "true" } } }))).subscriptions,
});

export const everyonesAlertsQuery = () => queryOptions({
  queryKey: [...SENDINGS_KEY, "alerts", "all"] as const,
  queryFn: async () => (await data(api.GET("/alerts", { params: { query: { all: "true" } } }))).alerts,
});

export const deliveriesQuery = (kind: SendingKind, id: number) => queryOptions({
  queryKey: [...SENDINGS_KEY, "deliveries", kind, id] as const,
  queryFn: async () => (await (kind === "subscription"
    ? data(api.GET("/subscriptions/{subscription_id}/deliveries", { params: { path: { subscription_id: id } } }))
    : data(api.GET("/alerts/{alert_id}/deliveries", { params: { path: { alert_id: id } } })))).deliveries,
});

export const mailSettingsQuery = () => queryOptions({
  queryKey: ["admin", "settings", "mail"] as const,
  queryFn: () => data(api.GET("/settings/mail")),
});

// The people the caller may pick as recipients (the server decides who: see GET /recipient-accounts).
export const recipientAccountsQuery = (search: string) => queryOptions({
  queryKey: ["recipient-accounts", search] as const,
  queryFn: async () => (await data(api.GET("/recipient-accounts", { params: { query: { search } } }))).accounts,
  enabled: search.length > 0,
  staleTime: 30_000,
});
