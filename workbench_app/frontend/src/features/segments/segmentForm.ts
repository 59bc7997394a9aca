// A segment's conditions as the editor holds them (texts, and lists of values chosen one at a time)
// and as the API takes them (`SegmentConditions`): a condition left empty is left out.
import type { components } from "../../api/schema";

export type Conditions = components["schemas"]["SegmentConditions"];

export interface SegmentForm {
  name: string;
  description: string;
  channels: string[];
  countries: string[];
  devices: string[];
  landingPage: string;
  goal: string;
  event: string;
  propertyKey: string;
  propertyValue: string;
}

export const emptyForm = (): SegmentForm => ({
  name: "", description: "", channels: [], countries: [], devices: [], landingPage: "", goal: "", event: "",
  propertyKey: "", propertyValue: "",
});

/** The most values of one list (channels, countries or devices): the API's MAX_SEGMENT_VALUES. */
export const MAX_VALUES = 100;

const list = (values: string[]) => values.map((value) => value.trim()).filter(Boolean);

export function toConditions(form: SegmentForm): Conditions {
  const conditions: Conditions = {};
  if (list(form.channels).length) conditions.channels = list(form.channels);
  if (list(form.countries).length) conditions.countries = list(form.countries);
  if (list(form.devices).length) conditions.devices = list(form.devices);
  if (form.landingPage.trim()) conditions.landing_page = form.landingPage.trim();
  if (form.goal.trim()) conditions.goal = form.goal.trim();
  if (form.event.trim()) {
    conditions.event = {
      event: form.event.trim(),
      properties: form.propertyKey.trim() ? [{ key: form.propertyKey.trim(), operator: "=", value: form.propertyValue }] : [],
    };
  }
  return conditions;
}

export function fromSegment(segment: { name: string; description: string; conditions: Conditions }): SegmentForm {
  const c = segment.conditions;
  const property = c.event?.properties?.[0];
  return {
    name: segment.name, description: segment.description,
    channels: [...(c.channels ?? [])], countries: [...(c.countries ?? [])], devices: [...(c.devices ?? [])],
    landingPage: c.landing_page ?? "", goal: c.goal ?? "", event: c.event?.event ?? "",
    propertyKey: property?.key ?? "", propertyValue: property?.value ?? "",
  };
}

/** The conditions in one line, for lists ("channel: Direct · goal: Signup"). */
export function describe(conditions: Conditions, label: (key: string) => string): string {
  const parts: string[] = [];
  if (conditions.channels?.length) parts.push(`${label("channels")}: ${conditions.channels.join(", ")}`);
  if (conditions.countries?.length) parts.push(`${label("countries")}: ${conditions.countries.join(", ")}`);
  if (conditions.devices?.length) parts.push(`${label("devices")}: ${conditions.devices.join(", ")}`);
  if (conditions.landing_page) parts.push(`${label("landingPage")}: ${conditions.landing_page}`);
  if (conditions.goal) parts.push(`${label("goal")}: ${conditions.goal}`);
  if (conditions.event) parts.push(`${label("event")}: ${conditions.event.event}`);
  return parts.join(" · ");
}
