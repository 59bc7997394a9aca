// The dashboards' reads, keyed once: the list, a dashboard's definition and its cards' runs (shared
// by the page and by the prefetch that starts them beside the session and the page's code when a
// dashboard's address is opened: App.tsx), and the values a one-of filter offers.
import { queryOptions, type QueryClient } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { LazyChartView } from "../charts/lazyChartView";
import { dashboardThemeQuery } from "../themes/themeQueries";
import type { Result } from "../results/types";
import { cardsOfTab, draftOf, savedQuestionCardId, shownTab } from "./dashboardDraft";
import { cardFilters, filterValues } from "./filterState";

export const DASHBOARDS_KEY = ["dashboards"] as const;
/** Invalidating it runs every card of the dashboard again (the page's refresh, a save). */
export const cardRunKey = (dashboardId: number) => ["dashboard-card", dashboardId] as const;
type CardFilters = Record<string, string | string[]>;

/** One card's run with its filters (shared pages replace `queryFn`, and key it by their link or
 * token). Fresh for a few seconds: a card mounting just after the prefetch below does not ask again. */
export const cardRunQuery = (dashboardId: number, cardId: number, filters: CardFilters, runKey?: string) => queryOptions({
  queryKey: [...cardRunKey(dashboardId), cardId, filters, runKey ?? null] as const,
  staleTime: 5_000,
  queryFn: async () => (await data(api.POST("/dashboards/{dashboard_id}/cards/{card_id}/run", {
    params: { path: { dashboard_id: dashboardId, card_id: cardId } }, body: { filters },
  }))) as Result,
});

// Fresh for a few seconds: the page mounting just after the prefetch does not ask again.
export const dashboardQuery = (dashboardId: number) => queryOptions({
  queryKey: ["dashboard", dashboardId] as const,
  staleTime: 5_000,
  queryFn: () => data(api.GET("/dashboards/{dashboard_id}", { params: { path: { dashboard_id: dashboardId } } })),
});

/** A dashboard as the list shows it (without its cards, tabs and filters). */
export type ListedDashboard = components["schemas"]["DashboardSummary"];

export const dashboardsQuery = () => queryOptions({
  queryKey: DASHBOARDS_KEY,
  queryFn: async () => (await data(api.GET("/dashboards"))).dashboards,
});

/** The key of the values a one-of filter offers (shared pages ask through their link or token: `source`). */
export const filterValuesKey = (dashboardId: number, filterId: number, search: string, source: string | null) =>
  ["dashboard-filter-values", dashboardId, filterId, search, source] as const;

/** Starts the reads of the dashboard at `/dashboards/<id>?<search>`: its definition and theme, then
 * the runs of the cards its page will show (those of the tab and filters in `search`) as soon as
 * the definition arrives, rather than once the page has drawn and measured its grid. */
export function prefetchDashboard(queryClient: QueryClient, dashboardId: number, search: string, signedIn: Promise<boolean>): void {
  if (!Number.isInteger(dashboardId)) return;
  void LazyChartView.preload(); // the largest download, needed as soon as the first card answers
  void queryClient.prefetchQuery(dashboardThemeQuery(dashboardId));
  // A run is a POST: it waits for the session's CSRF token too (read beside the definition).
  void Promise.all([signedIn, queryClient.fetchQuery(dashboardQuery(dashboardId))]).then(([session, dashboard]) => {
    if (!session) return;
    const params = new URLSearchParams(search);
    const values = filterValues(params, dashboard.filters);
    const draft = draftOf(dashboard);
    for (const card of cardsOfTab(draft, shownTab(draft, params.get("tab")))) {
      const cardId = savedQuestionCardId(card);
      if (cardId !== null) void queryClient.prefetchQuery(cardRunQuery(dashboardId, cardId, cardFilters(cardId, dashboard.filters, values)));
    }
  }, () => undefined); // the page shows the error of its own read
}
