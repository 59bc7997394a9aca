// ECharts options of the analyses' answers (workbench_app/analyses/compiler.py says their columns):
// a funnel with conversion and drop-off per step, paths as a Sankey diagram, retention as a heat
// map of cohorts by period. Pure, like chartOptions.ts, so the app, dashboards and prints draw alike.
import type { ResultColumn } from "../results/types";
import type { ChartOption } from "./chartOptions";

type Row = readonly unknown[];

export interface AnalysisTexts {
  /** The node of the pages grouped past a step's branches. */
  other: string;
  /** "Step {{n}}" on a path's node, with the step's number (negative before the page). */
  step: (n: number) => string;
  /** A period's label on the retention map's axis ("Week 2"). */
  period: (n: number) => string;
  visitors: string;
  dropOff: string;
  medianTime: string;
  /** A percentage in the person's language. */
  percent: (share: number) => string;
  /** A count in the person's language. */
  count: (value: number) => string;
  /** A duration in seconds, in the person's words. */
  duration: (seconds: number) => string;
}

export const ANALYSIS_COLUMNS = {
  funnel: ["step", "label", "visitors", "conversion", "step_conversion", "drop_off", "median_seconds"],
  sankey: ["from_step", "from_page", "to_step", "to_page", "visits"],
  heatmap: ["cohort", "cohort_visitors", "period", "visitors", "retention"],
} as const;
export type AnalysisChart = keyof typeof ANALYSIS_COLUMNS;

/** Which analysis a result answers, from its columns (null: an ordinary result). */
export function analysisOf(columns: readonly ResultColumn[]): AnalysisChart | null {
  const names = new Set(columns.map((column) => column.name));
  const found = (Object.keys(ANALYSIS_COLUMNS) as AnalysisChart[])
    .find((kind) => ANALYSIS_COLUMNS[kind].every((name) => names.has(name)));
  return found ?? null;
}

function reader(columns: readonly ResultColumn[]) {
  const index = new Map(columns.map((column, i) => [column.name, i]));
  return (row: Row, name: string): unknown => row[index.get(name) ?? -1];
}

const number = (value: unknown): number => (typeof value === "number" ? value : Number(value) || 0);
const nullableNumber = (value: unknown): number | null =>
  value === null || value === undefined || value === "" ? null : number(value);

/** Steps in order, each bar as wide as its visitors, labelled with its conversion from step 1. */
export function funnelOption(columns: readonly ResultColumn[], rows: readonly Row[], palette: readonly string[],
  texts: AnalysisTexts): ChartOption {
  const get = reader(columns);
  const data = [...rows].sort((a, b) => number(get(a, "step")) - number(get(b, "step"))).map((row) => {
    const visitors = number(get(row, "visitors"));
    const conversion = nullableNumber(get(row, "conversion"));
    const dropOff = nullableNumber(get(row, "drop_off"));
    const median = nullableNumber(get(row, "median_seconds"));
    const details = [`${texts.visitors}: ${texts.count(visitors)}`];
    if (dropOff !== null) details.push(`${texts.dropOff}: ${texts.count(dropOff)}`);
    if (median !== null) details.push(`${texts.medianTime}: ${texts.duration(median)}`);
    return {
      name: `${number(get(row, "step"))}. ${String(get(row, "label") ?? "")}`,
      value: visitors,
      label: { formatter: `{b}\n${texts.count(visitors)} · ${texts.percent(conversion ?? 0)}` },
      tooltip: { formatter: `{b}<br/>${details.join("<br/>")}` },
    };
  });
  return {
    color: [...palette],
    animation: false,
    tooltip: { trigger: "item" },
    series: [{ type: "funnel", sort: "none", left: "10%", width: "80%", minSize: "8%", gap: 2, data,
      label: { show: true, position: "inside" } }],
  };
}

/** Pages as nodes per step ("Step 1 · /pricing"), visits as links; the grouped rest is "other". */
export function sankeyOption(columns: readonly ResultColumn[], rows: readonly Row[], palette: readonly string[],
  texts: AnalysisTexts): ChartOption {
  const get = reader(columns);
  const node = (step: unknown, page: unknown) =>
    `${texts.step(number(step))} · ${page === null || page === undefined ? texts.other : String(page)}`;
  const names = new Set<string>();
  const links = rows.map((row) => {
    const source = node(get(row, "from_step"), get(row, "from_page"));
    const target = node(get(row, "to_step"), get(row, "to_page"));
    names.add(source);
    names.add(target);
    return { source, target, value: number(get(row, "visits")) };
  });
  return {
    color: [...palette],
    animation: false,
    tooltip: { trigger: "item" },
    series: [{ type: "sankey", data: [...names].map((name) => ({ name })), links, emphasis: { focus: "adjacency" },
      nodeAlign: "justify", left: 8, right: 160, top: 16, bottom: 16, label: { overflow: "truncate", width: 150 },
      lineStyle: { color: "gradient", opacity: 0.35 } }],
  };
}

/** Cohorts down, periods across, each cell the share of the cohort back in that period. */
export function heatmapOption(columns: readonly ResultColumn[], rows: readonly Row[], palette: readonly string[],
  texts: AnalysisTexts): ChartOption {
  const get = reader(columns);
  const cohorts = [...new Set(rows.map((row) => String(get(row, "cohort"))))].sort();
  const sizes = new Map(rows.map((row) => [String(get(row, "cohort")), number(get(row, "cohort_visitors"))]));
  const periods = Math.max(0, ...rows.map((row) => number(get(row, "period"))));
  const periodLabels = Array.from({ length: periods + 1 }, (_, n) => texts.period(n));
  const cohortLabels = cohorts.map((cohort) => `${cohort} (${texts.count(sizes.get(cohort) ?? 0)})`);
  const data = rows.map((row) => {
    const share = number(get(row, "retention"));
    return { value: [number(get(row, "period")), cohorts.indexOf(String(get(row, "cohort"))), share],
      label: { formatter: texts.percent(share) },
      tooltip: { formatter: `${cohortLabels[cohorts.indexOf(String(get(row, "cohort")))]}<br/>`
        + `${texts.period(number(get(row, "period")))}: ${texts.count(number(get(row, "visitors")))} · ${texts.percent(share)}` } };
  });
  const longest = cohortLabels.reduce((length, label) => Math.max(length, label.length), 0);
  return {
    animation: false,
    tooltip: { trigger: "item" },
    grid: { left: Math.min(longest * 7, 200) + 16, right: 16, top: 16, bottom: 72, outerBoundsMode: "none" },
    xAxis: { type: "category", data: periodLabels, splitArea: { show: true } },
    yAxis: { type: "category", data: cohortLabels, inverse: true, splitArea: { show: true } },
    visualMap: { min: 0, max: 1, calculable: false, orient: "horizontal", left: "center", bottom: 0, itemHeight: 120,
      inRange: { color: ["#f1f5f9", palette[0] ?? "#1d4ed8"] }, formatter: (value: number) => texts.percent(value) },
    series: [{ type: "heatmap", data, label: { show: cohorts.length * (periods + 1) <= 120 } }],
  };
}
