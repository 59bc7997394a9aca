// A result as CSV (RFC 4180) for download: what the person already received, nothing more.

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: quoted when needed; text a spreadsheet would run as a formula is prefixed with '. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const lines = [columns.map(csvCell).join(",")];
  for (const row of rows) lines.push(row.map(csvCell).join(","));
  return lines.join("\r\n") + "\r\n";
}

/** Tab-separated text for the clipboard (pastes as cells into a spreadsheet). */
export function toTsv(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cell = (value: unknown) =>
    value === null || value === undefined ? "" : (typeof value === "object" ? JSON.stringify(value) : String(value)).replace(/[\t\n\r]/g, " ");
  return [columns.map(cell).join("\t"), ...rows.map((row) => row.map(cell).join("\t"))].join("\n");
}

export type SortDirection = "asc" | "desc";

/** Rows sorted by one column: nulls last, numbers as numbers, text by the language's collation. */
export function sortRows<T extends readonly unknown[]>(rows: readonly T[], column: number, direction: SortDirection,
  collator: Intl.Collator = new Intl.Collator()): T[] {
  const sign = direction === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a[column];
    const y = b[column];
    if (x === null || x === undefined) return y === null || y === undefined ? 0 : 1;
    if (y === null || y === undefined) return -1;
    if (typeof x === "number" && typeof y === "number") return sign * (x - y);
    return sign * collator.compare(String(x), String(y));
  });
}
