import { describe, expect, it } from "vitest";
import { emptyState, fromDefinition, moveStep, toDefinition, type AnalysisState } from "./analysisDefinition";

const funnel: AnalysisState = {
  ...emptyState("funnel"),
  steps: [{ kind: "page", value: "/pricing*", propertyKey: "", propertyValue: "" },
    { kind: "event", value: "signup", propertyKey: "plan", propertyValue: "pro" }],
};

describe("analysis definitions", () => {
  it("sends nothing while a step is empty", () => {
    expect(toDefinition(emptyState("funnel"))).toBeNull();
    expect(toDefinition({ ...emptyState("path"), page: "" })).toBeNull();
    expect(toDefinition({ ...emptyState("retention"), range: "custom", from: "2026-01-01", to: "" })).toBeNull();
  });

  it("builds a funnel with its window, steps and property conditions", () => {
    expect(toDefinition({ ...funnel, site: "abc" })).toEqual({
      kind: "funnel", site_id: "abc", date_range: { last: 30, unit: "day" },
      steps: [{ page: "/pricing*" }, { event: "signup", properties: [{ key: "plan", value: "pro" }] }],
      window: { amount: 1, unit: "day" },
    });
  });

  it("moves steps up and down within bounds", () => {
    const moved = moveStep(funnel.steps, 1, -1);
    expect(moved.map((step) => step.value)).toEqual(["signup", "/pricing*"]);
    expect(moveStep(funnel.steps, 0, -1)).toBe(funnel.steps);
  });

  it("builds paths from the entry pages without steps before", () => {
    expect(toDefinition({ ...emptyState("path"), pathStart: "entry", stepsBefore: 2 })).toEqual({
      kind: "path", date_range: { last: 30, unit: "day" }, start: "entry", steps_before: 0, steps_after: 3, branches: 5 });
  });

  it("narrows to a saved segment by its id", () => {
    expect(toDefinition({ ...funnel, segment: "12" })).toMatchObject({ kind: "funnel", segment_id: 12 });
    expect(toDefinition(funnel)).not.toHaveProperty("segment_id");
  });

  it("reads a saved definition back into the same definition", () => {
    const definitions = [
      toDefinition(funnel),
      toDefinition({ ...emptyState("path"), page: "/shoes", range: "custom", from: "2026-01-01", to: "2026-01-31" }),
      toDefinition({ ...emptyState("retention"), period: "month", periods: 6, cohortEvent: "signup", range: "last6months" }),
      toDefinition({ ...funnel, segment: "12" }),
    ];
    for (const definition of definitions) expect(toDefinition(fromDefinition(definition!))).toEqual(definition);
  });
});
