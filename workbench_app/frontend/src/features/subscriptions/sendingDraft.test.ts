import { describe, expect, it } from "vitest";
import { describeSchedule, newSendingDraft, parseRecipients, sendingBody } from "./sendingDraft";

describe("a subscription's form", () => {
  it("reads addresses one a line or separated by commas, each once", () => {
    expect(parseRecipients("ana@example.org, bo@example.org\n\nANA@example.org;cy@example.org ")).toEqual([
      "ana@example.org", "bo@example.org", "cy@example.org"]);
  });

  it("sends the day of the week only for a weekly schedule, the date only for a monthly one", () => {
    const draft = { ...newSendingDraft("me@example.org"), timezone: "Europe/Paris", hour: "7" };
    expect(sendingBody({ ...draft, every: "week", weekday: "2" }, true).schedule).toEqual({
      every: "week", hour: 7, minute: 0, timezone: "Europe/Paris", weekday: 2 });
    expect(sendingBody({ ...draft, every: "month", day: "31" }, false).schedule).toEqual({
      every: "month", hour: 7, minute: 0, timezone: "Europe/Paris", day: 31 });
    expect(sendingBody(draft, true)).toMatchObject({ channel: "email", recipients: [{ email: "me@example.org" }] });
    expect(sendingBody(draft, false)).not.toHaveProperty("channel");
  });

  it("sends a webhook's address and body format, and no recipients", () => {
    const draft = { ...newSendingDraft("me@example.org"), channel: "webhook" as const, webhook_url: " https://h.example/x ",
      webhook_format: "slack" as const };
    const body = sendingBody(draft, true);
    expect(body).toMatchObject({ channel: "webhook", webhook_url: "https://h.example/x", webhook_format: "slack" });
    expect(body).not.toHaveProperty("recipients");
  });

  it("says a schedule in words", () => {
    const t = (key: string, values?: Record<string, unknown>) => `${key} ${JSON.stringify(values ?? {})}`;
    expect(describeSchedule(t, { every: "day", hour: 8, minute: 5, timezone: "UTC", weekday: null, day: null }))
      .toBe('subscriptions.schedule.daily {"time":"08:05","zone":"UTC"}');
  });
});
