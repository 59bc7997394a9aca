// Each feature keys its reads once, in its `*Queries.ts` (TanStack `queryOptions`): a screen, the
// mutations that change what it shows and the other screens reading the same address then name one
// key with one shape under it. A key written inline elsewhere fails here.
import { describe, expect, it } from "vitest";

const sources = import.meta.glob(["./**/*.ts", "./**/*.tsx", "!./**/*Queries.ts", "!./**/*.test.ts", "!./api/schema.d.ts"], {
  query: "?raw", import: "default", eager: true,
}) as Record<string, string>;

describe("query keys", () => {
  it("reads the sources it checks", () => {
    expect(Object.keys(sources)).toContain("./features/dashboards/DashboardPage.tsx");
  });

  it("are written only in the features' *Queries.ts", () => {
    const inline = Object.entries(sources)
      .filter(([, text]) => /queryKey:\s*\[/.test(text))
      .map(([path]) => path);
    expect(inline).toEqual([]);
  });
});
