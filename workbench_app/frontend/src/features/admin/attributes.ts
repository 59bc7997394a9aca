// A person's attributes as the form edits them: rows of name and text. A value typed as a number
// or true/false is sent as one, a value with commas stays text (lists are set through the API).
export interface AttributeRow { name: string; value: string }

export function toRows(attributes: Record<string, unknown>): AttributeRow[] {
  return Object.entries(attributes).map(([name, value]) => ({
    name, value: Array.isArray(value) ? value.join(", ") : String(value),
  }));
}

export function toAttributes(rows: AttributeRow[]): Record<string, string | number | boolean | string[]> {
  const attributes: Record<string, string | number | boolean | string[]> = {};
  for (const row of rows) {
    const name = row.name.trim();
    if (!name) continue;
    const text = row.value.trim();
    if (/^-?\d+(\.\d+)?$/.test(text)) attributes[name] = Number(text);
    else if (text === "true" || text === "false") attributes[name] = text === "true";
    else attributes[name] = row.value;
  }
  return attributes;
}
