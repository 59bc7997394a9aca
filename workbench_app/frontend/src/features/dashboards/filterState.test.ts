import { describe, expect, it } from "vitest";
import type { SavedFilter } from "./dashboardDraft";
import { cardFilters, filterValues, minutesSince, refreshMinutes, withFilter } from "./filterState";

const channel: SavedFilter = { filter_id: 5, name: "Channel", type: "text", default_value: "Direct", required: false,
  links: [{ card_id: 10, variable: "channel" }] };
const since: SavedFilter = { filter_id: 6, name: "Since", type: "date", default_value: null, required: false,
  links: [{ card_id: 11, variable: "since" }] };

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
