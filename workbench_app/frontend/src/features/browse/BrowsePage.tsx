// Browse: folders on the left (personal and shared), the questions of the chosen one on the
// right, searchable by name; move, rename and delete (the server checks each right).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate, useParams } from "react-router";
import { api, data } from "../../api/client";
import type { Folder, Question } from "../../api/models";
import { formatDateTime } from "../../i18n/i18n";
import { Button } from "../../ui/Button";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import styles from "./BrowsePage.module.css";
import { FOLDERS_KEY, QUESTIONS_KEY, questionsQuery } from "./browseQueries";
import { useSession } from "../../app/session";
import { useFolders } from "./SaveQuestionDialog";

/** Folders in tree order with their depth, for an indented list. */
export function folderTree(folders: readonly Folder[]): { folder: Folder; depth: number }[] {
  const children = new Map<number | null, Folder[]>();
  for (const folder of folders) {
    const parent = folders.some((f) => f.folder_id === folder.parent_id) ? folder.parent_id : null;
    children.set(parent, [...(children.get(parent) ?? []), folder]);
  }
  const ordered: { folder: Folder; depth: number }[] = [];
  const walk = (parent: number | null, depth: number) => {
    for (const folder of children.get(parent) ?? []) {
      ordered.push({ folder, depth });
      walk(folder.folder_id, depth + 1);
    }
  };
  walk(null, 0);
  return ordered;
}

type Pending = { kind: "delete-question"; question: Question } | { kind: "delete-folder"; folder: Folder }
  | { kind: "rename-question"; question: Question } | { kind: "move-question"; question: Question }
  | { kind: "rename-folder"; folder: Folder } | { kind: "new-folder"; parent: Folder | null };

export default function BrowsePage() {
  const { t } = useTranslation();
  const { folderId } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const folders = useFolders();
  const { user } = useSession();
  const [search, setSearch] = useState("");
  const [pending, setPending] = useState<Pending | null>(null);
  const [text, setText] = useState("");
  const [target, setTarget] = useState("");
  const tree = folderTree(folders.data ?? []);
  const selected = folderId ? tree.find((entry) => entry.folder.folder_id === Number(folderId))?.folder
    : tree.find((entry) => entry.folder.mine && entry.depth === 0)?.folder;
  const questions = useQuery({ ...questionsQuery(selected?.folder_id ?? null, search), enabled: folders.isSuccess });

  const change = useMutation({
    mutationFn: async (action: Pending) => {
      switch (action.kind) {
        case "delete-question":
          return data(api.DELETE("/questions/{question_id}", { params: { path: { question_id: action.question.question_id! } } }));
        case "rename-question":
          return data(api.PATCH("/questions/{question_id}", { params: { path: { question_id: action.question.question_id! } }, body: { name: text.trim() } }));
        case "move-question":
          return data(api.PATCH("/questions/{question_id}", { params: { path: { question_id: action.question.question_id! } }, body: { folder_id: Number(target) } }));
        case "delete-folder":
          return data(api.DELETE("/folders/{folder_id}", { params: { path: { folder_id: action.folder.folder_id } } }));
        case "rename-folder":
          return data(api.PATCH("/folders/{folder_id}", { params: { path: { folder_id: action.folder.folder_id } }, body: { name: text.trim() } }));
        case "new-folder":
          return data(api.POST("/folders", { body: { name: text.trim(), ...(action.parent ? { parent_id: action.parent.folder_id } : {}) } }));
      }
    },
    onSuccess: async (_, action) => {
      setPending(null);
      await queryClient.invalidateQueries({ queryKey: QUESTIONS_KEY });
      await queryClient.invalidateQueries({ queryKey: FOLDERS_KEY });
      if (action.kind === "delete-folder") void navigate("/browse");
    },
  });

  function ask(action: Pending, initialText = "") {
    change.reset();
    setText(initialText);
    setTarget(selected ? String(selected.folder_id) : "");
    setPending(action);
  }

  const editable = tree.filter((entry) => entry.folder.access === "edit");
  return (
    <div className={styles.page}>
      <nav className={styles.folders} aria-label={t("browse.folders")}>
        <h1>{t("browse.title")}</h1>
        <ErrorMessage error={folders.error} />
        {user.is_admin && <Button onClick={() => ask({ kind: "new-folder", parent: null })}>{t("browse.newSharedFolder")}</Button>}
        <ul>
          {tree.map(({ folder, depth }) => (
            <li key={folder.folder_id} style={{ paddingInlineStart: `${depth}rem` }}>
              <Link to={`/browse/${folder.folder_id}`} aria-current={folder.folder_id === selected?.folder_id ? "page" : undefined}
                className={folder.folder_id === selected?.folder_id ? styles.current : undefined}>
                {folder.mine && depth === 0 ? t("browse.personal") : folder.name}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <section className={styles.content} aria-labelledby="folder-title">
        <div className={styles.heading}>
          <h2 id="folder-title">{search ? t("browse.searchResults") : selected?.mine && selected.parent_id === null ? t("browse.personal") : selected?.name}</h2>
          {selected?.access === "edit" && !search && (
            <div className={styles.actions}>
              <Button onClick={() => ask({ kind: "new-folder", parent: selected })}>{t("browse.newFolder")}</Button>
              {!(selected.personal && selected.parent_id === null) && (
                <>
                  <Button onClick={() => ask({ kind: "rename-folder", folder: selected }, selected.name)}>{t("browse.rename")}</Button>
                  <Button variant="danger" onClick={() => ask({ kind: "delete-folder", folder: selected })}>{t("browse.delete")}</Button>
                </>
              )}
            </div>
          )}
        </div>
        <TextField label={t("browse.search")} type="search" value={search} onChange={setSearch} />
        <ErrorMessage error={questions.error} />
        {questions.data && questions.data.length === 0 && <p>{t("browse.empty")}</p>}
        <ul className={styles.questions}>
          {(questions.data ?? []).map((question) => (
            <li key={question.question_id} className={styles.question}>
              <div>
                <Link to={`/questions/${question.question_id}`} className={styles.questionName}>{question.name}</Link>
                <span className={styles.meta}>
                  {t(`browse.kind.${question.kind ?? "sql"}`)}{question.updated_at ? ` · ${formatDateTime(question.updated_at)}` : ""}
                </span>
              </div>
              <div className={styles.actions}>
                <Button variant="ghost" onClick={() => ask({ kind: "rename-question", question }, question.name ?? "")}
                  aria-label={t("browse.renameNamed", { name: question.name })}>{t("browse.rename")}</Button>
                <Button variant="ghost" onClick={() => ask({ kind: "move-question", question })}
                  aria-label={t("browse.moveNamed", { name: question.name })}>{t("browse.move")}</Button>
                <Button variant="ghost" onClick={() => ask({ kind: "delete-question", question })}
                  aria-label={t("browse.deleteNamed", { name: question.name })}>{t("browse.delete")}</Button>
              </div>
            </li>
          ))}
        </ul>
      </section>
      {pending && (
        <ConfirmDialog
          title={t(`browse.confirm.${pending.kind}`, { name: "question" in pending ? pending.question.name : "folder" in pending ? pending.folder.name : "" })}
          confirmLabel={t(pending.kind.startsWith("delete") ? "browse.delete" : "common.save")}
          danger={pending.kind.startsWith("delete")}
          onConfirm={() => change.mutate(pending)} onCancel={() => setPending(null)}>
          {(pending.kind === "rename-question" || pending.kind === "rename-folder" || pending.kind === "new-folder") && (
            <TextField label={t("browse.name")} value={text} onChange={setText} required maxLength={200} />
          )}
          {pending.kind === "move-question" && (
            <SelectField label={t("browse.moveTo")} value={target}
              options={editable.map(({ folder, depth }) => ({ value: String(folder.folder_id),
                label: `${"· ".repeat(depth)}${folder.mine && depth === 0 ? t("browse.personal") : folder.name}` }))}
              onChange={setTarget} />
          )}
          <ErrorMessage error={change.error} />
        </ConfirmDialog>
      )}
    </div>
  );
}
