// A resolved theme as the design tokens it overrides (CSS custom properties): one place, so the
// dashboard viewer, the editor's preview and the PDF print page draw alike. Pure: no React.
import type { components } from "../../api/schema";

export type ThemeSettings = components["schemas"]["ResolvedThemeSettings"];
export type ThemeFont = ThemeSettings["font"];

/** The bundled fonts (features/themes/fonts.ts) with the system fallbacks behind them. */
export const FONT_FAMILIES: Record<ThemeFont, string> = {
  system: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Liberation Sans", sans-serif',
  inter: '"Inter", "Liberation Sans", Arial, sans-serif',
  "source-serif-4": '"Source Serif 4", "Liberation Serif", Georgia, serif',
  "atkinson-hyperlegible": '"Atkinson Hyperlegible", "Liberation Sans", Arial, sans-serif',
};
export const FONTS = Object.keys(FONT_FAMILIES) as ThemeFont[];

const HEX = /^#[0-9a-fA-F]{6}$/;
const safeColor = (value: string, fallback: string) => (HEX.test(value) ? value : fallback);

/** The custom properties a theme sets. Values are checked again here: only #rrggbb colours and
 *  numbers reach the style, whatever the server sent. */
export function themeVariables(theme: ThemeSettings): Record<string, string> {
  const { colors, card } = theme;
  const variables: Record<string, string> = {
    "--font-sans": FONT_FAMILIES[theme.font] ?? FONT_FAMILIES.system,
    "--color-bg": safeColor(colors.background, "#f6f7f9"),
    "--color-surface": safeColor(colors.surface, "#ffffff"),
    "--color-text": safeColor(colors.text, "#1f2933"),
    "--color-text-muted": safeColor(colors.muted, "#4b5563"),
    "--color-primary": safeColor(colors.primary, "#1d4ed8"),
    "--color-border": card.border === "none" ? "transparent" : safeColor(colors.border, "#d2d6dc"),
    "--radius-md": `${Math.max(0, Math.min(24, Math.round(card.radius)))}px`,
    "--shadow-card": card.shadow === "soft" ? "0 1px 2px rgba(15, 23, 42, 0.08), 0 1px 3px rgba(15, 23, 42, 0.06)" : "none",
  };
  theme.palette.forEach((color, index) => {
    if (index < 8) variables[`--chart-${index + 1}`] = safeColor(color, "#1d4ed8");
  });
  return variables;
}
