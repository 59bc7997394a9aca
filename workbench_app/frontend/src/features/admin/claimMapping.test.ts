import { describe, expect, it } from "vitest";
import { parseLines, toLines } from "./claimMapping";

describe("claim mappings", () => {
  it("read one name = target per line, spaces and blank lines ignored", () => {
    expect(parseLines("region = region\n\n  cust_id=customer_id ")).toEqual({
      mapping: { region: "region", cust_id: "customer_id" }, badLines: [] });
  });

  it("keep an equals sign inside the target (a group name may hold one)", () => {
    expect(parseLines("team = A = B").mapping).toEqual({ team: "A = B" });
  });

  it("report the lines without a name or a target", () => {
    expect(parseLines("region\n = x\ny = \nok = fine").badLines).toEqual([1, 2, 3]);
  });

  it("write what they read", () => {
    const mapping = { "fin-team": "Finance", analysts: "Analysts" };
    expect(parseLines(toLines(mapping)).mapping).toEqual(mapping);
  });
});
