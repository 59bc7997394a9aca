import { describe, expect, it } from "vitest";
import { toAttributes, toRows } from "./attributes";

describe("attribute rows", () => {
  it("round-trips names and values, numbers and booleans typed", () => {
    expect(toAttributes(toRows({ region: "north", customer_id: 42, vip: true })))
      .toEqual({ region: "north", customer_id: 42, vip: true });
  });
  it("drops rows without a name and keeps text as typed", () => {
    expect(toAttributes([{ name: " ", value: "x" }, { name: "team", value: " Sales " }])).toEqual({ team: " Sales " });
  });
  it("shows a list as comma-separated values", () => {
    expect(toRows({ regions: ["north", "south"] })).toEqual([{ name: "regions", value: "north, south" }]);
  });
});
