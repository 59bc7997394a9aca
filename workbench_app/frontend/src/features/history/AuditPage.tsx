// The audit log (administrators): sign-ins, permissions, sources, tokens, shares; filtered by kind,
// person and day on the server.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { formatDateTime } from "../../i18n/i18n";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import styles from "./RecordsPage.module.css";
import { auditQuery } from "./historyQueries";

const KINDS = ["", "sign_in", "user", "permissions", "source", "token", "folder", "question", "dashboard"] as const;

export default function AuditPage() {
  const { t } = useTranslation();
  const [kind, setKind] = useState<(typeof KINDS)[number]>("");
  const [person, setPerson] = useState("");
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  const filters = { ...(kind ? { action: kind } : {}), ...(person.trim() ? { actor: person.trim() } : {}),
    ...(since ? { since } : {}), ...(until ? { until } : {}) };
  const entries = useQuery({ ...auditQuery(filters), placeholderData: (previous) => previous });
  const shown = entries.data ?? [];
  return (
    <div className={styles.page}>
      <h1>{t("audit.title")}</h1>
      <div className={styles.filters}>
        <SelectField label={t("audit.kind")} value={kind}
          options={KINDS.map((k) => ({ value: k, label: k ? t(`audit.kindName.${k}`) : t("audit.anyKind") }))} onChange={setKind} />
        <TextField label={t("audit.person")} value={person} onChange={setPerson} />
        <TextField label={t("audit.since")} type="date" value={since} onChange={setSince} />
        <TextField label={t("audit.until")} type="date" value={until} onChange={setUntil} />
      </div>
      <ErrorMessage error={entries.error} />
      <table className={styles.table}>
        <thead>
          <tr>
            <th scope="col">{t("history.when")}</th>
            <th scope="col">{t("audit.actor")}</th>
            <th scope="col">{t("audit.action")}</th>
            <th scope="col">{t("audit.target")}</th>
            <th scope="col">{t("audit.details")}</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((entry) => (
            <tr key={entry.entry_id}>
              <td>{formatDateTime(entry.at)}</td>
              <td>{entry.actor}</td>
              <td><code>{entry.action}</code></td>
              <td>{entry.target ?? ""}</td>
              <td><code className={styles.sql}>{JSON.stringify(entry.details)}</code></td>
            </tr>
          ))}
        </tbody>
      </table>
      {entries.data && shown.length === 0 && <p>{t("audit.empty")}</p>}
    </div>
  );
}
