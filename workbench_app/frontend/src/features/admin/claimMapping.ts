// Single sign-on's claims mappings as the Settings screen edits them: one "name = target" per line
// (claim = attribute, directory group = workbench group). The server checks the names again.
export interface ParsedMapping { mapping: Record<string, string>; badLines: number[] }

export function toLines(mapping: Record<string, string>): string {
  return Object.entries(mapping).map(([name, target]) => `${name} = ${target}`).join("\n");
}

export function parseLines(text: string): ParsedMapping {
  const mapping: Record<string, string> = {};
  const badLines: number[] = [];
  text.split("\n").forEach((line, index) => {
    if (!line.trim()) return;
    const separator = line.indexOf("=");
    const name = line.slice(0, separator).trim();
    const target = line.slice(separator + 1).trim();
    if (separator < 0 || !name || !target) badLines.push(index + 1);
    else mapping[name] = target;
  });
  return { mapping, badLines };
}
