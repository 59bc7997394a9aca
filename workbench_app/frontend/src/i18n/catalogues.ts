// The UI's strings: one JSON file per language and feature (locales/<language>/<feature>.json),
// flat keys prefixed by the feature ("sql.run"), so features add strings without touching others.
const files = import.meta.glob<Record<string, string>>("./locales/*/*.json", { eager: true, import: "default" });

export const LANGUAGES = ["en", "fr", "es"] as const;
export type Language = (typeof LANGUAGES)[number];
/** Each language in its own words, as the language menus show it. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: "English", fr: "Français", es: "Español" };
export type Catalogue = Record<string, string>;

function collect(language: Language): Catalogue {
  const catalogue: Catalogue = {};
  for (const [path, strings] of Object.entries(files)) {
    if (path.startsWith(`./locales/${language}/`)) Object.assign(catalogue, strings);
  }
  return catalogue;
}

export const catalogues: Record<Language, Catalogue> = { en: collect("en"), fr: collect("fr"), es: collect("es") };

/** Keys present in one catalogue and missing (or empty) in another. */
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
