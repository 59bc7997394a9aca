// {{variables}} of a statement, found the way the server finds them (workbench_app/engine/variables.py):
// not inside string literals, quoted identifiers or comments. The screen shows one typed input each.

export const VARIABLE_TYPES = ["text", "number", "date", "list"] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

export interface VariableUse {
  name: string;
  /** Inside an [[optional clause]]: an empty value drops the clause instead of failing. */
  optional: boolean;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variables of `sql` in order of first use (each once). */
export function findVariables(sql: string): VariableUse[] {
  const found = new Map<string, VariableUse>();
  let depth = 0;
  let i = 0;
  while (i < sql.length) {
    const rest = sql.slice(i, i + 2);
    const char = sql[i]!;
    if (char === "'" || char === '"') {
      i = skipQuoted(sql, i, char);
    } else if (rest === "--") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (rest === "/*") {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (rest === "{{") {
      const end = sql.indexOf("}}", i + 2);
      if (end === -1) break;
      const name = sql.slice(i + 2, end).trim();
      if (NAME.test(name)) {
        const known = found.get(name);
        if (!known) found.set(name, { name, optional: depth > 0 });
        else if (depth === 0) known.optional = false;
      }
      i = end + 2;
    } else if (rest === "[[" && opensOptionalClause(sql, i)) {
      depth += 1;
      i += 2;
    } else if (rest === "]]" && depth > 0) {
      depth -= 1;
      i += 2;
    } else {
      i += 1;
    }
  }
  return [...found.values()];
}

function skipQuoted(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2; // a doubled quote stays inside
      else return i + 1;
    } else {
      i += 1;
    }
  }
  return sql.length;
}

/** `[[` opens an optional clause only when a variable follows before the next `]]` (else it is a list literal). */
function opensOptionalClause(sql: string, start: number): boolean {
  const close = sql.indexOf("]]", start + 2);
  const variable = sql.indexOf("{{", start + 2);
  return variable !== -1 && (close === -1 || variable < close);
}

export type ParsedValue = { ok: true; value: string | number | (string | number)[] | null } | { ok: false; reason: "number" | "date" | "list" };

/** A typed input's text as the JSON value the API binds; empty text is "no value" (null). */
export function parseVariableValue(type: VariableType, text: string): ParsedValue {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: true, value: null };
  switch (type) {
    case "number": {
      const value = Number(trimmed);
      return Number.isFinite(value) ? { ok: true, value } : { ok: false, reason: "number" };
    }
    case "date":
      return /^\d{4}-\d{2}-\d{2}$/.test(trimmed) && !Number.isNaN(Date.parse(trimmed))
        ? { ok: true, value: trimmed } : { ok: false, reason: "date" };
    case "list": {
      const items = trimmed.split(",").map((item) => item.trim()).filter((item) => item !== "");
      if (items.length === 0) return { ok: false, reason: "list" };
      const numbers = items.map(Number);
      return { ok: true, value: numbers.every(Number.isFinite) ? numbers : items };
    }
    default:
      return { ok: true, value: text };
  }
}
