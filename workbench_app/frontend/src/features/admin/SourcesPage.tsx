// Sources (administrators): each kind connected with its own form, tested before saving; the
// schema re-read on demand; a source removed after a confirmation. Passwords never come back.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import { Button } from "../../ui/Button";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import styles from "./Admin.module.css";
import { sourcesQuery } from "./adminQueries";
import { SCHEMA_KEY } from "../data/dataQueries";
import { SourceForm, type Source } from "./SourceForm";

export default function SourcesPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Source | "new" | null>(null);
  const [removing, setRemoving] = useState<Source | null>(null);
  const [refreshed, setRefreshed] = useState(false);
  const sources = useQuery(sourcesQuery());
  const changed = () => {
    void queryClient.invalidateQueries({ queryKey: sourcesQuery().queryKey });
    // Tables of the schema browser and the editor's completions follow the sources.
    void queryClient.invalidateQueries({ queryKey: SCHEMA_KEY });
  };
  const refresh = useMutation({
    mutationFn: () => data(api.POST("/sources/refresh")),
    onMutate: () => setRefreshed(false),
    onSuccess: () => { setRefreshed(true); changed(); },
  });
  const remove = useMutation({
    mutationFn: (source: Source) => data(api.DELETE("/sources/{source_id}", { params: { path: { source_id: source.source_id } } })),
    onSuccess: () => { setRemoving(null); changed(); },
  });

  return (
    <div className={styles.page}>
      <PageHeader title={t("admin.sources.title")}>
        <Button onClick={() => refresh.mutate()} disabled={refresh.isPending}>{t("admin.sources.refresh")}</Button>
        <Button variant="primary" onClick={() => setEditing("new")}>{t("admin.sources.add")}</Button>
      </PageHeader>
      <p role="status" aria-live="polite">{refreshed ? t("admin.sources.refreshed") : ""}</p>
      <ErrorMessage error={sources.error ?? refresh.error ?? remove.error} />
      {editing && (
        <SourceForm key={editing === "new" ? "new" : editing.source_id} source={editing === "new" ? null : editing}
          onCancel={() => setEditing(null)} onSaved={() => { setEditing(null); changed(); }} />
      )}
      <table className={styles.table}>
        <caption className={styles.caption}>{t("admin.sources.title")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("admin.sources.name")}</th>
            <th scope="col">{t("admin.sources.kind")}</th>
            <th scope="col">{t("admin.sources.status")}</th>
            <th scope="col">{t("admin.sources.password")}</th>
            <th scope="col"><span className={styles.visuallyHidden}>{t("admin.actions")}</span></th>
          </tr>
        </thead>
        <tbody>
          {(sources.data ?? []).map((source) => (
            <tr key={source.source_id}>
              <th scope="row">{source.name}</th>
              <td>{t(`admin.sources.kindName.${source.kind}`)}</td>
              <td>
                {source.status === "attached" ? t("admin.sources.attached") : t("admin.sources.unavailable")}
                {source.error && <span className={styles.muted}> — {source.error}</span>}
              </td>
              <td>{source.has_password ? t("admin.sources.set") : t("admin.sources.notSet")}</td>
              <td className={styles.rowActions}>
                <Button onClick={() => setEditing(source)} aria-label={t("admin.sources.editNamed", { name: source.name })}>
                  {t("admin.edit")}
                </Button>
                {source.kind !== "warehouse" && (
                  <Button variant="danger" onClick={() => setRemoving(source)}
                    aria-label={t("admin.sources.removeNamed", { name: source.name })}>{t("admin.remove")}</Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {removing && (
        <ConfirmDialog title={t("admin.sources.removeTitle", { name: removing.name })} danger
          confirmLabel={t("admin.remove")} onCancel={() => setRemoving(null)} onConfirm={() => remove.mutate(removing)}>
          <p>{t("admin.sources.removeText")}</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
