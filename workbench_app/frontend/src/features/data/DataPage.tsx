// Data: catalogs -> schemas -> tables -> columns with type and description (the SQL comments the
// pipeline writes); only what the person may see. Sample rows on demand.
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import type { components } from "../../api/schema";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { TextField } from "../../ui/TextField";
import { ResultTable } from "../results/ResultTable";
import type { Result } from "../results/types";
import styles from "./DataPage.module.css";
import { schemaQuery } from "./dataQueries";

// The schema browser's shapes, from the generated OpenAPI schema.
export type SchemaColumn = components["schemas"]["TableColumn"];
export type TableFreshness = components["schemas"]["TableFreshness"];
export type SchemaTable = components["schemas"]["Table"];

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const qualifiedName = (table: SchemaTable) => [table.catalog, table.schema, table.table].map(quote).join(".");

/** Tables grouped by catalog, then schema, in name order. */
export function groupTables(tables: readonly SchemaTable[]): Map<string, Map<string, SchemaTable[]>> {
  const grouped = new Map<string, Map<string, SchemaTable[]>>();
  for (const table of [...tables].sort((a, b) => `${a.catalog}.${a.schema}.${a.table}`.localeCompare(`${b.catalog}.${b.schema}.${b.table}`))) {
    const schemas = grouped.get(table.catalog) ?? new Map<string, SchemaTable[]>();
    schemas.set(table.schema, [...(schemas.get(table.schema) ?? []), table]);
    grouped.set(table.catalog, schemas);
  }
  return grouped;
}

/** Where a warehouse table is read from (the lake, PostgreSQL) and how fresh that is. */
function FreshnessNote({ freshness }: { freshness: TableFreshness }) {
  const { t, i18n } = useTranslation();
  const when = freshness.refreshed_at
    ? new Date(freshness.refreshed_at).toLocaleString(i18n.language, { dateStyle: "medium", timeStyle: "short" })
    : null;
  const lines = [t(`data.freshness.${freshness.source}`, { day: freshness.postgres_from ?? "" })];
  if (when) lines.push(t("data.freshness.refreshed", { when, day: freshness.newest_day ?? "—" }));
  if (freshness.warning) lines.push(t(`data.freshness.warning.${freshness.warning}`));
  return (
    <p className={styles.freshness} data-testid="table-freshness" role={freshness.warning ? "status" : undefined}>
      {lines.join(" ")}
    </p>
  );
}

export default function DataPage() {
  const { t } = useTranslation();
  const [search, setSearch] = useState("");
  const [chosen, setChosen] = useState<SchemaTable | null>(null);
  const [sample, setSample] = useState<Result | null>(null);
  const [sampleError, setSampleError] = useState<unknown>(null);
  const schema = useQuery({ ...schemaQuery(search), placeholderData: (previous) => previous });
  const grouped = useMemo(() => groupTables(schema.data ?? []), [schema.data]);
  const current = chosen && (schema.data ?? []).find((t2) => qualifiedName(t2) === qualifiedName(chosen)) || chosen;

  async function loadSample(table: SchemaTable) {
    setSampleError(null);
    try {
      setSample(await data(api.POST("/sql", { body: { sql: `SELECT * FROM ${qualifiedName(table)} LIMIT 20` } })));
    } catch (error) {
      setSampleError(error);
    }
  }

  return (
    <div className={styles.page}>
      <section className={styles.tree} aria-labelledby="data-title">
        <h1 id="data-title">{t("data.title")}</h1>
        <TextField label={t("data.search")} type="search" value={search} onChange={setSearch} hint={t("data.searchHint")} />
        <ErrorMessage error={schema.error} />
        {[...grouped].map(([catalog, schemas]) => (
          <details key={catalog} open>
            <summary className={styles.catalog}>{catalog}</summary>
            {[...schemas].map(([schemaName, tables]) => (
              <details key={schemaName} open className={styles.schema}>
                <summary>{schemaName}</summary>
                <ul>
                  {tables.map((table) => (
                    <li key={table.table}>
                      <button type="button" className={styles.tableButton}
                        aria-pressed={current ? qualifiedName(current) === qualifiedName(table) : false}
                        onClick={() => { setChosen(table); setSample(null); }}>
                        {table.table}
                      </button>
                    </li>
                  ))}
                </ul>
              </details>
            ))}
          </details>
        ))}
        {schema.data && schema.data.length === 0 && <p>{t("data.nothing")}</p>}
      </section>
      <section className={styles.detail} aria-live="polite">
        {current ? (
          <>
            <h2>{current.catalog}.{current.schema}.{current.table}</h2>
            {current.description && <p className={styles.description}>{current.description}</p>}
            {current.freshness && <FreshnessNote freshness={current.freshness} />}
            <table className={styles.columns}>
              <caption>{t("data.columns")}</caption>
              <thead>
                <tr><th scope="col">{t("data.column")}</th><th scope="col">{t("data.type")}</th><th scope="col">{t("data.description")}</th></tr>
              </thead>
              <tbody>
                {(current.columns ?? []).map((column) => (
                  <tr key={column.name}>
                    <th scope="row">{column.name}</th>
                    <td><code>{column.type}</code>{column.masked && <span className={styles.masked}> · {t("data.masked")}</span>}</td>
                    <td>{column.description ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div><Button onClick={() => void loadSample(current)}>{t("data.sample")}</Button></div>
            <ErrorMessage error={sampleError} />
            {sample && <ResultTable result={sample} fileName={current.table} />}
          </>
        ) : <p>{t("data.choose")}</p>}
      </section>
    </div>
  );
}
