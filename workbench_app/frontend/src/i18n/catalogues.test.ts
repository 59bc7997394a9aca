import { describe, expect, it } from "vitest";
import { catalogues, missingKeys, pickLanguage } from "./catalogues";

describe("catalogues", () => {
  it("have the same keys in English, French and Spanish", () => {
    expect(missingKeys(catalogues)).toEqual([]);
  });

  it("report a key missing in one language", () => {
    expect(missingKeys({ en: { a: "A", b: "B" }, fr: { a: "A" } })).toEqual([{ language: "fr", key: "b" }]);
  });

  it("keep placeholders alike in every language", () => {
    const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();
    for (const key of Object.keys(catalogues.en)) {
      expect([key, placeholders(catalogues.fr[key] ?? "")]).toEqual([key, placeholders(catalogues.en[key]!)]);
      expect([key, placeholders(catalogues.es[key] ?? "")]).toEqual([key, placeholders(catalogues.en[key]!)]);
    }
  });
});

describe("pickLanguage", () => {
  it("takes the first supported choice", () => {
    expect(pickLanguage(undefined, "fr-CA", "es")).toBe("fr");
    expect(pickLanguage("de", "es-MX")).toBe("es");
    expect(pickLanguage("de")).toBe("en");
  });
});
