// The question builder's state and the definition the server compiles (workbench_app/content/builder.py).
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

/** A column as the definition names it: plain for the picked table, "join.<name>" for the joined one. */
export function columnRef(choice: ColumnChoice): string {
  return choice.source === "join" ? `join.${choice.name}` : choice.name;
}

function typed(text: string, kind: ColumnKind): string | number {
  const trimmed = text.trim();
  return kind === "number" && trimmed !== "" && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
}

export type Definition = Record<string, unknown>;

/** The definition to send, or null while no table is picked. `kinds` gives each column's kind by ref. */
export function toDefinition(state: BuilderState, kinds: Record<string, ColumnKind>): Definition | null {
  if (!state.table) return null;
  const definition: Definition = { table: state.table };
  const joinOn = state.join.on.filter((pair) => pair.left && pair.right);
  if (state.join.table && joinOn.length > 0) definition.join = { table: state.join.table, kind: state.join.kind, on: joinOn };
  const joined = definition.join !== undefined;
  const usable = (choice: ColumnChoice | null): choice is ColumnChoice => choice !== null && (choice.source === "base" || joined);

  const filters: Definition[] = [];
  for (const row of state.filters) {
    if (!usable(row.column)) continue;
    const column = columnRef(row.column);
    const kind = kinds[column] ?? "text";
    if (row.operator === "is empty" || row.operator === "is not empty") filters.push({ column, operator: row.operator });
    else if (row.operator === "relative") filters.push({ column, operator: "relative", value: { last: row.relative.last, unit: row.relative.unit } });
    else if (row.operator === "between") {
      if (row.value.trim() && row.value2.trim()) filters.push({ column, operator: "between", value: [typed(row.value, kind), typed(row.value2, kind)] });
    } else if (row.operator === "in") {
      const values = row.value.split(",").map((v) => v.trim()).filter(Boolean).map((v) => typed(v, kind));
      if (values.length > 0) filters.push({ column, operator: "in", value: values });
    } else if (row.value.trim() !== "") filters.push({ column, operator: row.operator, value: typed(row.value, kind) });
  }
  if (filters.length) definition.filters = filters;

  const aggregations = state.aggregations
    .filter((row) => row.fn === "count" || usable(row.column))
    .map((row) => (row.fn === "count" && !row.column ? { function: "count" } : { function: row.fn, column: columnRef(row.column!) }));
  if (aggregations.length) definition.aggregations = aggregations;
  const breakouts = state.breakouts.filter((row) => usable(row.column))
    .map((row) => (row.bucket ? { column: columnRef(row.column!), bucket: row.bucket } : columnRef(row.column!)));
  if (breakouts.length) definition.breakouts = breakouts;
  if (state.sort?.key) definition.order_by = [{ column: state.sort.key, direction: state.sort.direction }];
  if (state.limit !== null && state.limit > 0) definition.limit = Math.min(Math.floor(state.limit), 100_000);
  return definition;
}

/** The names a result's columns will have, for the sort menu (the server's aliases). */
export function outputNames(definition: Definition | null): string[] {
  if (!definition) return [];
  const names: string[] = [];
  for (const breakout of (definition.breakouts as (string | { column: string; bucket: string })[] | undefined) ?? []) {
    names.push(typeof breakout === "string" ? breakout : `${breakout.column}_${breakout.bucket}`);
  }
  for (const aggregation of (definition.aggregations as { function: string; column?: string }[] | undefined) ?? []) {
    names.push(aggregation.column ? `${aggregation.function}_${aggregation.column}` : "count");
  }
  return names;
}
