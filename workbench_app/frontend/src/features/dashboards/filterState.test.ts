import { describe, expect, it } from "vitest";
import type { SavedFilter } from "./dashboardDraft";
import { cardFilters, filterValues, minutesSince, rangeDays, refreshMinutes, withFilter } from "./filterState";

const link = (card_id: number, variable: string | null, column: string | null = null) =>
  ({ card_id, variable, end_variable: null, column });
const channel: SavedFilter = { filter_id: 5, name: "Channel", type: "text", default_value: "Direct", required: false,
  values: null, links: [link(10, "channel")] };
const since: SavedFilter = { filter_id: 6, name: "Since", type: "date", default_value: null, required: false,
  values: null, links: [link(11, "since")] };
const countries: SavedFilter = { filter_id: 7, name: "Country", type: "one_of", default_value: ["FR"], required: false,
  values: { table: "warehouse.analytics.visits", column: "country" }, links: [link(10, null, "country")] };

describe("filters in the URL", () => {
  it("reads values from the URL, else the defaults; an empty value in the URL clears a default", () => {
    expect(filterValues(new URLSearchParams(""), [channel, since])).toEqual({ 5: "Direct", 6: "" });
    expect(filterValues(new URLSearchParams("f.5=Organic+Search&f.6=-7d"), [channel, since])).toEqual({ 5: "Organic Search", 6: "-7d" });
    expect(filterValues(new URLSearchParams("f.5="), [channel])).toEqual({ 5: "" });
  });

  it("writes a value to the URL, and leaves it out when it is the default", () => {
    const params = new URLSearchParams("tab=t1");
    expect(withFilter(params, channel, "Referral").toString()).toBe("tab=t1&f.5=Referral");
    expect(withFilter(new URLSearchParams("f.5=Referral"), channel, "Direct").toString()).toBe("");
  });

  it("sends each card only the filters linked to it", () => {
    expect(cardFilters(10, [channel, since], { 5: "Direct", 6: "today" })).toEqual({ 5: "Direct" });
    expect(cardFilters(11, [channel, since], { 5: "Direct", 6: "today" })).toEqual({ 6: "today" });
  });

  it("keeps a one-of list as one parameter per value, and a cleared list as one empty parameter", () => {
    expect(filterValues(new URLSearchParams(""), [countries])).toEqual({ 7: '["FR"]' });
    expect(filterValues(new URLSearchParams("f.7=ES&f.7=IT"), [countries])).toEqual({ 7: '["ES","IT"]' });
    expect(filterValues(new URLSearchParams("f.7="), [countries])).toEqual({ 7: "" });
    expect(withFilter(new URLSearchParams(""), countries, '["ES","IT"]').toString()).toBe("f.7=ES&f.7=IT");
    expect(withFilter(new URLSearchParams("f.7=ES"), countries, "").toString()).toBe("f.7=");
    expect(withFilter(new URLSearchParams("f.7=ES"), countries, '["FR"]').toString()).toBe("");
    expect(cardFilters(10, [countries], { 7: '["ES","IT"]' })).toEqual({ 7: ["ES", "IT"] });
  });

  it("reads a custom range's days", () => {
    expect(rangeDays("2026-01-01..2026-01-31")).toEqual(["2026-01-01", "2026-01-31"]);
    expect(rangeDays("last-7-days")).toEqual(["", ""]);
  });

  it("takes a refresh interval among the choices, else the dashboard's", () => {
    expect(refreshMinutes(new URLSearchParams("refresh=5"), null)).toBe(5);
    expect(refreshMinutes(new URLSearchParams("refresh=7"), null)).toBe(0);
    expect(refreshMinutes(new URLSearchParams(""), 900)).toBe(15);
  });

  it("counts whole minutes since an answer", () => {
    expect(minutesSince(0, 59_999)).toBe(0);
    expect(minutesSince(0, 180_000)).toBe(3);
    expect(minutesSince(1000, 0)).toBe(0);
  });
});
