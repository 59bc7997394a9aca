import { describe, expect, it } from "vitest";
import { findVariables, parseVariableValue } from "./variables";

describe("findVariables", () => {
  it("finds each variable once, in order", () => {
    expect(findVariables("select * from t where a = {{a}} and b = {{ b }} or a = {{a}}")).toEqual([
      { name: "a", optional: false },
      { name: "b", optional: false },
    ]);
  });

  it("ignores strings, quoted identifiers and comments", () => {
    const sql = `select '{{x}}', "{{y}}" -- {{z}}\n/* {{w}} */ from t where v = {{v}} and s = 'it''s {{q}}'`;
    expect(findVariables(sql).map((v) => v.name)).toEqual(["v"]);
  });

  it("marks variables inside optional clauses", () => {
    expect(findVariables("select 1 where true [[and c = {{country}}]] and d = {{day}}")).toEqual([
      { name: "country", optional: true },
      { name: "day", optional: false },
    ]);
  });

  it("leaves list literals alone", () => {
    expect(findVariables("select [[1, 2], [3]] as nested, {{n}}")).toEqual([{ name: "n", optional: false }]);
  });

  it("skips names that are not identifiers", () => {
    expect(findVariables("select {{user.region}}, {{1x}}, {{ok_1}}")).toEqual([{ name: "ok_1", optional: false }]);
  });
});

describe("parseVariableValue", () => {
  it("types the values", () => {
    expect(parseVariableValue("number", " 12.5 ")).toEqual({ ok: true, value: 12.5 });
    expect(parseVariableValue("number", "12,5")).toEqual({ ok: false, reason: "number" });
    expect(parseVariableValue("date", "2026-11-25")).toEqual({ ok: true, value: "2026-11-25" });
    expect(parseVariableValue("date", "25/11/2026")).toEqual({ ok: false, reason: "date" });
    expect(parseVariableValue("list", "FR, DE ,")).toEqual({ ok: true, value: ["FR", "DE"] });
    expect(parseVariableValue("list", "1, 2")).toEqual({ ok: true, value: [1, 2] });
    expect(parseVariableValue("list", " , ")).toEqual({ ok: false, reason: "list" });
    expect(parseVariableValue("text", "  keep spaces ")).toEqual({ ok: true, value: "  keep spaces " });
  });

  it("treats empty text as no value", () => {
    expect(parseVariableValue("number", "   ")).toEqual({ ok: true, value: null });
  });
});
