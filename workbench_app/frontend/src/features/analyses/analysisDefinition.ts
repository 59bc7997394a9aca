// The analysis screen's state and the definition the server takes (workbench_app/analyses/shapes.py):
// pure, so the steps' editing and the definition are unit-tested without a browser.
import type { components } from "../../api/schema";

type Schemas = components["schemas"];

export const ANALYSIS_KINDS = ["funnel", "path", "retention"] as const;
export type AnalysisKind = (typeof ANALYSIS_KINDS)[number];
export const RANGES = ["last7", "last30", "last90", "last12weeks", "last6months", "custom"] as const;
export type RangeChoice = (typeof RANGES)[number];
export const WINDOW_UNITS = ["minute", "hour", "day"] as const;
export const MAX_STEPS = 10;

export interface StepState {
  kind: "page" | "event";
  value: string;
  propertyKey: string;
  propertyValue: string;
}

export interface AnalysisState {
  kind: AnalysisKind;
  site: string;
  /** A saved segment's id ("" for every visit). */
  segment: string;
  range: RangeChoice;
  from: string;
  to: string;
  steps: StepState[];
  windowAmount: number;
  windowUnit: (typeof WINDOW_UNITS)[number];
  pathStart: "page" | "entry";
  page: string;
  stepsBefore: number;
  stepsAfter: number;
  branches: number;
  period: "week" | "month";
  periods: number;
  cohortEvent: string;
}

/** A funnel, path or retention definition, as the API's document declares it. */
export type Definition = Schemas["AnalysisDefinition"];

const RELATIVE: Record<Exclude<RangeChoice, "custom">, { last: number; unit: "day" | "week" | "month" }> = {
  last7: { last: 7, unit: "day" }, last30: { last: 30, unit: "day" }, last90: { last: 90, unit: "day" },
  last12weeks: { last: 12, unit: "week" }, last6months: { last: 6, unit: "month" },
};

export const emptyStep = (kind: StepState["kind"] = "page"): StepState => ({ kind, value: "", propertyKey: "", propertyValue: "" });

export function emptyState(kind: AnalysisKind = "funnel"): AnalysisState {
  return {
    kind, site: "", segment: "", range: "last30", from: "", to: "", steps: [emptyStep(), emptyStep()], windowAmount: 1,
    windowUnit: "day", pathStart: "page", page: "", stepsBefore: 1, stepsAfter: 3, branches: 5, period: "week",
    periods: 8, cohortEvent: "",
  };
}

/** A step moved by `by` places (-1 up, +1 down); out of bounds, nothing moves. */
export function moveStep(steps: StepState[], index: number, by: number): StepState[] {
  const target = index + by;
  if (target < 0 || target >= steps.length) return steps;
  const moved = [...steps];
  [moved[index], moved[target]] = [moved[target]!, moved[index]!];
  return moved;
}

function dateRange(state: AnalysisState): Schemas["DateRange"] | null {
  if (state.range !== "custom") return { ...RELATIVE[state.range] };
  return state.from && state.to ? { from: state.from, to: state.to } : null;
}

/** The definition to run, or null while a required part is empty (nothing is sent then). */
export function toDefinition(state: AnalysisState): Definition | null {
  const date_range = dateRange(state);
  if (!date_range) return null;
  const base = { date_range, ...(state.site ? { site_id: state.site } : {}),
    ...(state.segment ? { segment_id: Number(state.segment) } : {}) };
  if (state.kind === "funnel") {
    if (state.steps.length < 2 || state.steps.some((step) => !step.value.trim())) return null;
    const steps = state.steps.map((step): Schemas["FunnelStep"] => step.kind === "page"
      ? { page: step.value.trim() }
      : { event: step.value.trim(),
          ...(step.propertyKey.trim() ? { properties: [{ key: step.propertyKey.trim(), value: step.propertyValue }] } : {}) });
    return { kind: "funnel", ...base, steps, window: { amount: state.windowAmount, unit: state.windowUnit } };
  }
  if (state.kind === "path") {
    if (state.pathStart === "page" && !state.page.trim()) return null;
    return { kind: "path", ...base, start: state.pathStart, ...(state.pathStart === "page" ? { page: state.page.trim() } : {}),
      steps_before: state.pathStart === "entry" ? 0 : state.stepsBefore, steps_after: state.stepsAfter,
      branches: state.branches };
  }
  return { kind: "retention", ...base, period: state.period, periods: state.periods,
    ...(state.cohortEvent.trim() ? { cohort_event: { event: state.cohortEvent.trim() } } : {}) };
}

/** The screen's state of a saved definition (a saved analysis opened again). */
export function fromDefinition(saved: Definition): AnalysisState {
  const state = emptyState(saved.kind);
  const range = saved.date_range;
  const preset = (Object.keys(RELATIVE) as (keyof typeof RELATIVE)[])
    .find((key) => RELATIVE[key].last === range.last && RELATIVE[key].unit === range.unit);
  Object.assign(state, {
    site: saved.site_id ?? "", segment: saved.segment_id ? String(saved.segment_id) : "", range: preset ?? (range.from ? "custom" : "last30"), from: range.from ?? "", to: range.to ?? "",
  });
  if (saved.kind === "funnel") {
    state.steps = saved.steps.map((step) => ({
      kind: step.page != null ? "page" : "event", value: step.page ?? step.event ?? "",
      propertyKey: step.properties?.[0]?.key ?? "", propertyValue: step.properties?.[0]?.value ?? "" }));
    state.windowAmount = saved.window.amount;
    state.windowUnit = saved.window.unit;
  }
  if (saved.kind === "path") {
    Object.assign(state, { pathStart: saved.start ?? "page", page: saved.page ?? "",
      stepsBefore: saved.steps_before ?? 0, stepsAfter: saved.steps_after ?? 3, branches: saved.branches ?? 5 });
  }
  if (saved.kind === "retention") {
    Object.assign(state, { period: saved.period ?? "week", periods: saved.periods ?? 8,
      cohortEvent: saved.cohort_event?.event ?? "" });
  }
  return state;
}
