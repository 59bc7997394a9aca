// The theme that applies to a dashboard, resolved by the server along the folder chain.
import { useQuery } from "@tanstack/react-query";
import { api, data } from "../../api/client";

export const dashboardThemeKey = (dashboardId: number) => ["dashboard-theme", dashboardId] as const;

export const dashboardThemeQuery = (dashboardId: number) => ({
  queryKey: dashboardThemeKey(dashboardId),
  staleTime: 5_000, // the page mounting just after the prefetch (dashboardQueries.ts) does not ask again
  queryFn: () => data(api.GET("/dashboards/{dashboard_id}/theme", { params: { path: { dashboard_id: dashboardId } } })),
});

export function useDashboardTheme(dashboardId: number) {
  return useQuery(dashboardThemeQuery(dashboardId));
}
