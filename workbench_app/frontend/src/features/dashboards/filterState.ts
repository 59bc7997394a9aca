// The viewer's filter values, tab and refresh interval live in the URL (`?f.<filter id>=value`,
// `tab=`, `refresh=`), so a copied link reproduces the view. Pure: no React, no router.
import type { SavedFilter } from "./dashboardDraft";

export const REFRESH_MINUTES = [0, 1, 5, 15, 60] as const;
export type RefreshMinutes = (typeof REFRESH_MINUTES)[number];

/** Relative dates a date filter offers beside a fixed day; the server resolves them when a card runs. */
export const RELATIVE_DATES = ["today", "yesterday", "-7d", "-30d", "-90d", "month-start", "year-start"] as const;
export type RelativeDate = (typeof RELATIVE_DATES)[number];

const PREFIX = "f.";

/** Each filter's value: the URL's when present (even empty: cleared), else the filter's default. */
export function filterValues(params: URLSearchParams, filters: readonly SavedFilter[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const item of filters) {
    const given = params.get(`${PREFIX}${item.filter_id}`);
    values[String(item.filter_id)] = given ?? (item.default_value === null ? "" : String(item.default_value));
  }
  return values;
}

/** The URL's parameters with one filter set; a value equal to the default leaves the URL short. */
export function withFilter(params: URLSearchParams, item: SavedFilter, value: string): URLSearchParams {
  const next = new URLSearchParams(params);
  const fallback = item.default_value === null ? "" : String(item.default_value);
  if (value === fallback) next.delete(`${PREFIX}${item.filter_id}`);
  else next.set(`${PREFIX}${item.filter_id}`, value);
  return next;
}

export function refreshMinutes(params: URLSearchParams, savedSeconds: number | null): RefreshMinutes {
  const given = Number(params.get("refresh") ?? NaN);
  const chosen = Number.isNaN(given) ? Math.round((savedSeconds ?? 0) / 60) : given;
  return REFRESH_MINUTES.includes(chosen as RefreshMinutes) ? (chosen as RefreshMinutes) : 0;
}

/** The values one card's run sends: only the filters linked to it ("" for a cleared one). */
export function cardFilters(cardId: number, filters: readonly SavedFilter[], values: Record<string, string>): Record<string, string> {
  const sent: Record<string, string> = {};
  for (const item of filters) {
    if (item.links.some((link) => link.card_id === cardId)) sent[String(item.filter_id)] = values[String(item.filter_id)] ?? "";
  }
  return sent;
}

/** Whole minutes between a card's last answer and now (never negative). */
export function minutesSince(updatedAt: number, now: number): number {
  return Math.max(0, Math.floor((now - updatedAt) / 60_000));
}
