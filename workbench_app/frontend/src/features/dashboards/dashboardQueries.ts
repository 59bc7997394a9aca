// The reads a dashboard's page starts with, shared by the page and by the prefetch that starts them
// beside the session and the page's code when a dashboard's address is opened (App.tsx).
import type { QueryClient } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import { LazyChartView } from "../charts/lazyChartView";
import { dashboardThemeQuery } from "../themes/useEffectiveTheme";
import type { Dashboard } from "./dashboardDraft";

export const dashboardKey = (id: number) => ["dashboard", id] as const;

// Fresh for a few seconds: the page mounting just after the prefetch does not ask again.
export const dashboardQuery = (dashboardId: number) => ({
  queryKey: dashboardKey(dashboardId),
  staleTime: 5_000,
  queryFn: async () => (await data(api.GET("/dashboards/{dashboard_id}", { params: { path: { dashboard_id: dashboardId } } }))) as unknown as Dashboard,
});

export function prefetchDashboard(queryClient: QueryClient, dashboardId: number): void {
  if (!Number.isInteger(dashboardId)) return;
  void LazyChartView.preload(); // the largest download, needed as soon as the first card answers
  void queryClient.prefetchQuery(dashboardQuery(dashboardId));
  void queryClient.prefetchQuery(dashboardThemeQuery(dashboardId));
}
