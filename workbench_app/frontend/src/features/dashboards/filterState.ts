// The viewer's filter values, tab and refresh interval live in the URL (`?f.<filter id>=value`,
// `tab=`, `refresh=`), so a copied link reproduces the view. Pure: no React, no router.
// A one-of filter repeats its parameter once per value (`f.3=FR&f.3=ES`; `f.3=` alone: cleared);
// in the page its value is held as the JSON text of the list, so every filter's value is a string.
import type { FilterDefault, SavedFilter } from "./dashboardDraft";

export const REFRESH_MINUTES = [0, 1, 5, 15, 60] as const;
export type RefreshMinutes = (typeof REFRESH_MINUTES)[number];

/** Relative dates a date filter offers beside a fixed day; the server resolves them when a card runs. */
export const RELATIVE_DATES = ["today", "yesterday", "-7d", "-30d", "-90d", "month-start", "year-start"] as const;
export type RelativeDate = (typeof RELATIVE_DATES)[number];

/** A date range's relative choices; a custom one is `YYYY-MM-DD..YYYY-MM-DD`. */
export const RELATIVE_RANGES = ["last-7-days", "last-30-days", "last-90-days", "this-month", "previous-month"] as const;

/** A custom range's first and last day ("" when the value is not a custom range). */
export function rangeDays(value: string): [string, string] {
  const [from = "", to = ""] = value.includes("..") ? value.split("..") : [];
  return [from, to];
}

/** The values of a one-of filter's held value (the JSON text of a list, or ""). */
export function listValues(value: string): string[] {
  if (!value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

export function listValue(values: readonly string[]): string {
  return values.length ? JSON.stringify(values) : "";
}

function held(item: SavedFilter, value: FilterDefault): string {
  if (value === null) return "";
  if (item.type === "one_of") return listValue(Array.isArray(value) ? value.map(String) : [String(value)]);
  return String(value);
}

const PREFIX = "f.";

/** Each filter's value: the URL's when present (even empty: cleared), else the filter's default. */
export function filterValues(params: URLSearchParams, filters: readonly SavedFilter[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const item of filters) {
    const key = `${PREFIX}${item.filter_id}`;
    const given = item.type === "one_of" && params.has(key) ? listValue(params.getAll(key).filter(Boolean)) : params.get(key);
    values[String(item.filter_id)] = given ?? held(item, item.default_value);
  }
  return values;
}

/** The URL's parameters with one filter set; a value equal to the default leaves the URL short. */
export function withFilter(params: URLSearchParams, item: SavedFilter, value: string): URLSearchParams {
  const next = new URLSearchParams(params);
  const key = `${PREFIX}${item.filter_id}`;
  next.delete(key);
  if (value === held(item, item.default_value)) return next;
  if (item.type !== "one_of") next.set(key, value);
  else if (listValues(value).length === 0) next.set(key, "");
  else for (const one of listValues(value)) next.append(key, one);
  return next;
}

export function refreshMinutes(params: URLSearchParams, savedSeconds: number | null): RefreshMinutes {
  const given = Number(params.get("refresh") ?? NaN);
  const chosen = Number.isNaN(given) ? Math.round((savedSeconds ?? 0) / 60) : given;
  return REFRESH_MINUTES.includes(chosen as RefreshMinutes) ? (chosen as RefreshMinutes) : 0;
}

/** The values one card's run sends: only the filters linked to it ("" or [] for a cleared one). */
export function cardFilters(cardId: number, filters: readonly SavedFilter[], values: Record<string, string>): Record<string, string | string[]> {
  const sent: Record<string, string | string[]> = {};
  for (const item of filters) {
    if (!item.links.some((link) => link.card_id === cardId)) continue;
    const value = values[String(item.filter_id)] ?? "";
    sent[String(item.filter_id)] = item.type === "one_of" ? listValues(value) : value;
  }
  return sent;
}

/** Whole minutes between a card's last answer and now (never negative). */
export function minutesSince(updatedAt: number, now: number): number {
  return Math.max(0, Math.floor((now - updatedAt) / 60_000));
}
