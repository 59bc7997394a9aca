import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../../ui/Button";
import dialogStyles from "../../ui/ConfirmDialog.module.css";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { foldersQuery } from "./browseQueries";

export function useFolders() {
  return useQuery(foldersQuery());
}

/** Name a question and pick a folder where the person may edit (the server checks the right again). */
export function SaveQuestionDialog({ initialName, initialFolder, onSave, onCancel }: {
  initialName: string; initialFolder?: number | undefined;
  onSave: (name: string, folderId: number | undefined) => Promise<void>; onCancel: () => void;
}) {
  const { t } = useTranslation();
  const folders = useFolders();
  const editable = (folders.data ?? []).filter((folder) => folder.access === "edit");
  const [name, setName] = useState(initialName);
  const [folder, setFolder] = useState(initialFolder ? String(initialFolder) : "");
  const [error, setError] = useState<unknown>(null);
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      await onSave(name.trim(), folder ? Number(folder) : undefined);
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <dialog ref={ref} className={dialogStyles.dialog} aria-labelledby="save-title" onCancel={onCancel}>
      <form onSubmit={submit} style={{ display: "grid", gap: "var(--space-3)" }}>
        <h2 id="save-title">{t("save.title")}</h2>
        <TextField label={t("save.name")} value={name} onChange={setName} required maxLength={200} autoFocus />
        <SelectField label={t("save.folder")} value={folder}
          options={[{ value: "", label: t("save.personalFolder") },
            ...editable.filter((f) => !(f.mine && f.parent_id === null)).map((f) => ({ value: String(f.folder_id), label: f.name }))]}
          onChange={setFolder} />
        <ErrorMessage error={error} />
        <div className={dialogStyles.actions}>
          <Button onClick={onCancel}>{t("common.cancel")}</Button>
          <Button type="submit" variant="primary" disabled={!name.trim()}>{t("save.submit")}</Button>
        </div>
      </form>
    </dialog>
  );
}
