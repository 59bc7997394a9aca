import type { components } from "../../api/schema";

/** A statement's answer as the API gives it (the same shape for SQL, questions, builder runs). */
export type Result = components["schemas"]["Result"];
export type ResultColumn = { name: string; type: string };

export function resultColumns(result: Pick<Result, "columns">): ResultColumn[] {
  return (result.columns ?? []).map((column) => ({ name: column.name ?? "", type: column.type ?? "" }));
}
