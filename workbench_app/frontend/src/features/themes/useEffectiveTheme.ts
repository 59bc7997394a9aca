// The theme that applies to a dashboard or a question, resolved by the server along the folder
// chain (workbench_app/themes/resolution.py): the screens never resolve it themselves.
import { useQuery } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";

export type EffectiveTheme = components["schemas"]["EffectiveTheme"];

export const dashboardThemeKey = (dashboardId: number) => ["dashboard-theme", dashboardId] as const;
export const questionThemeKey = (questionId: number | null) => ["question-theme", questionId] as const;

export const dashboardThemeQuery = (dashboardId: number) => ({
  queryKey: dashboardThemeKey(dashboardId),
  staleTime: 5_000, // the page mounting just after the prefetch (dashboardQueries.ts) does not ask again
  queryFn: () => data(api.GET("/dashboards/{dashboard_id}/theme", { params: { path: { dashboard_id: dashboardId } } })),
});

export function useDashboardTheme(dashboardId: number) {
  return useQuery(dashboardThemeQuery(dashboardId));
}

/** A saved question's theme (its folder's); none for a question not saved yet (null). */
export function useQuestionTheme(questionId: number | null) {
  return useQuery({
    queryKey: questionThemeKey(questionId),
    queryFn: () => data(api.GET("/questions/{question_id}/theme", { params: { path: { question_id: questionId! } } })),
    enabled: questionId !== null,
  });
}

/** The theme a dashboard names itself (null: it inherits its folder's). */
export function ownThemeId(theme: EffectiveTheme | undefined): number | null {
  return theme?.source.kind === "dashboard" ? theme.theme_id ?? null : null;
}
