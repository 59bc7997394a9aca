// Themes (administrators): pick or create a theme, change its fonts, colours, card style, palette,
// logo and PDF layout with a live preview, save, and apply it to a folder (inherited below it).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { foldersQuery } from "../browse/browseQueries";
import { themesQuery } from "./themeQueries";
import { ThemePreview } from "./ThemePreview";
import { FONTS, type ThemeSettings } from "./themeStyle";
import styles from "./ThemesPage.module.css";

type Theme = components["schemas"]["Theme"];
const COLOR_NAMES = ["background", "surface", "text", "muted", "primary", "border"] as const;
const SIDES = ["top", "right", "bottom", "left"] as const;

export default function ThemesPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const themes = useQuery(themesQuery());
  const folders = useQuery(foldersQuery());
  const [selected, setSelected] = useState<number | null>(null);
  const [newName, setNewName] = useState("");
  const [draft, setDraft] = useState<{ name: string; settings: ThemeSettings } | null>(null);
  const [folderId, setFolderId] = useState("");
  const [applied, setApplied] = useState(false);
  const current = themes.data?.themes.find((theme) => theme.theme_id === selected) ?? null;
  const refresh = () => queryClient.invalidateQueries({ queryKey: themesQuery().queryKey });

  function open(theme: Theme) {
    setSelected(theme.theme_id);
    setDraft({ name: theme.name, settings: theme.resolved });
    setApplied(false);
  }

  const create = useMutation({
    mutationFn: () => data(api.POST("/themes", { body: { name: newName } })),
    onSuccess: async (theme) => {
      setNewName("");
      await refresh();
      open(theme);
    },
  });
  const save = useMutation({
    mutationFn: () => data(api.PUT("/themes/{theme_id}", {
      params: { path: { theme_id: selected! } }, body: { name: draft!.name, settings: draft!.settings },
    })),
    onSuccess: async (theme) => {
      await refresh();
      open(theme);
    },
  });
  const remove = useMutation({
    mutationFn: () => data(api.DELETE("/themes/{theme_id}", { params: { path: { theme_id: selected! } } })),
    onSuccess: async () => {
      setSelected(null);
      setDraft(null);
      await refresh();
    },
  });
  const uploadLogo = useMutation({
    mutationFn: (file: File) => data(api.PUT("/themes/{theme_id}/logo", {
      params: { path: { theme_id: selected! } }, body: file as never,
      bodySerializer: (body: unknown) => body as File, headers: { "Content-Type": file.type || "application/octet-stream" },
    })),
    onSuccess: () => refresh(),
  });
  const removeLogo = useMutation({
    mutationFn: () => data(api.DELETE("/themes/{theme_id}/logo", { params: { path: { theme_id: selected! } } })),
    onSuccess: () => refresh(),
  });
  const apply = useMutation({
    mutationFn: () => data(api.PUT("/folders/{folder_id}/theme", {
      params: { path: { folder_id: Number(folderId) } }, body: { theme_id: selected },
    })),
    onSuccess: () => setApplied(true),
  });

  const set = (change: (settings: ThemeSettings) => ThemeSettings) =>
    setDraft((old) => (old ? { ...old, settings: change(old.settings) } : old));
  const editableFolders = (folders.data ?? []).filter((folder) => folder.access === "edit");
  const error = themes.error ?? create.error ?? save.error ?? remove.error ?? uploadLogo.error ?? removeLogo.error ?? apply.error;

  return (
    <div className={styles.page}>
      <PageHeader title={t("themes.title")} />
      <ErrorMessage error={error} />
      <div className={styles.layout}>
        <section className={styles.panel} aria-labelledby="themes-list">
          <h2 id="themes-list">{t("themes.list")}</h2>
          {themes.data?.themes.length === 0 && <p>{t("themes.none")}</p>}
          <ul className={styles.list}>
            {themes.data?.themes.map((theme) => (
              <li key={theme.theme_id}>
                <Button variant={theme.theme_id === selected ? "primary" : "ghost"} onClick={() => open(theme)}
                  aria-pressed={theme.theme_id === selected}>{theme.name}</Button>
              </li>
            ))}
          </ul>
          <form className={styles.row} onSubmit={(event) => { event.preventDefault(); if (newName.trim()) create.mutate(); }}>
            <TextField label={t("themes.newName")} value={newName} maxLength={100} onChange={setNewName} />
            <Button type="submit" disabled={!newName.trim() || create.isPending}>{t("themes.create")}</Button>
          </form>
        </section>
        {draft && current && (
          <>
            <section className={styles.panel} aria-labelledby="theme-editor">
              <h2 id="theme-editor">{t("themes.editing", { name: current.name })}</h2>
              <TextField label={t("themes.name")} value={draft.name} maxLength={100} onChange={(name) => setDraft({ ...draft, name })} />
              <SelectField label={t("themes.font")} value={draft.settings.font}
                options={FONTS.map((font) => ({ value: font, label: t(`themes.fonts.${font}`) }))}
                onChange={(font) => set((s) => ({ ...s, font }))} />
              <fieldset className={styles.fieldset}>
                <legend>{t("themes.colors")}</legend>
                <div className={styles.grid}>
                  {COLOR_NAMES.map((name) => (
                    <label key={name} className={styles.color}>
                      <input type="color" value={draft.settings.colors[name]}
                        onChange={(event) => set((s) => ({ ...s, colors: { ...s.colors, [name]: event.target.value } }))} />
                      {t(`themes.color.${name}`)}
                    </label>
                  ))}
                </div>
              </fieldset>
              <fieldset className={styles.fieldset}>
                <legend>{t("themes.card")}</legend>
                <div className={styles.grid}>
                  <TextField label={t("themes.radius")} type="number" min={0} max={24} value={String(draft.settings.card.radius)}
                    onChange={(value) => set((s) => ({ ...s, card: { ...s.card, radius: Math.max(0, Math.min(24, Number(value) || 0)) } }))} />
                  <SelectField label={t("themes.border")} value={draft.settings.card.border}
                    options={[{ value: "thin", label: t("themes.thin") }, { value: "none", label: t("themes.noBorder") }]}
                    onChange={(border) => set((s) => ({ ...s, card: { ...s.card, border } }))} />
                  <SelectField label={t("themes.shadow")} value={draft.settings.card.shadow}
                    options={[{ value: "soft", label: t("themes.soft") }, { value: "none", label: t("themes.noShadow") }]}
                    onChange={(shadow) => set((s) => ({ ...s, card: { ...s.card, shadow } }))} />
                </div>
              </fieldset>
              <fieldset className={styles.fieldset}>
                <legend>{t("themes.palette")}</legend>
                <div className={styles.grid}>
                  {draft.settings.palette.map((color, index) => (
                    <label key={index} className={styles.color}>
                      <input type="color" value={color} onChange={(event) => set((s) => ({
                        ...s, palette: s.palette.map((old, i) => (i === index ? event.target.value : old)),
                      }))} />
                      {t("themes.paletteColor", { number: index + 1 })}
                    </label>
                  ))}
                </div>
              </fieldset>
              <fieldset className={styles.fieldset}>
                <legend>{t("themes.pdf")}</legend>
                <div className={styles.grid}>
                  <SelectField label={t("themes.orientation")} value={draft.settings.pdf.orientation}
                    options={[{ value: "portrait", label: t("themes.portrait") }, { value: "landscape", label: t("themes.landscape") }]}
                    onChange={(orientation) => set((s) => ({ ...s, pdf: { ...s.pdf, orientation } }))} />
                  {SIDES.map((side) => (
                    <TextField key={side} label={t(`themes.margin.${side}`)} type="number" min={5} max={40}
                      value={String(draft.settings.pdf.margins_mm[side])}
                      onChange={(value) => set((s) => ({ ...s, pdf: { ...s.pdf, margins_mm: { ...s.pdf.margins_mm, [side]: Math.max(5, Math.min(40, Number(value) || 5)) } } }))} />
                  ))}
                  <TextField label={t("themes.header")} value={draft.settings.pdf.header} maxLength={200}
                    onChange={(header) => set((s) => ({ ...s, pdf: { ...s.pdf, header } }))} />
                  <TextField label={t("themes.footer")} value={draft.settings.pdf.footer} maxLength={200}
                    onChange={(footer) => set((s) => ({ ...s, pdf: { ...s.pdf, footer } }))} />
                  <label className={styles.check}>
                    <input type="checkbox" checked={draft.settings.pdf.show_filters}
                      onChange={(event) => set((s) => ({ ...s, pdf: { ...s.pdf, show_filters: event.target.checked } }))} />
                    {t("themes.showFilters")}
                  </label>
                  <label className={styles.check}>
                    <input type="checkbox" checked={draft.settings.pdf.show_date}
                      onChange={(event) => set((s) => ({ ...s, pdf: { ...s.pdf, show_date: event.target.checked } }))} />
                    {t("themes.showDate")}
                  </label>
                </div>
              </fieldset>
              <fieldset className={styles.fieldset}>
                <legend>{t("themes.logo")}</legend>
                <label className={styles.file}>{t("themes.uploadLogo")}
                  <input type="file" accept="image/png,image/jpeg,image/webp"
                    onChange={(event) => { const file = event.target.files?.[0]; if (file) uploadLogo.mutate(file); event.target.value = ""; }} />
                </label>
                <p className={styles.hint}>{t("themes.logoHint")}</p>
                {current.has_logo && <Button onClick={() => removeLogo.mutate()}>{t("themes.removeLogo")}</Button>}
              </fieldset>
              <div className={styles.actions}>
                <Button variant="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>{t("themes.delete")}</Button>
                <Button variant="primary" onClick={() => save.mutate()} disabled={save.isPending || !draft.name.trim()}>{t("common.save")}</Button>
              </div>
              <p role="status" aria-live="polite">{save.isSuccess ? t("themes.saved") : ""}</p>
              <div className={styles.row}>
                <SelectField label={t("themes.folder")} value={folderId}
                  options={[{ value: "", label: t("themes.chooseFolder") },
                    ...editableFolders.map((folder) => ({ value: String(folder.folder_id), label: folder.name }))]}
                  onChange={(value) => { setFolderId(value); setApplied(false); }} />
                <Button onClick={() => apply.mutate()} disabled={!folderId || apply.isPending}>{t("themes.applyToFolder")}</Button>
              </div>
              <p role="status" aria-live="polite">{applied ? t("themes.applied") : ""}</p>
            </section>
            <section className={styles.panel} aria-labelledby="theme-preview">
              <h2 id="theme-preview">{t("themes.preview")}</h2>
              <ThemePreview settings={draft.settings} name={draft.name} logoThemeId={current.has_logo ? current.theme_id : null} />
            </section>
          </>
        )}
      </div>
    </div>
  );
}
