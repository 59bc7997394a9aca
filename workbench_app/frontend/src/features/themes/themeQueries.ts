// Themes, keyed once: the themes screen and the dashboard editor's choice share the list, and the
// theme that applies to a dashboard or a question is resolved by the server along the folder chain
// (workbench_app/themes/resolution.py): the screens never resolve it themselves.
import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../api/client";

export const themesQuery = () => queryOptions({
  queryKey: ["themes"] as const,
  queryFn: () => data(api.GET("/themes")),
});

export const dashboardThemeQuery = (dashboardId: number) => queryOptions({
  queryKey: ["dashboard-theme", dashboardId] as const,
  staleTime: 5_000, // the page mounting just after the prefetch (dashboardQueries.ts) does not ask again
  queryFn: () => data(api.GET("/dashboards/{dashboard_id}/theme", { params: { path: { dashboard_id: dashboardId } } })),
});

/** A saved question's theme (its folder's); not asked for a question not saved yet (null). */
export const questionThemeQuery = (questionId: number | null) => queryOptions({
  queryKey: ["question-theme", questionId] as const,
  queryFn: () => data(api.GET("/questions/{question_id}/theme", { params: { path: { question_id: questionId! } } })),
  enabled: questionId !== null,
});
