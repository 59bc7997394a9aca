// The query history and the audit log, keyed by their filters (a filter changed is another entry).
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";

export type Run = components["schemas"]["HistoryEntry"];
export type Entry = components["schemas"]["AuditEntry"];

/** The origins the history can be filtered by ("": any). */
export const ORIGINS = ["", "ui", "api", "tool_server", "embed", "assistant", "subscription"] as const;

export type AuditFilters = { action?: string; actor?: string; since?: string; until?: string };

export const historyQuery = (everyone: boolean, origin: (typeof ORIGINS)[number]) => queryOptions({
  queryKey: ["history", everyone, origin] as const,
  queryFn: async () => (await data(api.GET("/history", { params: { query: {
    ...(everyone ? { all: "true" } : {}), ...(origin ? { origin } : {}), limit: 200 } } }))).queries,
});

export const auditQuery = (filters: AuditFilters) => queryOptions({
  queryKey: ["audit", filters] as const,
  queryFn: async () => (await data(api.GET("/audit", { params: { query: { ...filters, limit: 500 } } }))).entries,
});
