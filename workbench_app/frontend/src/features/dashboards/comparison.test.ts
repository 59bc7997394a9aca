import { describe, expect, it } from "vitest";
import type { Result } from "../results/types";
import type { SavedFilter } from "./dashboardDraft";
import { comparedFilters, comparisonOf, mergeResults, withComparison } from "./comparison";

const result = (columns: [string, string][], rows: unknown[][]): Result =>
  ({ columns: columns.map(([name, type]) => ({ name, type })), rows, row_count: rows.length, truncated: false, elapsed_ms: 1 }) as Result;
const filters = [
  { filter_id: 3, name: "Period", type: "date_range", links: [] },
  { filter_id: 7, name: "Segment", type: "segment", links: [] },
] as unknown as SavedFilter[];

describe("comparison", () => {
  it("lives in the address, for a segment filter or a date range", () => {
    expect(comparisonOf(new URLSearchParams("cmp.3=x&f.7=2"), filters)).toBeNull();
    const params = withComparison(new URLSearchParams("f.7=2"), filters, { filterId: 7, value: "5" });
    expect(params.toString()).toBe("f.7=2&cmp.7=5");
    expect(comparisonOf(params, filters)).toEqual({ filterId: 7, value: "5", type: "segment" });
    expect(withComparison(params, filters, null).toString()).toBe("f.7=2");
  });

  it("runs a card a second time only when it is linked to the compared filter", () => {
    expect(comparedFilters({ "3": "last-7-days", "7": "2" }, { filterId: 7, value: "" })).toEqual({ "3": "last-7-days", "7": "" });
    expect(comparedFilters({ "3": "last-7-days" }, { filterId: 7, value: "5" })).toBeNull();
  });

  it("draws each measure twice on the union of the x values", () => {
    const a = result([["day", "DATE"], ["visits", "BIGINT"]], [["2026-01-01", 3], ["2026-01-02", 4]]);
    const b = result([["day", "DATE"], ["visits", "BIGINT"]], [["2026-01-02", 1], ["2026-01-03", 2]]);
    const merged = mergeResults(a, b, { kind: "line", x: "day", y: ["visits"] }, ["A", "B"]);
    expect(merged.kind).toBe("one");
    if (merged.kind !== "one") return;
    expect(merged.spec.y).toEqual(["visits · A", "visits · B"]);
    expect(merged.result.rows).toEqual([["2026-01-01", 3, null], ["2026-01-02", 4, 1], ["2026-01-03", null, 2]]);
  });

  it("makes two numbers a bar of two, and leaves a table to be drawn twice", () => {
    const a = result([["visits", "BIGINT"], ["previous_period", "BIGINT"]], [[10, 8]]);
    const b = result([["visits", "BIGINT"], ["previous_period", "BIGINT"]], [[4, 5]]);
    const merged = mergeResults(a, b, { kind: "change", y: ["visits", "previous_period"] }, ["All", "Direct"]);
    expect(merged.kind === "one" && merged.result.rows).toEqual([["All", 10], ["Direct", 4]]);
    expect(mergeResults(a, b, { kind: "table", y: [] }, ["A", "B"]).kind).toBe("two");
  });
});

describe("period against period", () => {
  const periods = [{ filter_id: 3, name: "Period", type: "date_range", links: [] }] as unknown as SavedFilter[];

  it("asks the server for the period just before the chosen one", () => {
    const comparison = comparisonOf(new URLSearchParams("cmp.3=previous"), periods);
    expect(comparison).toEqual({ filterId: 3, value: "previous", type: "date_range" });
    expect(comparedFilters({ "3": "last-30-days" }, comparison)).toEqual({ "3": "previous:last-30-days" });
    expect(comparedFilters({ "3": "" }, comparison)).toBeNull();
    expect(comparisonOf(new URLSearchParams("cmp.3=5"), periods)).toBeNull();
  });

  it("draws the previous period's days on this period's", () => {
    const a = result([["day", "DATE"], ["visits", "BIGINT"]], [["2026-01-03", 3], ["2026-01-04", 4]]);
    const b = result([["day", "DATE"], ["visits", "BIGINT"]], [["2026-01-01", 1], ["2026-01-02", 2]]);
    const merged = mergeResults(a, b, { kind: "line", x: "day", y: ["visits"] }, ["This", "Before"], true);
    expect(merged.kind === "one" && merged.result.rows).toEqual([["2026-01-03", 3, 1], ["2026-01-04", 4, 2]]);
  });
});
