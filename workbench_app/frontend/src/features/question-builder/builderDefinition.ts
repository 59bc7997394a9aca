// The question builder's state and the definition the server compiles (workbench_app/content/builder.py).
import type { components } from "../../api/schema";
// Pure: unfinished rows are left out, so the result can update while a person is still building.

export interface TableRef {
  catalog: string;
  schema: string;
  table: string;
}

export type ColumnKind = "number" | "text" | "temporal" | "boolean" | "other";
export type Source = "base" | "join";

export interface ColumnChoice {
  source: Source;
  name: string;
}

export const BUCKETS = ["hour", "day", "week", "month", "quarter", "year"] as const;
export type Bucket = (typeof BUCKETS)[number];
export const FUNCTIONS = ["count", "count_distinct", "sum", "avg", "min", "max"] as const;
export type AggregateFunction = (typeof FUNCTIONS)[number];
export const RELATIVE_UNITS = ["hour", "day", "week", "month", "quarter", "year"] as const;

export type Operator = "=" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "between" | "contains" | "starts with"
  | "relative" | "is empty" | "is not empty";

export interface FilterRow {
  column: ColumnChoice | null;
  operator: Operator;
  /** Text as typed: one value, a comma-separated list for "in", "a..b" pieces for between. */
  value: string;
  value2: string;
  relative: { last: number; unit: (typeof RELATIVE_UNITS)[number] };
}

export interface AggregationRow {
  fn: AggregateFunction;
  column: ColumnChoice | null;
}

export interface BreakoutRow {
  column: ColumnChoice | null;
  bucket: Bucket | null;
}

export interface BuilderState {
  table: TableRef | null;
  join: { table: TableRef | null; kind: "inner" | "left"; on: { left: string; right: string }[] };
  filters: FilterRow[];
  aggregations: AggregationRow[];
  breakouts: BreakoutRow[];
  /** `key` is a sort option's value (see `sortOptions`). */
  sort: { key: string; direction: "asc" | "desc" } | null;
  limit: number | null;
}

export const emptyState = (): BuilderState => ({
  table: null, join: { table: null, kind: "inner", on: [] }, filters: [], aggregations: [], breakouts: [], sort: null, limit: 1000,
});

export function kindOf(type: string): ColumnKind {
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|U?(TINY|SMALL|BIG|HUGE)?INT|FLOAT|REAL|DOUBLE|DECIMAL|NUMERIC)/i.test(type)) return "number";
  if (/^(DATE|TIMESTAMP)/i.test(type)) return "temporal";
  if (/^(VARCHAR|TEXT|STRING|CHAR|UUID|ENUM)/i.test(type)) return "text";
  if (/^BOOL/i.test(type)) return "boolean";
  return "other";
}

/** The operators that make sense for a column type, in the order a menu shows them. */
export function operatorsFor(kind: ColumnKind): Operator[] {
  switch (kind) {
    case "number": return ["=", "!=", "in", "between", "<", "<=", ">", ">=", "is empty", "is not empty"];
    case "temporal": return ["relative", "between", "=", "<", ">", "is empty", "is not empty"];
    case "text": return ["=", "!=", "in", "contains", "starts with", "is empty", "is not empty"];
    default: return ["=", "!=", "is empty", "is not empty"];
  }
}

/** A column as the definition names it: `{column}` in the picked table, `{column, from: "join"}` in the joined one. */
export function columnRef(choice: ColumnChoice): { column: string; from?: "join" } {
  return choice.source === "join" ? { column: choice.name, from: "join" } : { column: choice.name };
}

/** The key of a column in the `kinds` map (and of a choice in menus). */
export const kindKey = (choice: ColumnChoice): string => (choice.source === "join" ? `join.${choice.name}` : choice.name);

/** The name the server gives a column in the result: a joined table's are prefixed `join_`. */
export const outputName = (choice: ColumnChoice): string => (choice.source === "join" ? `join_${choice.name}` : choice.name);

function typed(text: string, kind: ColumnKind): string | number {
  const trimmed = text.trim();
  return kind === "number" && trimmed !== "" && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
}

/** The definition the server compiles, as its OpenAPI document describes it. */
export type Definition = components["schemas"]["BuilderDefinition"];
type Filter = NonNullable<Definition["filters"]>[number];

/** The definition to send, or null while no table is picked. `kinds` gives each column's kind by ref. */
export function toDefinition(state: BuilderState, kinds: Record<string, ColumnKind>): Definition | null {
  if (!state.table) return null;
  const definition: Definition = { table: state.table };
  const filters: Filter[] = [];
  const joinOn = state.join.on.filter((pair) => pair.left && pair.right);
  if (state.join.table && joinOn.length > 0) definition.join = { table: state.join.table, kind: state.join.kind, on: joinOn };
  const joined = definition.join !== undefined;
  const usable = (choice: ColumnChoice | null): choice is ColumnChoice => choice !== null && (choice.source === "base" || joined);

  for (const row of state.filters) {
    if (!usable(row.column)) continue;
    const column = columnRef(row.column);
    const kind = kinds[kindKey(row.column)] ?? "text";
    if (row.operator === "is empty" || row.operator === "is not empty") filters.push({ ...column, operator: row.operator });
    else if (row.operator === "relative") filters.push({ ...column, operator: "relative", value: { last: row.relative.last, unit: row.relative.unit } });
    else if (row.operator === "between") {
      if (row.value.trim() && row.value2.trim()) filters.push({ ...column, operator: "between", value: [typed(row.value, kind), typed(row.value2, kind)] });
    } else if (row.operator === "in") {
      const values = row.value.split(",").map((v) => v.trim()).filter(Boolean).map((v) => typed(v, kind));
      if (values.length > 0) filters.push({ ...column, operator: "in", value: values });
    } else if (row.value.trim() !== "") filters.push({ ...column, operator: row.operator, value: typed(row.value, kind) });
  }
  if (filters.length) definition.filters = filters;

  const aggregations = state.aggregations
    .filter((row) => (row.fn === "count" && !row.column) || usable(row.column))
    .map((row) => (row.fn === "count" && !row.column ? { function: "count" as const } : { function: row.fn, ...columnRef(row.column!) }));
  if (aggregations.length) definition.aggregations = aggregations;
  const breakouts = state.breakouts.filter((row) => usable(row.column))
    .map((row) => (row.bucket ? { ...columnRef(row.column!), bucket: row.bucket } : columnRef(row.column!)));
  if (breakouts.length) definition.breakouts = breakouts;
  const baseColumns = Object.keys(kinds).filter((key) => !key.startsWith("join."));
  const sort = state.sort ? sortOptions(state, joined, baseColumns).find((option) => option.value === state.sort!.key) : undefined;
  if (sort) definition.order_by = [{ ...sort.orderBy, direction: state.sort!.direction }];
  if (state.limit !== null && state.limit > 0) definition.limit = Math.min(Math.floor(state.limit), 100_000);
  return definition;
}

export interface SortOption {
  value: string;
  label: string;
  orderBy: { alias: string } | { column: string; from?: "join" };
}

/** What the result can be sorted by: the summaries and time buckets by their names in the result
 * (`count`, `sum_revenue`, `visit_start_month`), grouped columns and, when nothing is summarized,
 * any column of the picked table. */
export function sortOptions(state: BuilderState, joined: boolean, baseColumns: readonly string[] = []): SortOption[] {
  const usable = (choice: ColumnChoice | null): choice is ColumnChoice => choice !== null && (choice.source === "base" || joined);
  const options: SortOption[] = [];
  for (const row of state.breakouts) {
    if (!usable(row.column)) continue;
    const name = outputName(row.column);
    options.push(row.bucket
      ? { value: `alias:${name}_${row.bucket}`, label: `${name}_${row.bucket}`, orderBy: { alias: `${name}_${row.bucket}` } }
      : { value: `column:${kindKey(row.column)}`, label: name, orderBy: columnRef(row.column) });
  }
  for (const row of state.aggregations) {
    if (row.fn === "count" && !row.column) options.push({ value: "alias:count", label: "count", orderBy: { alias: "count" } });
    else if (usable(row.column)) {
      const name = `${row.fn}_${outputName(row.column)}`;
      options.push({ value: `alias:${name}`, label: name, orderBy: { alias: name } });
    }
  }
  if (options.length === 0) {
    for (const name of baseColumns) options.push({ value: `column:${name}`, label: name, orderBy: { column: name } });
  }
  return options;
}
