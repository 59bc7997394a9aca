// The SQL editor: write, run (all or the selection), read the answer as a table or a chart,
// save as a question. Opens a saved question with ?question=<id>, a statement with ?sql=...
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useSearchParams } from "react-router";
import { api, data } from "../../api/client";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { PinButton } from "../home/PinButton";
import { QuestionSendingButtons } from "../subscriptions/AlertsButton";
import { SaveQuestionDialog } from "../browse/SaveQuestionDialog";
import { QUESTIONS_KEY, questionQuery, saveQuestion } from "../browse/browseQueries";
import { readSpec, type ChartSpec } from "../charts/chartSpec";
import { ResultPanel } from "../results/ResultPanel";
import { QuestionTheme } from "../themes/QuestionTheme";
import { resultColumns } from "../results/types";
import { SqlEditor, type ErrorPosition } from "./SqlEditor";
import styles from "./SqlEditorPage.module.css";
import { useStatementRun } from "./useStatementRun";
import { VariableInputs } from "./VariableInputs";
import { findVariables, parseVariableValue, type VariableType } from "./variables";

const DRAFT_KEY = "workbench.sql.draft";

export default function SqlEditorPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const questionId = params.get("question");
  const question = useQuery({ ...questionQuery(Number(questionId)), enabled: questionId !== null });
  const [sql, setSql] = useState(() => params.get("sql") ?? (questionId ? "" : sessionStorage.getItem(DRAFT_KEY) ?? ""));
  const [types, setTypes] = useState<Record<string, VariableType>>({});
  const [values, setValues] = useState<Record<string, string>>({});
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [spec, setSpec] = useState<ChartSpec | null>(null);
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [formatError, setFormatError] = useState<unknown>(null);
  const statement = useStatementRun();
  const variables = useMemo(() => findVariables(sql), [sql]);

  useEffect(() => {
    if (!question.data) return;
    setSql(question.data.sql ?? "");
    setTypes((question.data.variables ?? {}) as Record<string, VariableType>);
    setSpec(null);
  }, [question.data]);

  useEffect(() => {
    if (!questionId) sessionStorage.setItem(DRAFT_KEY, sql);
  }, [sql, questionId]);

  const result = statement.result;
  const columns = useMemo(() => (result ? resultColumns(result) : []), [result]);
  const chartSpec = result ? spec ?? readSpec(question.data?.visualization, columns, result.row_count) : null;
  const position = statement.refusal?.details as Partial<ErrorPosition> & { variable?: string } | undefined;
  // A refused value names its variable: the message goes under that input, not only above the result.
  const refusedVariable = typeof position?.variable === "string" ? position.variable : null;
  const errorPosition = position && typeof position.line === "number" && typeof position.column === "number"
    ? { line: position.line, column: position.column } : null;

  function run(text: string) {
    const bound: Record<string, unknown> = {};
    const errors: Record<string, string> = {};
    for (const { name } of variables) {
      const parsed = parseVariableValue(types[name] ?? "text", values[name] ?? "");
      if (!parsed.ok) errors[name] = t(`sql.invalid.${parsed.reason}`);
      else if (parsed.value !== null) bound[name] = parsed.value;
    }
    setFieldErrors(errors);
    if (Object.keys(errors).length > 0) return;
    const variableTypes = Object.fromEntries(variables.map(({ name }) => [name, types[name] ?? "text"]));
    void statement.run({ sql: text, variables: bound, variable_types: variableTypes });
  }

  async function format() {
    try {
      const answer = await data(api.POST("/sql/format", { body: { sql } }));
      setSql(answer.sql);
    } catch (caught) {
      setFormatError(caught); // the text stays as it was
    }
  }

  async function save(name: string, folderId: number | undefined) {
    const body = {
      name, kind: "sql" as const, sql,
      variables: Object.fromEntries(variables.map(({ name: v }) => [v, types[v] ?? "text"])),
      visualization: (chartSpec ?? {}) as Record<string, never>,
      ...(folderId ? { folder_id: folderId } : {}),
    };
    const editing = question.data && question.data.question_id;
    const savedQuestion = await saveQuestion(editing || undefined, body);
    setSaving(false);
    setNotice(t("save.saved", { name }));
    await queryClient.invalidateQueries({ queryKey: QUESTIONS_KEY });
    if (!editing && savedQuestion.question_id) void navigate(`/sql?question=${savedQuestion.question_id}`, { replace: true });
  }

  const title = question.data?.name ?? t("sql.untitled");
  return (
    <div className={styles.page}>
      <PageHeader title={title}>
        <Button variant="primary" onClick={() => run(sql)} disabled={statement.running || !sql.trim()}
          aria-keyshortcuts="Control+Enter Meta+Enter">{t("sql.run")}</Button>
        {statement.running && <Button onClick={statement.cancel}>{t("sql.cancel")}</Button>}
        <Button onClick={() => void format()} disabled={!sql.trim()}>{t("sql.format")}</Button>
        <Button onClick={() => setSaving(true)} disabled={!sql.trim()}>{t("sql.save")}</Button>
        {question.data && <PinButton kind="question" id={question.data.question_id} />}
        {question.data && <QuestionSendingButtons questionId={question.data.question_id} name={question.data.name} />}
      </PageHeader>
      <SqlEditor value={sql} onChange={(text) => { setSql(text); setFormatError(null); }} onRun={run}
        error={errorPosition} label={t("sql.editorLabel")} placeholderText={t("sql.placeholder")} />
      <p className={styles.hint}>{t("sql.shortcut")}</p>
      <VariableInputs variables={variables} types={types} values={values}
        errors={refusedVariable ? { ...fieldErrors, [refusedVariable]: statement.refusal!.message } : fieldErrors}
        onType={(name, type) => setTypes((old) => ({ ...old, [name]: type }))}
        onValue={(name, value) => setValues((old) => ({ ...old, [name]: value }))} />
      {notice && <p role="status" className={styles.notice}>{notice}</p>}
      <ErrorMessage error={formatError} />
      <ErrorMessage error={question.error} />
      <ErrorMessage error={statement.error} onRetry={statement.refusal ? undefined : statement.retry} />
      {statement.running && <p role="status" aria-live="polite">{t("sql.running")}</p>}
      {statement.cancelled && <p role="status">{t("sql.cancelled")}</p>}
      {result && chartSpec && (
        <QuestionTheme questionId={questionId ? Number(questionId) : null}>
          <ResultPanel result={result} spec={chartSpec} onSpecChange={setSpec} title={title} fetchCsv={statement.fetchCsv} />
        </QuestionTheme>
      )}
      {saving && (
        <SaveQuestionDialog initialName={question.data?.name ?? ""} initialFolder={question.data?.folder_id}
          onSave={save} onCancel={() => setSaving(false)} />
      )}
    </div>
  );
}
