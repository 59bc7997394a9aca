// The live preview: a heading, a card with text and a bar of the palette, in the theme being
// edited (not yet saved). Text from the theme (its name) is rendered as text.
import { useTranslation } from "react-i18next";
import { ThemedArea } from "./ThemedArea";
import type { ThemeSettings } from "./themeStyle";
import styles from "./ThemesPage.module.css";

export function ThemePreview({ settings, name, logoThemeId }: { settings: ThemeSettings; name: string; logoThemeId: number | null }) {
  const { t } = useTranslation();
  return (
    <ThemedArea theme={settings} logoThemeId={logoThemeId} logoLabel={name}>
      <div data-testid="theme-preview" className={styles.previewCard}>
        <h3 className={styles.previewTitle}>{name}</h3>
        <p>{t("themes.previewText")}</p>
        <p className={styles.previewMuted}>{t("themes.previewMuted")}</p>
        <div className={styles.swatches} aria-hidden="true">
          {settings.palette.map((_, index) => <span key={index} className={styles[`swatch${index + 1}`]} />)}
        </div>
        <a href="#theme-preview">{t("themes.previewLink")}</a>
      </div>
    </ThemedArea>
  );
}
