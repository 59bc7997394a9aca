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
  /** Names the last period of a time axis while it is still running. */
  incomplete?: string;
}

/** Where a chart is drawn: the person's language (numbers and dates), its width in pixels, and the time now
 * (the last period of a time axis that has not ended yet is marked as incomplete). */
export interface ChartContext {
  locale?: string | undefined;
  width?: number | undefined;
  now?: number | undefined;
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
  forecasts: readonly ForecastSeries[] = [], texts: ChartTexts = { forecast: "forecast", interval: "80 %" },
  context: ChartContext = {}): ChartOption {
  const colors = spec.colors?.length ? [...spec.colors, ...palette] : [...palette];
  const words = texts.analysis ?? ENGLISH_ANALYSIS;
  if (spec.kind === "sankey") return sankeyOption(columns, rows, colors, words);
  if (spec.kind === "heatmap") return heatmapOption(columns, rows, colors, words);
  if (spec.kind === "funnel" && analysisOf(columns) === "funnel") return funnelOption(columns, rows, colors, words);
  const numbers = numberFormatter(context.locale);
  const base: ChartOption = {
    color: colors, animation: false,
    tooltip: { trigger: spec.kind === "pie" || spec.kind === "funnel" ? "item" : "axis", valueFormatter: numbers },
  };
  const xi = columnIndex(columns, spec.x);
  const yIndexes = spec.y.map((name) => columnIndex(columns, name)).filter((index) => index >= 0);
  const label = { show: spec.labels === true, formatter: (point: { value: unknown }) => numbers(Array.isArray(point.value) ? point.value[1] : point.value) };

  if (spec.kind === "pie" || spec.kind === "funnel") {
    const yi = yIndexes[0] ?? -1;
    const data = rows.map((row) => ({ name: String(row[xi] ?? "∅"), value: toNumber(row[yi]) ?? 0 }));
    const series = spec.kind === "pie"
      ? { type: "pie", radius: ["35%", "70%"], data, label: { show: true }, name: spec.y[0] }
      : { type: "funnel", data: [...data].sort((a, b) => b.value - a.value), name: spec.y[0],
          label: { show: true, formatter: (point: { name: string; value: unknown }) => `${point.name}: ${numbers(point.value)}` } };
    return { ...base, legend: { type: "scroll", bottom: 0 }, series: [series] };
  }

  if (spec.kind === "scatter") {
    const yi = yIndexes[0] ?? -1;
    return {
      ...base,
      xAxis: { type: "value", name: spec.x, scale: true, axisLabel: { formatter: numbers } },
      yAxis: { type: "value", name: spec.y[0], scale: true, axisLabel: { formatter: numbers } },
      series: [{ type: "scatter", name: spec.y[0], data: rows.map((row) => [toNumber(row[xi]), toNumber(row[yi])]), label }],
    };
  }

  const xColumn = columns[xi];
  const overTime = xColumn !== undefined && isTemporal(xColumn);
  const type = spec.kind === "bar" ? "bar" : "line";
  const faint = new Set(spec.faint ?? []);
  const times = overTime ? rows.map((row) => toTime(row[xi])).filter((t): t is number => t !== null) : [];
  const running = overTime ? runningPeriod(times, context.now ?? Date.now()) : null;
  const series: Record<string, unknown>[] = [];
  yIndexes.forEach((yi, n) => {
    const name = columns[yi]!.name;
    const color = colors[n % colors.length];
    const behind = faint.has(name);
    const points = overTime
      ? rows.map((row) => [toTime(row[xi]), toNumber(row[yi])]).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0))
      : rows.map((row) => toNumber(row[yi]));
    const entry: Record<string, unknown> = {
      type, name, data: points,
      stack: spec.stacked ? "total" : undefined,
      areaStyle: spec.kind === "area" ? (behind ? { opacity: FAINT_OPACITY / 2 } : {}) : undefined,
      showSymbol: !behind && rows.length <= 60,
      label,
      itemStyle: { color, opacity: behind ? FAINT_OPACITY : undefined },
      lineStyle: behind ? { color, opacity: FAINT_OPACITY, width: 1.5 } : undefined,
      z: behind ? 1 : 2,
    };
    series.push(entry);
    if (running === null || behind || spec.stacked) return;
    // The period still running is drawn as such (dashed, shaded), not as a fall.
    const last = points.length - 1;
    if (type === "bar") {
      const [t, value] = points[last] as (number | null)[];
      entry.data = [...points.slice(0, last), { value: [t, value], itemStyle: { color, opacity: FAINT_OPACITY } }];
    } else if (last >= 1) {
      entry.data = points.slice(0, last);
      series.push({ type: "line", name: `${name} · ${texts.incomplete ?? "incomplete"}`, data: points.slice(last - 1),
        lineStyle: { type: "dashed", color }, itemStyle: { color }, showSymbol: true, z: 2, tooltip: { show: false } });
    }
    if (n === 0) {
      entry.markArea = { silent: true, itemStyle: { color, opacity: 0.08 },
        label: { show: true, position: "insideTop", formatter: texts.incomplete ?? "incomplete" },
        data: [[{ xAxis: type === "bar" ? running.start : (times.length > 1 ? previousTime(times, running.start) : running.start) },
          { xAxis: type === "bar" ? running.end : running.start }]] };
    }
  });

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
  // Dates written in the person's language, at the grain of the data; labels that would overlap are hidden
  // (a time axis places its own ticks, so none is lost).
  const dates = dateFormatter(context.locale, times);
  const xAxis = overTime
    ? { type: "time", name: spec.x, axisLabel: { hideOverlap: true, formatter: dates } }
    : category;
  const yAxis = { type: "value", name: spec.y.length === 1 ? spec.y[0] : undefined, axisLabel: { formatter: numbers } };
  const horizontal = spec.kind === "bar" && spec.horizontal === true && !overTime;
  const leftLabels = horizontal ? names : valueLabels(series, spec.stacked === true);
  const left = 56 + labelsWidth(leftLabels);
  // Every category is labelled (interval 0), turned when the labels would not fit side by side.
  const turn = horizontal || overTime ? 0 : labelRotation(names, (context.width ?? DEFAULT_WIDTH_PX) - left - 24);
  const turnedHeight = turn === 0 ? 0 : Math.round(Math.min(labelsWidth(names) - 8, LABEL_MAX_PX) * Math.sin((turn * Math.PI) / 180));
  const bottomLabels = turn === 0 ? {} : { rotate: turn, width: LABEL_MAX_PX, overflow: "truncate" };
  return {
    ...base,
    legend: { type: "scroll", top: 0, data: series.filter((s) => !String(s.name).endsWith(" lower")).map((s) => s.name) },
    // Room for the axis labels from their text: ECharts' own fitting (`containLabel`) measured
    // every label of every chart, two fifths of the time to draw one; "none" turns it off.
    grid: { left, right: 24, top: 40, bottom: 40 + LABEL_LINE_PX + turnedHeight, outerBoundsMode: "none" },
    // The bottom axis is named under its labels, not past its end, where the card cut the name.
    xAxis: horizontal
      ? { ...yAxis, nameLocation: "middle", nameGap: 28 }
      : overTime
        ? { ...xAxis, nameLocation: "middle", nameGap: 28 }
        : { ...xAxis, nameLocation: "middle", nameGap: 28 + turnedHeight, axisLabel: { interval: 0, ...bottomLabels } },
    // Horizontal bars read top down, in the result's order (a ranking's first row on top).
    yAxis: horizontal ? { ...category, inverse: true, axisLabel: { interval: 0, width: LABEL_MAX_PX, overflow: "truncate" } } : yAxis,
    series,
  };
}

const FAINT_OPACITY = 0.35;
// A chart whose width is not known (a test, a print before layout) is taken as a dashboard card's half.
const DEFAULT_WIDTH_PX = 600;
const DAY_MS = 86_400_000;

/** Numbers written in the person's language (`1 234,5` in French); "–" for no value. */
export function numberFormatter(locale: string | undefined): (value: unknown) => string {
  const format = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  return (value) => {
    const number = toNumber(value);
    return number === null ? "–" : format.format(number);
  };
}

/** Dates at the grain of the series (minutes, days or months), in the person's language. Days and
 * months are UTC midnights (DATE columns); times within a day are shown as the browser reads them. */
export function dateFormatter(locale: string | undefined, times: readonly number[]): (value: number) => string {
  const sorted = [...new Set(times)].sort((a, b) => a - b);
  const step = sorted.length > 1 ? Math.min(...sorted.slice(1).map((t, i) => t - sorted[i]!)) : DAY_MS;
  const options: Intl.DateTimeFormatOptions = step < DAY_MS
    ? { hour: "2-digit", minute: "2-digit" }
    : step >= 28 * DAY_MS ? { month: "short", year: "numeric", timeZone: "UTC" } : { day: "numeric", month: "short", timeZone: "UTC" };
  const format = new Intl.DateTimeFormat(locale, options);
  return (value) => format.format(value);
}

/** The last period of a time series when it has begun and not ended at `now` ({start, end}), else null.
 * The period's length is the series' step (a month when the steps are months). */
export function runningPeriod(times: readonly number[], now: number): { start: number; end: number } | null {
  const sorted = [...new Set(times)].sort((a, b) => a - b);
  if (sorted.length < 2) return null;
  const start = sorted[sorted.length - 1]!;
  const step = start - sorted[sorted.length - 2]!;
  let end = start + step;
  if (step >= 28 * DAY_MS && step <= 31 * DAY_MS) {
    const day = new Date(start);
    end = Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate());
  }
  return start <= now && now < end ? { start, end } : null;
}

function previousTime(times: readonly number[], start: number): number {
  return Math.max(...times.filter((t) => t < start));
}

/** How far to turn category labels (0, 45 or 90 degrees) so that all of them fit in `width` pixels. */
export function labelRotation(labels: readonly string[], width: number): number {
  if (labels.length === 0) return 0;
  const slot = width / labels.length;
  if (labelsWidth(labels) <= slot) return 0;
  // Turned, a label takes its line's height (about 14 px) across, more at 45 degrees.
  return slot >= LABEL_LINE_PX ? 45 : 90;
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

/** A number with its change: the value (y[0]), the previous one (y[1]) and the relative change
 * (null without a previous value, or when it is 0); `good` says whether the change is good news. */
export function changeValues(spec: ChartSpec, columns: readonly ResultColumn[], rows: readonly Row[]):
  { value: number | null; previous: number | null; change: number | null; good: boolean | null } {
  const row = rows[0];
  const value = row ? toNumber(row[columnIndex(columns, spec.y[0])]) : null;
  const previous = row ? toNumber(row[columnIndex(columns, spec.y[1])]) : null;
  const change = value === null || previous === null || previous === 0 ? null : (value - previous) / Math.abs(previous);
  const good = change === null || change === 0 ? null : (change > 0) === (spec.better !== "lower");
  return { value, previous, change, good };
}
