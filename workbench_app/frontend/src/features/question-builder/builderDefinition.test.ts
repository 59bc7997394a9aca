import { describe, expect, it } from "vitest";
import { emptyState, kindOf, operatorsFor, sortOptions, toDefinition, type BuilderState } from "./builderDefinition";

const table = { catalog: "warehouse", schema: "analytics", table: "visits" };
const kinds = { country: "text", pages: "number", started_at: "temporal", "join.channel": "text" } as const;

function state(change: Partial<BuilderState>): BuilderState {
  return { ...emptyState(), table, ...change };
}

const filter = (column: string, operator: BuilderState["filters"][number]["operator"], value = "", value2 = "") => ({
  column: { source: column.startsWith("join.") ? "join" as const : "base" as const, name: column.replace(/^join\./, "") },
  operator, value, value2, relative: { last: 30, unit: "day" as const },
});

describe("toDefinition", () => {
  it("is null until a table is picked", () => {
    expect(toDefinition(emptyState(), kinds)).toBeNull();
  });

  it("types values and leaves unfinished rows out", () => {
    const definition = toDefinition(state({ filters: [
      filter("pages", ">", " 3 "), filter("country", "in", "FR, DE,"), filter("pages", "between", "1", ""),
      filter("country", "=", ""), filter("started_at", "relative"), filter("country", "is empty"),
    ] }), kinds);
    expect(definition?.filters).toEqual([
      { column: "pages", operator: ">", value: 3 },
      { column: "country", operator: "in", value: ["FR", "DE"] },
      { column: "started_at", operator: "relative", value: { last: 30, unit: "day" } },
      { column: "country", operator: "is empty" },
    ]);
    expect(definition?.limit).toBe(1000);
  });

  it("summarizes by columns and time buckets", () => {
    const definition = toDefinition(state({
      aggregations: [{ fn: "count", column: null }, { fn: "sum", column: { source: "base", name: "pages" } }, { fn: "avg", column: null }],
      breakouts: [{ column: { source: "base", name: "started_at" }, bucket: "month" }, { column: { source: "base", name: "country" }, bucket: null }],
      sort: { key: "alias:count", direction: "desc" },
    }), kinds);
    expect(definition).toMatchObject({
      aggregations: [{ function: "count" }, { function: "sum", column: "pages" }],
      breakouts: [{ column: "started_at", bucket: "month" }, { column: "country" }],
      order_by: [{ alias: "count", direction: "desc" }],
    });
  });

  it("sorts by the result's names when summarized, else by any column", () => {
    const summarized = state({
      aggregations: [{ fn: "count", column: null }, { fn: "sum", column: { source: "join", name: "pages" } }],
      breakouts: [{ column: { source: "base", name: "started_at" }, bucket: "month" }, { column: { source: "base", name: "country" }, bucket: null }],
    });
    expect(sortOptions(summarized, true).map((o) => [o.label, o.orderBy])).toEqual([
      ["started_at_month", { alias: "started_at_month" }], ["country", { column: "country" }],
      ["count", { alias: "count" }], ["sum_join_pages", { alias: "sum_join_pages" }],
    ]);
    expect(sortOptions(state({}), false, ["country"]).map((o) => o.orderBy)).toEqual([{ column: "country" }]);
    const plain = toDefinition(state({ sort: { key: "column:country", direction: "asc" } }), kinds);
    expect(plain?.order_by).toEqual([{ column: "country", direction: "asc" }]);
  });

  it("joins one more table only once its columns are paired, and names its columns", () => {
    const joinTable = { catalog: "warehouse", schema: "analytics", table: "traffic_sources" };
    const pending = toDefinition(state({ join: { table: joinTable, kind: "left", on: [{ left: "source_id", right: "" }] },
      filters: [filter("join.channel", "=", "Email")] }), kinds);
    expect(pending?.join).toBeUndefined();
    expect(pending?.filters).toBeUndefined();
    const joined = toDefinition(state({ join: { table: joinTable, kind: "left", on: [{ left: "source_id", right: "source_id" }] },
      filters: [filter("join.channel", "=", "Email")] }), kinds);
    expect(joined?.join).toEqual({ table: joinTable, kind: "left", on: [{ left: "source_id", right: "source_id" }] });
    expect(joined?.filters).toEqual([{ column: "channel", from: "join", operator: "=", value: "Email" }]);
  });
});

describe("column kinds", () => {
  it("offer the operators of their type", () => {
    expect(kindOf("DECIMAL(10,2)")).toBe("number");
    expect(kindOf("TIMESTAMP WITH TIME ZONE")).toBe("temporal");
    expect(kindOf("VARCHAR")).toBe("text");
    expect(operatorsFor("temporal")[0]).toBe("relative");
    expect(operatorsFor("text")).toContain("contains");
    expect(operatorsFor("number")).toContain("between");
  });
});
