import { describe, expect, it } from "vitest";
import { analysisOf, funnelOption, heatmapOption, sankeyOption, type AnalysisTexts } from "./analysisCharts";
import { defaultSpec } from "./chartSpec";

const texts: AnalysisTexts = {
  other: "other", step: (n) => `Step ${n}`, period: (n) => `Week ${n}`, visitors: "Visitors", dropOff: "Drop-off",
  medianTime: "Median time", percent: (share) => `${Math.round(share * 100)} %`, count: (value) => String(value),
  duration: (seconds) => `${seconds} s`,
};
const columns = (names: string[]) => names.map((name) => ({ name, type: name.endsWith("page") || name === "label" ? "VARCHAR" : "BIGINT" }));
type Series = Record<string, unknown> & { data: Record<string, unknown>[] };
const series = (option: Record<string, unknown>) => (option.series as Series[])[0]!;

describe("analysis charts", () => {
  const funnelColumns = columns(["step", "label", "visitors", "conversion", "step_conversion", "drop_off", "median_seconds"]);
  const funnelRows = [[2, "Signed up", 3, 3 / 7, 3 / 7, 4, 600], [1, "/pricing*", 7, 1, null, null, null], [3, "/welcome", 2, 2 / 7, 2 / 3, 1, 1050]];

  it("recognises the analyses' answers and picks their chart", () => {
    expect(analysisOf(funnelColumns)).toBe("funnel");
    expect(defaultSpec(funnelColumns, 3)).toMatchObject({ kind: "funnel", x: "label", y: ["visitors"] });
    const paths = columns(["from_step", "from_page", "to_step", "to_page", "visits"]);
    expect(defaultSpec(paths, 4).kind).toBe("sankey");
    const retention = columns(["cohort", "cohort_visitors", "period", "visitors", "retention"]);
    expect(defaultSpec(retention, 4).kind).toBe("heatmap");
    expect(analysisOf(columns(["day", "views"]))).toBeNull();
  });

  it("draws funnel steps in order with conversion, drop-off and median time", () => {
    const option = funnelOption(funnelColumns, funnelRows, ["#123456"], texts);
    const steps = series(option);
    expect(steps.sort).toBe("none");
    expect(steps.data.map((d) => d.name)).toEqual(["1. /pricing*", "2. Signed up", "3. /welcome"]);
    expect(steps.data.map((d) => d.value)).toEqual([7, 3, 2]);
    expect(JSON.stringify(steps.data[1])).toContain("3 · 43 %");
    expect(JSON.stringify(steps.data[1])).toContain("Drop-off: 4");
    expect(JSON.stringify(steps.data[2])).toContain("Median time: 1050 s");
  });

  it("names path nodes by step and groups the rest as other", () => {
    const option = sankeyOption(columns(["from_step", "from_page", "to_step", "to_page", "visits"]), [
      [-1, "/", 0, "/pricing", 2], [0, "/pricing", 1, "/signup", 2], [0, "/pricing", 1, null, 1]], [], texts);
    const paths = series(option);
    expect(paths.type).toBe("sankey");
    expect(paths.data.map((d) => d.name)).toEqual(["Step -1 · /", "Step 0 · /pricing", "Step 1 · /signup", "Step 1 · other"]);
    expect(paths.links).toEqual([
      { source: "Step -1 · /", target: "Step 0 · /pricing", value: 2 },
      { source: "Step 0 · /pricing", target: "Step 1 · /signup", value: 2 },
      { source: "Step 0 · /pricing", target: "Step 1 · other", value: 1 }]);
  });

  it("maps cohorts by period with the share of each cohort back", () => {
    const option = heatmapOption(columns(["cohort", "cohort_visitors", "period", "visitors", "retention"]), [
      ["2026-01-05", 3, 0, 3, 1], ["2026-01-05", 3, 1, 1, 1 / 3], ["2026-01-12", 2, 0, 2, 1]], ["#1d4ed8"], texts);
    expect((option.xAxis as { data: string[] }).data).toEqual(["Week 0", "Week 1"]);
    expect((option.yAxis as { data: string[] }).data).toEqual(["2026-01-05 (3)", "2026-01-12 (2)"]);
    const cells = series(option);
    expect(cells.type).toBe("heatmap");
    expect(cells.data.map((d) => d.value)).toEqual([[0, 0, 1], [1, 0, 1 / 3], [0, 1, 1]]);
    expect(JSON.stringify(cells.data[1])).toContain("33 %");
  });
});
