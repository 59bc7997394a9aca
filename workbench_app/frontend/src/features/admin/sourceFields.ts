// The form of each kind of source: which options it shows, of which type, which are required.
// The server checks them again (registry.check_options): this only decides what to draw.
export const SOURCE_KINDS = ["postgres", "mysql", "couchdb", "snowflake", "sqlite", "duckdb", "files"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number] | "warehouse";

export type FieldType = "text" | "number" | "list" | "protocol";
export interface SourceField { key: string; type: FieldType; required?: boolean }

const SCHEMAS: SourceField = { key: "schemas", type: "list" };
const DEFAULT_SCHEMA: SourceField = { key: "default_schema", type: "text" };
const SERVER: SourceField[] = [
  { key: "host", type: "text", required: true }, { key: "port", type: "number" },
  { key: "database", type: "text", required: true }, { key: "user", type: "text", required: true },
];

export const SOURCE_FIELDS: Record<SourceKind, SourceField[]> = {
  postgres: [...SERVER, { key: "sslmode", type: "text" }, DEFAULT_SCHEMA, SCHEMAS],
  mysql: [...SERVER, DEFAULT_SCHEMA, SCHEMAS],
  couchdb: [{ key: "url", type: "text", required: true }, { key: "user", type: "text" },
    { key: "databases", type: "list" }, { key: "sample_size", type: "number" }, { key: "max_rows", type: "number" }],
  snowflake: [{ key: "account", type: "text", required: true }, { key: "user", type: "text", required: true },
    { key: "database", type: "text", required: true }, { key: "schema", type: "text" }, { key: "warehouse", type: "text" },
    { key: "role", type: "text" }, { key: "private_key_path", type: "text" }, { key: "max_rows", type: "number" },
    { key: "host", type: "text" }, { key: "port", type: "number" }, { key: "protocol", type: "protocol" }],
  sqlite: [{ key: "path", type: "text", required: true }],
  duckdb: [{ key: "path", type: "text", required: true }, DEFAULT_SCHEMA, SCHEMAS],
  files: [{ key: "path", type: "text", required: true }],
  warehouse: [DEFAULT_SCHEMA, SCHEMAS],
};

export const WITH_PASSWORD: ReadonlySet<SourceKind> = new Set(["postgres", "mysql", "couchdb", "snowflake"]);

export type FormValues = Record<string, string>;

/** The form's text values of a source's options (lists as comma-separated names). */
export function toFormValues(kind: SourceKind, options: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const field of SOURCE_FIELDS[kind]) {
    const value = options[field.key];
    if (value === undefined || value === null) values[field.key] = "";
    else if (Array.isArray(value)) values[field.key] = value.join(", ");
    else values[field.key] = String(value);
  }
  return values;
}

/**
 * The options to send: numbers as numbers, lists as arrays. An emptied field is sent as null
 * when editing (so the server removes it) and left out when creating.
 */
export function toOptions(kind: SourceKind, values: FormValues, editing: boolean): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const field of SOURCE_FIELDS[kind]) {
    const text = (values[field.key] ?? "").trim();
    if (!text) {
      if (editing) options[field.key] = null;
      continue;
    }
    if (field.type === "number") options[field.key] = /^\d+$/.test(text) ? Number(text) : text;
    else if (field.type === "list") options[field.key] = text.split(",").map((item) => item.trim()).filter(Boolean);
    else options[field.key] = text;
  }
  return options;
}
