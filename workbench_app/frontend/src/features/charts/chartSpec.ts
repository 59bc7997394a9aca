// What a chart draws, stored with the question (its `visualization`): the kind, the x column,
// the y columns and a few choices. Pure: no React, no ECharts.
import type { ResultColumn } from "../results/types";
import { analysisOf } from "./analysisCharts";

export const CHART_KINDS = ["table", "number", "change", "line", "area", "bar", "pie", "scatter", "funnel", "sankey", "heatmap"] as const;
/** Kinds that draw one analysis's answer (paths, retention), whatever x and y say. */
export const ANALYSIS_KINDS: readonly ChartKind[] = ["sankey", "heatmap"];
export type ChartKind = (typeof CHART_KINDS)[number];
export const FORECAST_HORIZONS = [0, 3, 6, 12] as const;
export type ForecastHorizon = (typeof FORECAST_HORIZONS)[number];

export interface ChartSpec {
  kind: ChartKind;
  x?: string | undefined;
  y: string[];
  stacked?: boolean | undefined;
  horizontal?: boolean | undefined;
  labels?: boolean | undefined;
  /** Periods to forecast on a line, area or bar chart over time (0: none). */
  forecast?: ForecastHorizon | undefined;
  /** Colours by series, overriding the theme's palette. */
  colors?: string[] | undefined;
  /** Series drawn faintly behind the others (the previous period beside this one). */
  faint?: string[] | undefined;
  /** A number with its change: whether a rise is good news ("higher", the default) or a fall ("lower"). */
  better?: "higher" | "lower" | undefined;
}

/** Kinds that show one value rather than a chart: a number, a number with its change (y: value, previous value). */
export const isSingleValue = (kind: ChartKind) => kind === "number" || kind === "change";

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|REAL|DOUBLE|DECIMAL|NUMERIC|INT\d*)/i;
const TEMPORAL = /^(DATE|TIMESTAMP|TIME)/i;

export const isNumeric = (column: ResultColumn) => NUMERIC.test(column.type);
export const isTemporal = (column: ResultColumn) => TEMPORAL.test(column.type) && !/^TIME(?!STAMP)/i.test(column.type);

/** A sensible first chart for a result: a number for one value, a line over time, bars otherwise. */
export function defaultSpec(columns: readonly ResultColumn[], rowCount: number): ChartSpec {
  const analysis = analysisOf(columns);
  if (analysis === "funnel") return { kind: "funnel", x: "label", y: ["visitors"] };
  if (analysis === "sankey") return { kind: "sankey", y: ["visits"] };
  if (analysis === "heatmap") return { kind: "heatmap", x: "period", y: ["retention"] };
  const numeric = columns.filter(isNumeric);
  const temporal = columns.find(isTemporal);
  const category = columns.find((column) => !isNumeric(column));
  if (rowCount === 1 && numeric.length >= 1 && columns.length <= 2) return { kind: "number", y: [numeric[0]!.name] };
  if (numeric.length === 0 || columns.length < 2) return { kind: "table", y: [] };
  const x = temporal ?? category ?? columns[0]!;
  return { kind: temporal ? "line" : "bar", x: x.name, y: numeric.filter((c) => c.name !== x.name).slice(0, 4).map((c) => c.name) };
}

/** Whether a spec can draw this result (its columns may have changed since it was saved). */
export function specFits(spec: ChartSpec, columns: readonly ResultColumn[]): boolean {
  const names = new Set(columns.map((c) => c.name));
  if (spec.kind === "table") return true;
  if (ANALYSIS_KINDS.includes(spec.kind)) return analysisOf(columns) === spec.kind;
  if (spec.y.length === 0 || !spec.y.every((name) => names.has(name))) return false;
  if (spec.kind === "change") return spec.y.length >= 2;
  return spec.kind === "number" || (spec.x !== undefined && names.has(spec.x));
}

/** Forecasts extend line, area and bar charts whose x axis is time. */
export function canForecast(spec: ChartSpec, columns: readonly ResultColumn[]): boolean {
  const x = columns.find((column) => column.name === spec.x);
  return (spec.kind === "line" || spec.kind === "area" || spec.kind === "bar") && x !== undefined && isTemporal(x);
}

/** A stored `visualization` read back safely (anything unknown falls back to the default). */
export function readSpec(stored: unknown, columns: readonly ResultColumn[], rowCount: number): ChartSpec {
  if (stored && typeof stored === "object") {
    const candidate = stored as Partial<ChartSpec>;
    if (CHART_KINDS.includes(candidate.kind as ChartKind) && Array.isArray(candidate.y)) {
      const spec: ChartSpec = {
        kind: candidate.kind as ChartKind,
        x: typeof candidate.x === "string" ? candidate.x : undefined,
        y: candidate.y.filter((name): name is string => typeof name === "string"),
        stacked: candidate.stacked === true,
        horizontal: candidate.horizontal === true,
        labels: candidate.labels === true,
        forecast: FORECAST_HORIZONS.includes(candidate.forecast as ForecastHorizon) ? candidate.forecast : 0,
        colors: Array.isArray(candidate.colors) ? candidate.colors.filter((c) => /^#[0-9a-f]{6}$/i.test(String(c))) : undefined,
        faint: Array.isArray(candidate.faint) ? candidate.faint.filter((name): name is string => typeof name === "string") : undefined,
        better: candidate.better === "lower" ? "lower" : undefined,
      };
      if (specFits(spec, columns)) return spec;
    }
  }
  return defaultSpec(columns, rowCount);
}
