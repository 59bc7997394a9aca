// The modal both "Subscriptions" and "Alerts" open from a dashboard's or a question's page: the
// list of what the person may see for that target, with a form to create one or edit one.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { OneTimeSecret } from "../admin/OneTimeSecret";
import styles from "../sharing/Sharing.module.css";
import type { SendingDraft } from "./sendingDraft";
import { SENDINGS_KEY } from "./subscriptionQueries";
import own from "./Subscriptions.module.css";
import { useModalDialog } from "../../ui/useModalDialog";

export function SendingDialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const { t } = useTranslation();
  const ref = useModalDialog();
  return (
    <dialog ref={ref} className={`${styles.dialog} ${own.wide}`} aria-labelledby="sending-title" onCancel={onClose}>
      <h2 id="sending-title">{title}</h2>
      {children}
      <div className={styles.actions}>
        <Button onClick={onClose}>{t("sharing.close")}</Button>
      </div>
    </dialog>
  );
}

/** What is being created (`id` null) or edited, and its saving: the list's forms share it. */
export function useSendingEditor<E extends { id: number | null; draft: SendingDraft }>(
  persist: (editing: E) => Promise<{ webhook_secret?: string | null | undefined }>,
) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<E | null>(null);
  const save = useMutation({
    mutationFn: persist,
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ queryKey: SENDINGS_KEY });
      // A new webhook's signing key is shown once: the form stays open to show it.
      if (!saved.webhook_secret) setEditing(null);
    },
  });
  return {
    editing, setEditing, save,
    start: (next: E) => { save.reset(); setEditing(next); },
    set: (changes: Partial<SendingDraft>) => setEditing((old) => old && { ...old, draft: { ...old.draft, ...changes } }),
  };
}

/** The create-or-edit form's frame: its heading, its fields, the refusal, save and cancel. */
export function SendingForm<E extends { id: number | null; draft: SendingDraft }>({ editor, editing, headings, children }: {
  editor: ReturnType<typeof useSendingEditor<E>>; editing: E; headings: [string, string]; children: ReactNode;
}) {
  const { t } = useTranslation();
  const { save } = editor;
  const secret = save.data?.webhook_secret;
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate(editing);
  }
  const heading = editing.id === null ? headings[0] : headings[1];
  return (
    <form className={styles.panel} aria-labelledby="sending-form-title" onSubmit={submit}>
      <h3 id="sending-form-title">{heading}</h3>
      {children}
      <ErrorMessage error={save.error} />
      {secret && <OneTimeSecret label={t("subscriptions.webhookSecretOnce")} value={secret} />}
      <div className={styles.actions}>
        <Button onClick={() => editor.setEditing(null)}>{t("common.cancel")}</Button>
        <Button type="submit" variant="primary" disabled={save.isPending}>{t("common.save")}</Button>
      </div>
    </form>
  );
}
