// Sharing's reads, keyed once: a shared page's dashboard (by its link or token), a dashboard's public
// links and the embedding secrets.
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { SharedAccess } from "./sharedAccess";

/** Keyed by the link or the token: a new token reads the dashboard again. */
export const sharedDashboardQuery = (access: SharedAccess) => queryOptions({
  queryKey: ["shared-dashboard", access.key] as const,
  queryFn: access.dashboard,
});

export const publicLinksQuery = (dashboardId: number) => queryOptions({
  queryKey: ["public-links", dashboardId] as const,
  queryFn: () => data(api.GET("/dashboards/{dashboard_id}/public-links", { params: { path: { dashboard_id: dashboardId } } })),
  retry: false,
});

export const embeddingSecretsQuery = () => queryOptions({
  queryKey: ["admin", "embedding-secrets"] as const,
  queryFn: async () => (await data(api.GET("/embedding-secrets"))).secrets,
});
