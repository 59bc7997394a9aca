// Side-by-side comparison on a dashboard: one segment filter is compared with a second segment
// (`?cmp.<filter id>=<segment id>`, "" for every visit), or one date range filter with the period of
// the same length just before it (`?cmp.<filter id>=previous`; the card runs with
// `previous:<range>`, which the server resolves). Each card linked to that filter runs twice, with
// the filter's value and with the compared one, through the same card-run path (same rights, same
// cache), and the two answers are drawn together. Pure: no React, no router.
//
// How two answers become one: a chart with an x axis (bar, line, area) gets each measure twice,
// `<measure> · <label>`, on the union of the x values (A's order, then B's new ones) for two
// segments, or row by row for two periods (the previous period's days drawn on this one's); a single
// number (number, change) becomes a bar of two: the label and the value; anything else (tables,
// pies, funnels, paths, heat maps) is drawn twice, one above the other, each captioned.
import type { ChartSpec } from "../charts/chartSpec";
import type { Result } from "../results/types";
import type { SavedFilter } from "./dashboardDraft";

const PREFIX = "cmp.";

export const PREVIOUS_PERIOD = "previous";

export interface Comparison {
  filterId: number;
  value: string;
  /** "date_range": the value is PREVIOUS_PERIOD. */
  type?: "segment" | "date_range" | undefined;
}

/** The comparison the URL asks for: the first segment filter with a `cmp.` value, or date range
 * filter with `cmp.<id>=previous`. */
export function comparisonOf(params: URLSearchParams, filters: readonly SavedFilter[]): Comparison | null {
  for (const item of filters) {
    const value = params.get(`${PREFIX}${item.filter_id}`);
    if (item.type === "segment" && value !== null) return { filterId: item.filter_id, value, type: "segment" };
    if (item.type === "date_range" && value === PREVIOUS_PERIOD) return { filterId: item.filter_id, value, type: "date_range" };
  }
  return null;
}

/** The URL's parameters with the comparison set (null: none). */
export function withComparison(params: URLSearchParams, filters: readonly SavedFilter[], comparison: Comparison | null): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const item of filters) next.delete(`${PREFIX}${item.filter_id}`);
  if (comparison) next.set(`${PREFIX}${comparison.filterId}`, comparison.value);
  return next;
}

/** A card's filters for the compared run (null when the card is not linked to the compared filter). */
export function comparedFilters(cardFilters: Record<string, string | string[]>, comparison: Comparison | null
): Record<string, string | string[]> | null {
  const id = String(comparison?.filterId);
  if (!comparison || !(id in cardFilters)) return null;
  if (comparison.type !== "date_range") return { ...cardFilters, [id]: comparison.value };
  const current = cardFilters[id];
  return typeof current === "string" && current ? { ...cardFilters, [id]: `previous:${current}` } : null;
}

export type Merged =
  | { kind: "one"; result: Result; spec: ChartSpec }
  | { kind: "two" };

const key = (value: unknown) => JSON.stringify(value ?? null);

/** The two answers as one chart, when the spec allows it ("two": draw each on its own). */
export function mergeResults(a: Result, b: Result, spec: ChartSpec, labels: [string, string], byPosition = false): Merged {
  const names = (result: Result) => (result.columns ?? []).map((column) => column.name ?? "");
  const [namesA, namesB] = [names(a), names(b)];
  const rowsA = (a.rows ?? []) as unknown[][];
  const rowsB = (b.rows ?? []) as unknown[][];
  const measures = spec.y.filter((y) => namesA.includes(y) && namesB.includes(y));
  if ((spec.kind === "number" || spec.kind === "change") && measures.length > 0) {
    const y = measures[0]!;
    const value = (rows: unknown[][], names: string[]) => rows[0]?.[names.indexOf(y)] ?? null;
    const column = (a.columns ?? []).find((c) => c.name === y);
    return {
      kind: "one",
      spec: { kind: "bar", x: "segment", y: [y] },
      result: { ...a, columns: [{ name: "segment", type: "VARCHAR" }, column ?? { name: y, type: "DOUBLE" }],
        rows: [[labels[0], value(rowsA, namesA)], [labels[1], value(rowsB, namesB)]], row_count: 2 } as Result,
    };
  }
  const x = spec.x;
  if (!["bar", "line", "area"].includes(spec.kind) || x === undefined || measures.length === 0
      || !namesA.includes(x) || !namesB.includes(x)) {
    return { kind: "two" };
  }
  const order: string[] = [];
  const xs = new Map<string, unknown>();
  const byX = (rows: unknown[][], names: string[]) => {
    const found = new Map<string, unknown[]>();
    for (const [index, row] of rows.entries()) {
      // Two periods: the nth row of one beside the nth of the other, on the first's x.
      const k = byPosition ? String(index) : key(row[names.indexOf(x)]);
      if (!xs.has(k)) { xs.set(k, row[names.indexOf(x)]); order.push(k); }
      found.set(k, row);
    }
    return found;
  };
  const [mapA, mapB] = [byX(rowsA, namesA), byX(rowsB, namesB)];
  const named = (y: string, label: string) => `${y} · ${label}`;
  const ys = [...measures.map((y) => named(y, labels[0])), ...measures.map((y) => named(y, labels[1]))];
  const typeOf = (y: string) => (a.columns ?? []).find((c) => c.name === y)?.type ?? "DOUBLE";
  const xColumn = (a.columns ?? []).find((c) => c.name === x) ?? { name: x, type: "VARCHAR" };
  const rows = order.map((k) => [
    xs.get(k),
    ...measures.map((y) => mapA.get(k)?.[namesA.indexOf(y)] ?? null),
    ...measures.map((y) => mapB.get(k)?.[namesB.indexOf(y)] ?? null),
  ]);
  return {
    kind: "one",
    spec: { ...spec, y: ys, colors: undefined,
      faint: spec.faint?.flatMap((y) => (measures.includes(y) ? [named(y, labels[0]), named(y, labels[1])] : [])) },
    result: { ...a, columns: [xColumn, ...[...measures, ...measures].map((y, i) => ({ name: ys[i]!, type: typeOf(y) }))],
      rows, row_count: rows.length } as Result,
  };
}
