import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "./Button";
import styles from "./ConfirmDialog.module.css";
import { useModalDialog } from "./useModalDialog";

/** A modal question (the native <dialog>: focus kept inside, Escape cancels). */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, onCancel, danger }: {
  title: string; children?: ReactNode; confirmLabel: string; onConfirm: () => void; onCancel: () => void; danger?: boolean;
}) {
  const { t } = useTranslation();
  const ref = useModalDialog();
  return (
    <dialog ref={ref} className={styles.dialog} aria-labelledby="confirm-title" onCancel={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      {children}
      <div className={styles.actions}>
        <Button onClick={onCancel}>{t("common.cancel")}</Button>
        <Button variant={danger ? "danger" : "primary"} onClick={onConfirm}>{confirmLabel}</Button>
      </div>
    </dialog>
  );
}
