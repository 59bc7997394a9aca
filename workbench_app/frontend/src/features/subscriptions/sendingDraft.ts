// What a subscription and an alert share in their forms: a name, a schedule (daily, weekly on a
// day, monthly on a date, at an hour in a time zone) and where it goes (e-mail addresses, or a
// webhook with a JSON or a Slack body). The form keeps text; the request is built from it here.
import type { components } from "../../api/schema";

export type Subscription = components["schemas"]["Subscription"];
export type Alert = components["schemas"]["Alert"];
export type Sending = Subscription | Alert;
export type Schedule = components["schemas"]["ScheduleAnswer"];
export type Every = Schedule["every"];
export type Channel = Subscription["channel"];
export type WebhookFormat = Subscription["webhook_format"];

export interface SendingDraft {
  name: string;
  every: Every;
  hour: string;
  minute: string;
  weekday: string; // 0 Monday .. 6 Sunday
  day: string; // 1..31
  timezone: string;
  channel: Channel;
  recipients: string; // addresses, one a line (or separated by commas)
  webhook_url: string;
  webhook_format: WebhookFormat;
}

/** The browser's own time zone, as the schedule's default. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** The time zones a schedule may name (the browser's list, with UTC and `current` surely in it). */
export function timeZones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return [...new Set(["UTC", current, ...known])].sort();
}

export function newSendingDraft(ownEmail: string): SendingDraft {
  return {
    name: "", every: "day", hour: "8", minute: "0", weekday: "0", day: "1", timezone: browserTimeZone(),
    channel: "email", recipients: ownEmail, webhook_url: "", webhook_format: "json",
  };
}

export function sendingDraftOf(item: Sending): SendingDraft {
  return {
    name: item.name, every: item.schedule.every, hour: String(item.schedule.hour), minute: String(item.schedule.minute),
    weekday: String(item.schedule.weekday ?? 0), day: String(item.schedule.day ?? 1), timezone: item.schedule.timezone,
    channel: item.channel, recipients: item.recipients.map((recipient) => recipient.email).join("\n"),
    webhook_url: item.webhook_url ?? "", webhook_format: item.webhook_format,
  };
}

/** The addresses typed, each once, in their order. */
export function parseRecipients(text: string): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  for (const part of text.split(/[\s,;]+/)) {
    const address = part.trim();
    if (address && !seen.has(address.toLowerCase())) {
      seen.add(address.toLowerCase());
      found.push(address);
    }
  }
  return found;
}

/** The request's fields for the schedule and the destination (`creating`: the channel too). */
export function sendingBody(draft: SendingDraft, creating: boolean) {
  const schedule = {
    every: draft.every, hour: Number(draft.hour), minute: Number(draft.minute), timezone: draft.timezone,
    ...(draft.every === "week" ? { weekday: Number(draft.weekday) } : {}),
    ...(draft.every === "month" ? { day: Number(draft.day) } : {}),
  };
  const destination = draft.channel === "webhook"
    ? { webhook_url: draft.webhook_url.trim(), webhook_format: draft.webhook_format }
    : { recipients: parseRecipients(draft.recipients).map((email) => ({ email })) };
  return { name: draft.name.trim(), schedule, ...destination, ...(creating ? { channel: draft.channel } : {}) };
}

const pad = (value: number) => String(value).padStart(2, "0");

/** "Every day at 08:00 (Europe/Paris)", in the interface's language. */
export function describeSchedule(t: (key: string, values?: Record<string, unknown>) => string, schedule: Schedule): string {
  const time = `${pad(schedule.hour)}:${pad(schedule.minute)}`;
  if (schedule.every === "week") {
    return t("subscriptions.schedule.weekly", { day: t(`subscriptions.weekday.${schedule.weekday ?? 0}`), time, zone: schedule.timezone });
  }
  if (schedule.every === "month") return t("subscriptions.schedule.monthly", { day: schedule.day, time, zone: schedule.timezone });
  return t("subscriptions.schedule.daily", { time, zone: schedule.timezone });
}
