// One table rule of a group: the table, access, a row filter checked by the server as it is typed
// (the engine's dialect, the table's columns; a quoted {{user.<attribute>}} is warned about),
// hidden columns and masked columns with their kind.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import styles from "./Admin.module.css";
import { schemaQuery } from "../data/dataQueries";

type RuleCheck = components["schemas"]["RuleCheck"];
type MaskKind = "" | "null" | "hash" | "partial";
const MASK_KINDS: readonly MaskKind[] = ["", "null", "hash", "partial"];
const CHECK_DELAY_MS = 300;

/** A rule as the editor starts from: a stored one's fields (GET /groups/{id}/permissions). */
export type RuleDraft = Pick<components["schemas"]["GroupRule"],
  "catalog" | "schema" | "table" | "access" | "row_filter" | "hidden_columns" | "masked_columns">;

export function RuleEditor({ groupId, initial, onSaved, onCancel }: {
  groupId: number; initial: RuleDraft | null; onSaved: () => void; onCancel: () => void;
}) {
  const { t } = useTranslation();
  const tables = useQuery(schemaQuery(""));
  const [table, setTable] = useState(initial ? `${initial.catalog}.${initial.schema}.${initial.table}` : "");
  const [access, setAccess] = useState(initial?.access ?? true);
  const [rowFilter, setRowFilter] = useState(initial?.row_filter ?? "");
  const [hidden, setHidden] = useState<string[]>(initial?.hidden_columns ?? []);
  const [masks, setMasks] = useState<Record<string, MaskKind>>(() => Object.fromEntries(
    Object.entries(initial?.masked_columns ?? {}).map(([column, mask]) => [column, mask.kind as MaskKind])));
  const [verdict, setVerdict] = useState<RuleCheck | null>(null);
  const [catalog, schema, name] = splitTable(table);

  // The server checks the filter as it is typed: the same parser and columns the engine uses.
  useEffect(() => {
    if (!name) return undefined;
    let current = true;
    const timer = window.setTimeout(() => {
      void data(api.POST("/rules/check", { body: { catalog, schema, table: name, row_filter: rowFilter || null } }))
        .then((answer) => { if (current) setVerdict(answer); })
        .catch(() => undefined);
    }, CHECK_DELAY_MS);
    return () => { current = false; window.clearTimeout(timer); };
  }, [catalog, schema, name, rowFilter]);

  const save = useMutation({
    mutationFn: () => data(api.POST("/groups/{group_id}/rules", {
      params: { path: { group_id: groupId } },
      body: { catalog, schema, table: name, access, row_filter: rowFilter.trim() ? rowFilter : null, hidden_columns: hidden,
        masked_columns: Object.fromEntries(Object.entries(masks).filter(([, kind]) => kind).map(([column, kind]) => [column, { kind: kind as "null" }])) },
    })),
    onSuccess: onSaved,
  });
  const columns = verdict?.columns ?? [];

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }

  return (
    <form className={styles.panel} onSubmit={submit} aria-labelledby="rule-title">
      <h3 id="rule-title">{initial ? t("admin.rules.editTitle", { table }) : t("admin.rules.addTitle")}</h3>
      <SelectField label={t("admin.rules.table")} value={table} onChange={(value) => { setTable(value); setVerdict(null); }}
        options={[{ value: "", label: t("admin.rules.pickTable") }, ...(tables.data ?? []).map((item) => {
          const full = `${item.catalog}.${item.schema}.${item.table}`;
          return { value: full, label: full };
        }), ...(initial && !(tables.data ?? []).some((item) => `${item.catalog}.${item.schema}.${item.table}` === table)
          ? [{ value: table, label: table }] : [])]} />
      <label className={styles.check}>
        <input type="checkbox" checked={access} onChange={(event) => setAccess(event.target.checked)} />
        {t("admin.rules.access")}
      </label>
      <TextField label={t("admin.rules.rowFilter")} value={rowFilter} onChange={setRowFilter} spellCheck={false}
        hint={t("admin.rules.rowFilterHint", { example: "region = {{user.region}}" })}
        error={verdict?.problems.map((problem) => problem.message).join(" ") || undefined} />
      <div aria-live="polite" data-testid="rule-check">
        {verdict?.warnings.map((warning) => <p key={warning.message} className={styles.warning}>{warning.message}</p>)}
        {verdict?.valid && rowFilter.trim() && verdict.warnings.length === 0 && (
          <p className={styles.success}>{t("admin.rules.filterOk")}</p>
        )}
      </div>
      {columns.length > 0 && (
        <table className={styles.table}>
          <caption className={styles.caption}>{t("admin.rules.columns")}</caption>
          <thead>
            <tr>
              <th scope="col">{t("admin.rules.column")}</th>
              <th scope="col">{t("admin.rules.hidden")}</th>
              <th scope="col">{t("admin.rules.mask")}</th>
            </tr>
          </thead>
          <tbody>
            {columns.map((column) => (
              <tr key={column}>
                <th scope="row">{column}</th>
                <td>
                  <input type="checkbox" aria-label={t("admin.rules.hideNamed", { column })} checked={hidden.includes(column)}
                    onChange={(event) => setHidden(event.target.checked ? [...hidden, column] : hidden.filter((c) => c !== column))} />
                </td>
                <td>
                  <SelectField label={t("admin.rules.maskNamed", { column })} hideLabel value={masks[column] ?? ""}
                    onChange={(kind) => setMasks({ ...masks, [column]: kind })}
                    options={MASK_KINDS.map((kind) => ({ value: kind, label: t(`admin.rules.maskKind.${kind || "none"}`) }))} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorMessage error={save.error ?? tables.error} />
      <div className={styles.actions}>
        <Button onClick={onCancel}>{t("common.cancel")}</Button>
        <Button type="submit" variant="primary" disabled={!name || save.isPending}>{t("common.save")}</Button>
      </div>
    </form>
  );
}

function splitTable(full: string): [string, string, string] {
  const [catalog = "", schema = "", ...rest] = full.split(".");
  return [catalog, schema, rest.join(".")];
}
