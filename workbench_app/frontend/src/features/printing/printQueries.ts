// The print page's reads (Chromium prints it: workbench_app/printing/), keyed apart from the
// dashboard page's: its cards run with a larger row limit and no retry.
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { Result } from "../results/types";

export const printDashboardQuery = (dashboardId: number) => queryOptions({
  queryKey: ["print-dashboard", dashboardId] as const,
  queryFn: () => data(api.GET("/dashboards/{dashboard_id}", { params: { path: { dashboard_id: dashboardId } } })),
});

export const printCardQuery = (dashboardId: number, cardId: number, filters: Record<string, string | string[]>, rowLimit: number) => queryOptions({
  queryKey: ["print-card", dashboardId, cardId] as const,
  queryFn: async () => (await data(api.POST("/dashboards/{dashboard_id}/cards/{card_id}/run", {
    params: { path: { dashboard_id: dashboardId, card_id: cardId } },
    body: { filters, row_limit: rowLimit },
  }))) as Result,
  retry: false,
});
