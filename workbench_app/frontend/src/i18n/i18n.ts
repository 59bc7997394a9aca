import i18next from "i18next";
import { useEffect } from "react";
import { initReactI18next } from "react-i18next";
import { catalogues, pickLanguage, type Language } from "./catalogues";

export const i18n = i18next.createInstance();

void i18n.use(initReactI18next).init({
  resources: Object.fromEntries(Object.entries(catalogues).map(([language, strings]) => [language, { translation: strings }])),
  lng: pickLanguage(...(typeof navigator === "undefined" ? [] : navigator.languages)),
  fallbackLng: "en",
  keySeparator: false,
  nsSeparator: false,
  // React escapes what it renders: i18next must not escape a second time.
  interpolation: { escapeValue: false },
  returnNull: false,
  showSupportNotice: false,
});

/** Show the interface in `language` (and say so to assistive technology through <html lang>). */
export function useLanguage(language: Language): void {
  useEffect(() => {
    if (i18n.language !== language) void i18n.changeLanguage(language);
    document.documentElement.lang = language;
  }, [language]);
}

/** Numbers and dates formatted for the interface's language. */
export function formatNumber(value: number, options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(i18n.language, options).format(value);
}

export function formatDateTime(value: string | number | Date): string {
  return new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(value));
}
