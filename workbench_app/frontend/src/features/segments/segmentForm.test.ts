import { describe as group, expect, it } from "vitest";
import { emptyForm, fromSegment, toConditions } from "./segmentForm";

group("segment form", () => {
  it("leaves empty conditions out and keeps the chosen values", () => {
    expect(toConditions({ ...emptyForm(), channels: ["Direct", "Organic Search"], countries: [], goal: " Signup " }))
      .toEqual({ channels: ["Direct", "Organic Search"], goal: "Signup" });
  });

  it("reads a saved segment's lists back as lists", () => {
    const form = fromSegment({ name: "n", description: "", conditions: { countries: ["FR", "DE"] } });
    expect(form.countries).toEqual(["FR", "DE"]);
    expect(toConditions(form)).toEqual({ countries: ["FR", "DE"] });
  });

  it("keeps an event's property and reads a saved segment back", () => {
    const conditions = toConditions({ ...emptyForm(), event: "download", propertyKey: "file", propertyValue: "a.pdf" });
    expect(conditions).toEqual({ event: { event: "download", properties: [{ key: "file", operator: "=", value: "a.pdf" }] } });
    const form = fromSegment({ name: "n", description: "", conditions });
    expect(toConditions(form)).toEqual(conditions);
    expect(form.propertyKey).toBe("file");
  });
});
