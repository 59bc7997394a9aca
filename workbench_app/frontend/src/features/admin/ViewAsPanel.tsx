// "View as": run a sample statement as a chosen person; their rows and columns, and which of
// their groups' grants decided for each table read.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { SelectField } from "../../ui/SelectField";
import styles from "./Admin.module.css";
import { peopleQuery } from "./adminQueries";

export function ViewAsPanel() {
  const { t } = useTranslation();
  const people = useQuery(peopleQuery());
  const [person, setPerson] = useState("");
  const [sql, setSql] = useState("");
  const preview = useMutation({
    mutationFn: () => data(api.POST("/users/{user_id}/preview", { params: { path: { user_id: Number(person) } }, body: { sql } })),
  });
  const answer = preview.data;

  function submit(event: FormEvent) {
    event.preventDefault();
    preview.mutate();
  }

  return (
    <form className={styles.panel} onSubmit={submit} aria-labelledby="view-as-title">
      <h2 id="view-as-title">{t("admin.viewAs.title")}</h2>
      <div className={styles.grid}>
        <SelectField label={t("admin.viewAs.person")} value={person} onChange={setPerson}
          options={[{ value: "", label: t("admin.viewAs.pickPerson") },
            ...(people.data ?? []).map((user) => ({ value: String(user.user_id), label: user.email }))]} />
      </div>
      <label className={styles.fieldLabel} htmlFor="view-as-sql">{t("admin.viewAs.sql")}</label>
      <textarea id="view-as-sql" className={styles.sqlInput} value={sql} onChange={(event) => setSql(event.target.value)}
        rows={3} spellCheck={false} />
      <div className={styles.actions}>
        <Button type="submit" variant="primary" disabled={!person || !sql.trim() || preview.isPending}>{t("admin.viewAs.run")}</Button>
      </div>
      <ErrorMessage error={preview.error ?? people.error} />
      {answer && (
        <div data-testid="view-as-answer" className={styles.attributes}>
          {answer.decisions.map((decision) => (
            <div key={decision.table}>
              <h3>{decision.table}</h3>
              {decision.grants.length === 0 && <p>{t("admin.viewAs.noGrant")}</p>}
              <ul>
                {decision.grants.map((grant) => (
                  <li key={grant.group}>
                    {grant.kind === "catalog" ? t("admin.viewAs.catalogGrant", { group: grant.group })
                      : !grant.access ? t("admin.viewAs.denied", { group: grant.group })
                      : t("admin.viewAs.tableRule", { group: grant.group })}
                    {grant.row_filter && <> — <code>{grant.row_filter}</code></>}
                    {grant.hidden_columns.length > 0 && <> — {t("admin.viewAs.hiddenList", { columns: grant.hidden_columns.join(", ") })}</>}
                    {Object.keys(grant.masked_columns).length > 0 && <> — {t("admin.viewAs.maskedList", {
                      columns: Object.entries(grant.masked_columns).map(([column, kind]) => `${column} (${kind})`).join(", ") })}</>}
                  </li>
                ))}
              </ul>
            </div>
          ))}
          {answer.refusal && <p role="alert" className={styles.failure}>{answer.refusal.message}</p>}
          {answer.result && (
            <table className={styles.table}>
              <caption>{t("admin.viewAs.rows", { count: answer.result.row_count })}</caption>
              <thead><tr>{answer.result.columns.map((column) => <th key={column.name} scope="col">{column.name}</th>)}</tr></thead>
              <tbody>
                {answer.result.rows.map((row, index) => (
                  <tr key={index}>{(row as unknown[]).map((cell, n) => <td key={n}>{cell === null ? "∅" : String(cell)}</td>)}</tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </form>
  );
}
