// The UI's strings, one flat JSON catalogue per language; keys are dotted paths by screen.
import en from "./en.json";
import es from "./es.json";
import fr from "./fr.json";

export const LANGUAGES = ["en", "fr", "es"] as const;
export type Language = (typeof LANGUAGES)[number];
export type Catalogue = Record<string, string>;

export const catalogues: Record<Language, Catalogue> = { en, fr, es };

/** Keys present in one catalogue and missing from another (empty when all three agree). */
export function missingKeys(all: Record<string, Catalogue> = catalogues): { language: string; key: string }[] {
  const keys = new Set(Object.values(all).flatMap((catalogue) => Object.keys(catalogue)));
  const missing: { language: string; key: string }[] = [];
  for (const [language, catalogue] of Object.entries(all)) {
    for (const key of keys) {
      if (!(key in catalogue) || catalogue[key] === "") missing.push({ language, key });
    }
  }
  return missing;
}

/** The supported language closest to a browser's or an account's choice ("fr-CA" -> "fr"). */
export function pickLanguage(...choices: (string | null | undefined)[]): Language {
  for (const choice of choices) {
    const base = choice?.toLowerCase().split(/[-_]/)[0];
    const found = LANGUAGES.find((language) => language === base);
    if (found) return found;
  }
  return "en";
}
