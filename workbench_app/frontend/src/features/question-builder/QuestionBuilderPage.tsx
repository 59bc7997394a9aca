// The question builder: pick a table, filter, summarize, join one more table, sort, limit. The
// server compiles the definition and runs it under the same permissions as any statement; the
// result updates as the question is built. "View as SQL" opens the compiled statement in the editor.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useSearchParams } from "react-router";
import { api, data } from "../../api/client";
import { downloadBuilderCsv } from "../../api/statementRun";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { QuestionSendingButtons } from "../subscriptions/AlertsButton";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { SaveQuestionDialog } from "../browse/SaveQuestionDialog";
import { QUESTIONS_KEY, questionQuery, saveQuestion } from "../browse/browseQueries";
import { readSpec, type ChartSpec } from "../charts/chartSpec";
import { schemaQuery } from "../data/dataQueries";
import { ResultPanel } from "../results/ResultPanel";
import { QuestionTheme } from "../themes/QuestionTheme";
import { resultColumns } from "../results/types";
import {
  BUCKETS, emptyState, FUNCTIONS, kindOf, kindKey, operatorsFor, RELATIVE_UNITS, sortOptions, toDefinition,
  type BuilderState, type ColumnChoice, type ColumnKind, type FilterRow, type TableRef,
} from "./builderDefinition";
import styles from "./QuestionBuilderPage.module.css";
import { builderRunQuery } from "./builderQueries";

const tableKey = (table: TableRef | null) => (table ? `${table.catalog}.${table.schema}.${table.table}` : "");
const choiceKey = (choice: ColumnChoice | null) => (choice ? `${choice.source}:${choice.name}` : "");
const parseChoice = (key: string): ColumnChoice | null => {
  const [source, ...name] = key.split(":");
  return source === "base" || source === "join" ? { source, name: name.join(":") } : null;
};

function useDebounced<T>(value: T, delay: number): T {
  const [current, setCurrent] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setCurrent(value), delay);
    return () => window.clearTimeout(timer);
  }, [value, delay]);
  return current;
}

export default function QuestionBuilderPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const questionId = params.get("question");
  const [state, setState] = useState<BuilderState>(emptyState);
  const [spec, setSpec] = useState<ChartSpec | null>(null);
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const tables = useQuery(schemaQuery(""));
  const question = useQuery({ ...questionQuery(Number(questionId)), enabled: questionId !== null });
  useEffect(() => {
    const saved = question.data?.builder as { state?: BuilderState } | null | undefined;
    if (saved?.state) setState(saved.state);
  }, [question.data]);

  const byKey = useMemo(() => new Map((tables.data ?? []).map((table) => [tableKey(table), table])), [tables.data]);
  const base = byKey.get(tableKey(state.table));
  const joined = byKey.get(tableKey(state.join.table));
  const joinReady = joined !== undefined && state.join.on.some((p) => p.left && p.right);
  const choices: { choice: ColumnChoice; label: string; kind: ColumnKind }[] = [
    ...(base?.columns ?? []).map((c) => ({ choice: { source: "base" as const, name: c.name }, label: c.name, kind: kindOf(c.type) })),
    ...(joined && joinReady
      ? (joined.columns ?? []).map((c) => ({ choice: { source: "join" as const, name: c.name }, label: `${joined.table}.${c.name}`, kind: kindOf(c.type) }))
      : []),
  ];
  const kinds = Object.fromEntries(choices.map(({ choice, kind }) => [kindKey(choice), kind]));
  const definition = useMemo(() => toDefinition(state, kinds), [state, JSON.stringify(kinds)]); // eslint-disable-line react-hooks/exhaustive-deps
  const pending = useDebounced(definition, 400);
  const result = useQuery({ ...builderRunQuery(pending, 2000), placeholderData: (previous) => previous });

  const update = (change: Partial<BuilderState>) => setState((old) => ({ ...old, ...change }));
  const columnOptions = [{ value: "", label: "—" }, ...choices.map(({ choice, label }) => ({ value: choiceKey(choice), label }))];
  const tableOptions = [{ value: "", label: "—" }, ...(tables.data ?? []).map((table) => ({ value: tableKey(table), label: tableKey(table) }))];
  const pickTable = (key: string): TableRef | null => {
    const table = byKey.get(key);
    return table ? { catalog: table.catalog, schema: table.schema, table: table.table } : null;
  };

  async function viewAsSql() {
    if (!definition) return;
    const compiled = await data(api.POST("/builder/sql", { body: { builder: definition } }));
    void navigate(`/sql?sql=${encodeURIComponent(compiled.sql)}`);
  }

  async function save(name: string, folderId: number | undefined) {
    const columns = result.data ? resultColumns(result.data) : [];
    const body = {
      name, kind: "builder" as const, builder: definition ? { ...definition, state: { ...state } } : undefined,
      visualization: { ...(spec ?? (result.data ? readSpec(null, columns, result.data.row_count) : {})) },
      ...(folderId ? { folder_id: folderId } : {}),
    };
    const saved = await saveQuestion(question.data?.question_id, body);
    setSaving(false);
    setNotice(t("save.saved", { name }));
    await queryClient.invalidateQueries({ queryKey: QUESTIONS_KEY });
    if (!question.data && saved.question_id) void navigate(`/question/new?question=${saved.question_id}`, { replace: true });
  }

  const columns = result.data ? resultColumns(result.data) : [];
  const chartSpec = result.data ? spec ?? readSpec(question.data?.visualization, columns, result.data.row_count) : null;
  const setFilter = (index: number, change: Partial<FilterRow>) =>
    update({ filters: state.filters.map((row, i) => (i === index ? { ...row, ...change } : row)) });

  return (
    <div className={styles.page}>
      <PageHeader title={question.data?.name ?? t("builder.title")}>
        <Button onClick={() => void viewAsSql()} disabled={!definition}>{t("builder.viewSql")}</Button>
        <Button variant="primary" onClick={() => setSaving(true)} disabled={!definition}>{t("sql.save")}</Button>
        {question.data && <QuestionSendingButtons questionId={question.data.question_id} name={question.data.name} />}
      </PageHeader>
      <section className={styles.steps} aria-label={t("builder.steps")}>
        <fieldset className={styles.step}>
          <legend>{t("builder.data")}</legend>
          <SelectField label={t("builder.table")} value={tableKey(state.table)} options={tableOptions}
            onChange={(key) => setState({ ...emptyState(), table: pickTable(key) })} />
        </fieldset>

        <fieldset className={styles.step} disabled={!state.table}>
          <legend>{t("builder.filters")}</legend>
          {state.filters.map((row, index) => {
            const kind = (row.column && kinds[kindKey(row.column)]) ?? "text";
            return (
              <div key={index} className={styles.row}>
                <SelectField label={t("builder.column")} value={choiceKey(row.column)} options={columnOptions}
                  onChange={(key) => {
                    const column = parseChoice(key);
                    const nextKind = (column && kinds[kindKey(column)]) ?? "text";
                    setFilter(index, { column, operator: operatorsFor(nextKind)[0]!, value: "", value2: "" });
                  }} />
                <SelectField label={t("builder.operator")} value={row.operator}
                  options={operatorsFor(kind).map((op) => ({ value: op, label: t(`builder.op.${op}`) }))}
                  onChange={(operator) => setFilter(index, { operator })} />
                {row.operator === "relative" ? (
                  <>
                    <TextField label={t("builder.last")} type="number" min={1} value={String(row.relative.last)}
                      onChange={(v) => setFilter(index, { relative: { ...row.relative, last: Math.max(1, Number(v) || 1) } })} />
                    <SelectField label={t("builder.unit")} value={row.relative.unit}
                      options={RELATIVE_UNITS.map((u) => ({ value: u, label: t(`builder.unit.${u}`) }))}
                      onChange={(unit) => setFilter(index, { relative: { ...row.relative, unit } })} />
                  </>
                ) : row.operator !== "is empty" && row.operator !== "is not empty" && (
                  <TextField label={row.operator === "between" ? t("builder.from") : t("builder.value")} value={row.value}
                    type={kind === "temporal" ? "date" : "text"} hint={row.operator === "in" ? t("sql.listHint") : undefined}
                    onChange={(value) => setFilter(index, { value })} />
                )}
                {row.operator === "between" && (
                  <TextField label={t("builder.to")} value={row.value2} type={kind === "temporal" ? "date" : "text"}
                    onChange={(value2) => setFilter(index, { value2 })} />
                )}
                <Button variant="ghost" onClick={() => update({ filters: state.filters.filter((_, i) => i !== index) })}
                  aria-label={t("builder.removeFilter", { n: index + 1 })}>✕</Button>
              </div>
            );
          })}
          <Button onClick={() => update({ filters: [...state.filters, { column: null, operator: "=", value: "", value2: "",
            relative: { last: 30, unit: "day" } }] })}>{t("builder.addFilter")}</Button>
        </fieldset>

        <fieldset className={styles.step} disabled={!state.table}>
          <legend>{t("builder.summarize")}</legend>
          {state.aggregations.map((row, index) => (
            <div key={index} className={styles.row}>
              <SelectField label={t("builder.function")} value={row.fn}
                options={FUNCTIONS.map((fn) => ({ value: fn, label: t(`builder.fn.${fn}`) }))}
                onChange={(fn) => update({ aggregations: state.aggregations.map((r, i) => (i === index ? { ...r, fn } : r)) })} />
              <SelectField label={t("builder.column")} value={choiceKey(row.column)} options={columnOptions}
                onChange={(key) => update({ aggregations: state.aggregations.map((r, i) => (i === index ? { ...r, column: parseChoice(key) } : r)) })} />
              <Button variant="ghost" onClick={() => update({ aggregations: state.aggregations.filter((_, i) => i !== index) })}
                aria-label={t("builder.removeMetric", { n: index + 1 })}>✕</Button>
            </div>
          ))}
          <Button onClick={() => update({ aggregations: [...state.aggregations, { fn: "count", column: null }] })}>{t("builder.addMetric")}</Button>
          {state.breakouts.map((row, index) => {
            const temporal = row.column !== null && kinds[kindKey(row.column)] === "temporal";
            return (
              <div key={index} className={styles.row}>
                <SelectField label={t("builder.groupBy")} value={choiceKey(row.column)} options={columnOptions}
                  onChange={(key) => update({ breakouts: state.breakouts.map((r, i) => (i === index ? { column: parseChoice(key), bucket: null } : r)) })} />
                {temporal && (
                  <SelectField label={t("builder.bucket")} value={row.bucket ?? ""}
                    options={[{ value: "", label: "—" }, ...BUCKETS.map((b) => ({ value: b, label: t(`builder.unit.${b}`) }))]}
                    onChange={(bucket) => update({ breakouts: state.breakouts.map((r, i) => (i === index ? { ...r, bucket: (bucket || null) as typeof r.bucket } : r)) })} />
                )}
                <Button variant="ghost" onClick={() => update({ breakouts: state.breakouts.filter((_, i) => i !== index) })}
                  aria-label={t("builder.removeGroup", { n: index + 1 })}>✕</Button>
              </div>
            );
          })}
          <Button onClick={() => update({ breakouts: [...state.breakouts, { column: null, bucket: null }] })}>{t("builder.addGroup")}</Button>
        </fieldset>

        <fieldset className={styles.step} disabled={!state.table}>
          <legend>{t("builder.join")}</legend>
          <div className={styles.row}>
            <SelectField label={t("builder.joinTable")} value={tableKey(state.join.table)} options={tableOptions}
              onChange={(key) => update({ join: { ...state.join, table: pickTable(key), on: [{ left: "", right: "" }] } })} />
            <SelectField label={t("builder.joinKind")} value={state.join.kind}
              options={[{ value: "inner", label: t("builder.inner") }, { value: "left", label: t("builder.left") }]}
              onChange={(kind) => update({ join: { ...state.join, kind } })} />
          </div>
          {state.join.table && state.join.on.map((pair, index) => (
            <div key={index} className={styles.row}>
              <SelectField label={t("builder.leftColumn")} value={pair.left}
                options={[{ value: "", label: "—" }, ...(base?.columns ?? []).map((c) => ({ value: c.name, label: c.name }))]}
                onChange={(left) => update({ join: { ...state.join, on: state.join.on.map((p, i) => (i === index ? { ...p, left } : p)) } })} />
              <SelectField label={t("builder.rightColumn")} value={pair.right}
                options={[{ value: "", label: "—" }, ...(joined?.columns ?? []).map((c) => ({ value: c.name, label: c.name }))]}
                onChange={(right) => update({ join: { ...state.join, on: state.join.on.map((p, i) => (i === index ? { ...p, right } : p)) } })} />
            </div>
          ))}
        </fieldset>

        <fieldset className={styles.step} disabled={!state.table}>
          <legend>{t("builder.sortLimit")}</legend>
          <div className={styles.row}>
            <SelectField label={t("builder.sortBy")} value={state.sort?.key ?? ""}
              options={[{ value: "", label: "—" }, ...sortOptions(state, joinReady, (base?.columns ?? []).map((c) => c.name))
                .map((option) => ({ value: option.value, label: option.label }))]}
              onChange={(key) => update({ sort: key ? { key, direction: state.sort?.direction ?? "asc" } : null })} />
            <SelectField label={t("builder.direction")} value={state.sort?.direction ?? "asc"}
              options={[{ value: "asc", label: t("builder.asc") }, { value: "desc", label: t("builder.desc") }]}
              onChange={(direction) => update({ sort: state.sort ? { ...state.sort, direction } : null })} />
            <TextField label={t("builder.limit")} type="number" min={1} max={100000} value={state.limit === null ? "" : String(state.limit)}
              onChange={(v) => update({ limit: v.trim() ? Number(v) : null })} />
          </div>
        </fieldset>
      </section>
      {notice && <p role="status">{notice}</p>}
      <ErrorMessage error={tables.error} />
      <ErrorMessage error={result.error} onRetry={() => void result.refetch()} />
      {result.isFetching && <p role="status" aria-live="polite">{t("sql.running")}</p>}
      {result.data && chartSpec && pending && (
        <QuestionTheme questionId={questionId ? Number(questionId) : null}>
          <ResultPanel result={result.data} spec={chartSpec} onSpecChange={setSpec} title={question.data?.name ?? t("builder.title")}
            fetchCsv={pending ? () => downloadBuilderCsv(pending) : undefined} />
        </QuestionTheme>
      )}
      {saving && <SaveQuestionDialog initialName={question.data?.name ?? ""} initialFolder={question.data?.folder_id}
        onSave={save} onCancel={() => setSaving(false)} />}
    </div>
  );
}
