import { useTranslation } from "react-i18next";
import { ApiError, NetworkError } from "../api/client";
import styles from "./ErrorMessage.module.css";

/** A refusal as the server worded it (in the person's language), or what went wrong on the way. */
export function ErrorMessage({ error, onRetry }: { error: unknown; onRetry?: (() => void) | undefined }) {
  const { t } = useTranslation();
  if (!error) return null;
  const message = error instanceof ApiError ? error.message
    : error instanceof NetworkError || error instanceof TypeError ? t("error.network")
    : t("error.unexpected");
  return (
    <div role="alert" className={styles.error}>
      <span>{message}</span>
      {onRetry && <button type="button" className={styles.retry} onClick={onRetry}>{t("error.retry")}</button>}
    </div>
  );
}
