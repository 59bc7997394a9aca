// ECharts options built from a chart spec, a result and the theme's palette: pure, so the app,
// dashboards, embeds and PDF prints draw alike (and it is unit-tested without a browser).
import type { ResultColumn } from "../results/types";
import { analysisOf, funnelOption, heatmapOption, sankeyOption, type AnalysisTexts } from "./analysisCharts";
import { isTemporal, type ChartSpec } from "./chartSpec";

export interface ForecastPoint {
  t: number;
  value: number;
  lower: number;
  upper: number;
}

export interface ForecastSeries {
  /** The series it extends (a y column). */
  series: string;
  method: string;
  points: ForecastPoint[];
}

export interface ChartTexts {
  forecast: string;
  interval: string;
  /** The analyses' words (funnels, paths, retention); English when left out. */
  analysis?: AnalysisTexts;
}

export const ENGLISH_ANALYSIS: AnalysisTexts = {
  other: "other", step: (n) => `step ${n}`, period: (n) => `period ${n}`, visitors: "visitors", dropOff: "drop-off",
  medianTime: "median time", percent: (share) => `${(share * 100).toFixed(1)} %`, count: (value) => value.toLocaleString("en"),
  duration: (seconds) => `${Math.round(seconds)} s`,
};

type Row = readonly unknown[];
export type ChartOption = Record<string, unknown>;

function toNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return null;
}

function toTime(value: unknown): number | null {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return null;
  const parsed = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(parsed) ? null : parsed;
}

export function columnIndex(columns: readonly ResultColumn[], name: string | undefined): number {
  return name === undefined ? -1 : columns.findIndex((column) => column.name === name);
}

/** The time series of one y column over a temporal x (sorted by time), as forecasts take it. */
export function timeSeries(columns: readonly ResultColumn[], rows: readonly Row[], x: string, y: string): { t: number; value: number | null }[] {
  const xi = columnIndex(columns, x);
  const yi = columnIndex(columns, y);
  return rows
    .map((row) => ({ t: toTime(row[xi]), value: toNumber(row[yi]) }))
    .filter((point): point is { t: number; value: number | null } => point.t !== null)
    .sort((a, b) => a.t - b.t);
}

export function buildOption(spec: ChartSpec, columns: readonly ResultColumn[], rows: readonly Row[], palette: readonly string[],
  forecasts: readonly ForecastSeries[] = [], texts: ChartTexts = { forecast: "forecast", interval: "80 %" }): ChartOption {
  const colors = spec.colors?.length ? [...spec.colors, ...palette] : [...palette];
  const words = texts.analysis ?? ENGLISH_ANALYSIS;
  if (spec.kind === "sankey") return sankeyOption(columns, rows, colors, words);
  if (spec.kind === "heatmap") return heatmapOption(columns, rows, colors, words);
  if (spec.kind === "funnel" && analysisOf(columns) === "funnel") return funnelOption(columns, rows, colors, words);
  const base: ChartOption = { color: colors, animation: false, tooltip: { trigger: spec.kind === "pie" || spec.kind === "funnel" ? "item" : "axis" } };
  const xi = columnIndex(columns, spec.x);
  const yIndexes = spec.y.map((name) => columnIndex(columns, name)).filter((index) => index >= 0);
  const label = { show: spec.labels === true };

  if (spec.kind === "pie" || spec.kind === "funnel") {
    const yi = yIndexes[0] ?? -1;
    const data = rows.map((row) => ({ name: String(row[xi] ?? "∅"), value: toNumber(row[yi]) ?? 0 }));
    const series = spec.kind === "pie"
      ? { type: "pie", radius: ["35%", "70%"], data, label: { show: true }, name: spec.y[0] }
      : { type: "funnel", data: [...data].sort((a, b) => b.value - a.value), label: { show: true }, name: spec.y[0] };
    return { ...base, legend: { type: "scroll", bottom: 0 }, series: [series] };
  }

  if (spec.kind === "scatter") {
    const yi = yIndexes[0] ?? -1;
    return {
      ...base,
      xAxis: { type: "value", name: spec.x, scale: true },
      yAxis: { type: "value", name: spec.y[0], scale: true },
      series: [{ type: "scatter", name: spec.y[0], data: rows.map((row) => [toNumber(row[xi]), toNumber(row[yi])]), label }],
    };
  }

  const xColumn = columns[xi];
  const overTime = xColumn !== undefined && isTemporal(xColumn);
  const type = spec.kind === "bar" ? "bar" : "line";
  const series: Record<string, unknown>[] = yIndexes.map((yi, n) => ({
    type,
    name: columns[yi]!.name,
    data: overTime
      ? rows.map((row) => [toTime(row[xi]), toNumber(row[yi])]).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0))
      : rows.map((row) => toNumber(row[yi])),
    stack: spec.stacked ? "total" : undefined,
    areaStyle: spec.kind === "area" ? {} : undefined,
    showSymbol: rows.length <= 60,
    label,
    itemStyle: { color: colors[n % colors.length] },
  }));

  forecasts.forEach((forecast) => {
    const n = spec.y.indexOf(forecast.series);
    const color = colors[(n < 0 ? 0 : n) % colors.length];
    const stack = `band-${forecast.series}`;
    // The 80 % interval as a band: an invisible lower line, then the width stacked on it.
    series.push(
      { type: "line", name: `${forecast.series} lower`, data: forecast.points.map((p) => [p.t, p.lower]), stack,
        lineStyle: { opacity: 0 }, showSymbol: false, tooltip: { show: false }, silent: true },
      { type: "line", name: `${forecast.series} · ${texts.interval}`, data: forecast.points.map((p) => [p.t, p.upper - p.lower]),
        stack, lineStyle: { opacity: 0 }, areaStyle: { color, opacity: 0.18 }, showSymbol: false, tooltip: { show: false }, silent: true },
      { type: "line", name: `${forecast.series} · ${texts.forecast} (${forecast.method})`,
        data: forecast.points.map((p) => [p.t, p.value]), lineStyle: { type: "dashed", color }, itemStyle: { color }, showSymbol: false },
    );
  });

  const names = overTime ? [] : rows.map((row) => String(row[xi] ?? "∅"));
  const category = { type: "category", data: overTime ? undefined : names, name: spec.x };
  const xAxis = overTime ? { type: "time", name: spec.x } : category;
  const yAxis = { type: "value", name: spec.y.length === 1 ? spec.y[0] : undefined };
  const horizontal = spec.kind === "bar" && spec.horizontal === true && !overTime;
  const leftLabels = horizontal ? names : valueLabels(series, spec.stacked === true);
  return {
    ...base,
    legend: { type: "scroll", top: 0, data: series.filter((s) => !String(s.name).endsWith(" lower")).map((s) => s.name) },
    // Room for the axis labels from their text: ECharts' own fitting (`containLabel`) measured
    // every label of every chart, two fifths of the time to draw one; "none" turns it off.
    grid: { left: 56 + labelsWidth(leftLabels), right: 24, top: 40, bottom: 40 + LABEL_LINE_PX, outerBoundsMode: "none" },
    // The bottom axis is named under its labels, not past its end, where the card cut the name.
    xAxis: { ...(horizontal ? yAxis : xAxis), nameLocation: "middle", nameGap: 28 },
    yAxis: horizontal ? { ...category, axisLabel: { width: LABEL_MAX_PX, overflow: "truncate" } } : yAxis,
    series,
  };
}

// Axis labels are 12 px: at most about 7 px a character, a line 20 px with its margin.
const CHAR_PX = 7;
const LABEL_LINE_PX = 20;
const LABEL_MAX_PX = 200;

/** The room the longest of `labels` takes beside an axis, with the label's margin (longer ones are cut). */
export function labelsWidth(labels: readonly string[]): number {
  const longest = labels.reduce((length, label) => Math.max(length, label.length), 0);
  return Math.min(longest * CHAR_PX, LABEL_MAX_PX) + 8;
}

/** The widest labels a value axis over `series` may show: its ticks reach at most about half again
 * past the largest and smallest values (stacked: sums), written with thousands separators. */
export function valueLabels(series: readonly Record<string, unknown>[], stacked: boolean): string[] {
  const columns = series.map((entry) => (entry.data as unknown[]).map((point) => Number(Array.isArray(point) ? point[1] : point) || 0));
  const sums = stacked ? (columns[0] ?? []).map((_, i) => columns.reduce((sum, column) => sum + Math.abs(column[i] ?? 0), 0)) : [];
  let smallest = 0;
  let largest = 0;
  for (const value of [...columns.flat(), ...sums]) {
    smallest = Math.min(smallest, value);
    largest = Math.max(largest, value);
  }
  const label = (value: number) => (Math.sign(value) * Math.ceil(Math.abs(value) * 1.5)).toLocaleString("en-US");
  return [label(largest), label(smallest)];
}

/** The single value of a number chart. */
export function numberValue(spec: ChartSpec, columns: readonly ResultColumn[], rows: readonly Row[]): number | null {
  const yi = columnIndex(columns, spec.y[0]);
  return rows.length > 0 ? toNumber(rows[0]![yi]) : null;
}
