// History: one's own statements (administrators may show everyone's); re-open one in the editor.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { useSession } from "../../app/session";
import { formatDateTime, formatNumber } from "../../i18n/i18n";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { SelectField } from "../../ui/SelectField";
import styles from "./RecordsPage.module.css";
import { historyQuery, ORIGINS } from "./historyQueries";

export default function HistoryPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const [everyone, setEveryone] = useState(false);
  const [origin, setOrigin] = useState<(typeof ORIGINS)[number]>("");
  const runs = useQuery(historyQuery(everyone, origin));
  return (
    <div className={styles.page}>
      <h1>{t("history.title")}</h1>
      <div className={styles.filters}>
        <SelectField label={t("history.origin")} value={origin}
          options={ORIGINS.map((o) => ({ value: o, label: o ? t(`history.originName.${o}`) : t("history.anyOrigin") }))}
          onChange={setOrigin} />
        {user.is_admin && (
          <label className={styles.check}>
            <input type="checkbox" checked={everyone} onChange={(e) => setEveryone(e.target.checked)} />
            {t("history.everyone")}
          </label>
        )}
      </div>
      <ErrorMessage error={runs.error} />
      <table className={styles.table}>
        <thead>
          <tr>
            <th scope="col">{t("history.when")}</th>
            {everyone && <th scope="col">{t("history.who")}</th>}
            <th scope="col">{t("history.statement")}</th>
            <th scope="col">{t("history.from")}</th>
            <th scope="col">{t("history.duration")}</th>
            <th scope="col">{t("history.rows")}</th>
            <th scope="col">{t("history.status")}</th>
          </tr>
        </thead>
        <tbody>
          {(runs.data ?? []).map((run) => (
            <tr key={run.query_id}>
              <td>{formatDateTime(run.started_at)}</td>
              {everyone && <td>{run.user_email ?? ""}</td>}
              <td>
                <code className={styles.sql}>{run.sql_text.length > 300 ? `${run.sql_text.slice(0, 300)}…` : run.sql_text}</code>
                <Link to={`/sql?sql=${encodeURIComponent(run.sql_text)}`} className={styles.reopen}>{t("history.reopen")}</Link>
              </td>
              <td>{t(`history.originName.${run.origin}`, { defaultValue: run.origin })}</td>
              <td>{run.duration_ms === null ? "" : t("results.time", { ms: formatNumber(run.duration_ms, { maximumFractionDigits: 0 }) })}</td>
              <td>{run.row_count === null ? "" : formatNumber(run.row_count)}</td>
              <td>{run.status === "ok" ? t("history.ok") : `${t(`history.statusName.${run.status}`, { defaultValue: run.status })}${run.error_code ? ` (${run.error_code})` : ""}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.data && runs.data.length === 0 && <p>{t("history.empty")}</p>}
    </div>
  );
}
