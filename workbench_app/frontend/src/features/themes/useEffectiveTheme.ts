// The theme that applies to a dashboard or a question (its reads: themeQueries.ts).
import { useQuery } from "@tanstack/react-query";
import type { components } from "../../api/schema";
import { dashboardThemeQuery, questionThemeQuery } from "./themeQueries";

export type EffectiveTheme = components["schemas"]["EffectiveTheme"];

export function useDashboardTheme(dashboardId: number) {
  return useQuery(dashboardThemeQuery(dashboardId));
}

/** A saved question's theme (its folder's); none for a question not saved yet (null). */
export function useQuestionTheme(questionId: number | null) {
  return useQuery(questionThemeQuery(questionId));
}

/** The theme a dashboard names itself (null: it inherits its folder's). */
export function ownThemeId(theme: EffectiveTheme | undefined): number | null {
  return theme?.source.kind === "dashboard" ? theme.theme_id ?? null : null;
}
