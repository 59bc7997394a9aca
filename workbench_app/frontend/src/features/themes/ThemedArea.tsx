// A part of the page dressed in a theme: the theme's design tokens set as custom properties on one
// element (the style attribute is how a runtime value reaches CSS variables; only checked colours
// and numbers get there, see themeStyle.ts), its logo above. The rest of the app keeps its own look.
import type { CSSProperties, ReactNode } from "react";
import "./fonts";
import { ThemePalette } from "./paletteContext";
import styles from "./ThemedArea.module.css";
import { themeVariables, type ThemeSettings } from "./themeStyle";
import type { EffectiveTheme } from "./useEffectiveTheme";

interface Props {
  theme: ThemeSettings | undefined;
  /** The theme whose logo to show, when it has one. */
  logoThemeId?: number | null | undefined;
  logoLabel?: string | undefined;
  children: ReactNode;
  className?: string | undefined;
}

export function ThemedArea({ theme, logoThemeId, logoLabel, children, className }: Props) {
  const style = theme ? (themeVariables(theme) as CSSProperties) : undefined;
  return (
    <div className={className ? `${styles.area} ${className}` : styles.area} style={style} data-testid="themed-area">
      {logoThemeId ? <img className={styles.logo} src={`/api/v1/themes/${logoThemeId}/logo`} alt={logoLabel ?? ""} /> : null}
      <ThemePalette.Provider value={theme?.palette.join(" ") ?? ""}>{children}</ThemePalette.Provider>
    </div>
  );
}

/** A themed area for the theme the server resolved: its settings, and its logo when it has one. */
export function AppliedTheme({ theme, children, className }: {
  theme: EffectiveTheme | undefined; children: ReactNode; className?: string | undefined;
}) {
  return (
    <ThemedArea theme={theme?.settings} logoThemeId={theme?.has_logo ? theme.theme_id : null}
      logoLabel={theme?.name ?? undefined} className={className}>
      {children}
    </ThemedArea>
  );
}
