// A secret shown once (a password link, an API token: the server keeps only its hash), with a copy button.
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../../ui/Button";
import styles from "./Admin.module.css";

export function OneTimeSecret({ label, value }: { label: string; value: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <div className={styles.secret}>
      <p>{label}</p>
      <code data-testid="one-time-secret">{value}</code>
      <Button onClick={() => void navigator.clipboard.writeText(value).then(() => setCopied(true))}>
        {t("admin.copy")}
      </Button>
      <span role="status" aria-live="polite">{copied ? t("admin.copied") : ""}</span>
    </div>
  );
}
