// Funnels, paths and retention: the definition is built here, compiled and run by the server under
// the person's own permissions (POST /analyses/run), and saved as a question of kind "analysis".
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useSearchParams } from "react-router";
import { downloadAnalysisCsv } from "../../api/statementRun";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { SaveQuestionDialog } from "../browse/SaveQuestionDialog";
import { QUESTIONS_KEY, questionQuery, saveQuestion } from "../browse/browseQueries";
import { readSpec, type ChartSpec } from "../charts/chartSpec";
import styles from "../question-builder/QuestionBuilderPage.module.css";
import { ResultPanel } from "../results/ResultPanel";
import { resultColumns } from "../results/types";
import {
  ANALYSIS_KINDS, emptyState, emptyStep, fromDefinition, MAX_STEPS, moveStep, RANGES, toDefinition, WINDOW_UNITS,
  type AnalysisKind, type AnalysisState, type StepState,
} from "./analysisDefinition";
import { segmentsQuery } from "../segments/segmentQueries";
import { analysisRunQuery, analysisSitesQuery } from "./analysisQueries";

function useDebounced<T>(value: T, delay: number): T {
  const [current, setCurrent] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setCurrent(value), delay);
    return () => window.clearTimeout(timer);
  }, [value, delay]);
  return current;
}

const bounded = (value: string, low: number, high: number) => Math.min(high, Math.max(low, Math.round(Number(value)) || low));

export default function AnalysisPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const questionId = params.get("question");
  const [state, setState] = useState<AnalysisState>(() => emptyState((params.get("kind") as AnalysisKind | null) ?? "funnel"));
  const [spec, setSpec] = useState<ChartSpec | null>(null);
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const question = useQuery({ ...questionQuery(Number(questionId)), enabled: questionId !== null });
  useEffect(() => {
    if (question.data?.analysis) setState(fromDefinition(question.data.analysis));
  }, [question.data]);
  const sites = useQuery(analysisSitesQuery());
  const segments = useQuery(segmentsQuery());

  const definition = useMemo(() => toDefinition(state), [state]);
  const pending = useDebounced(definition, 400);
  const result = useQuery({ ...analysisRunQuery(pending), placeholderData: (previous) => previous });

  const update = (change: Partial<AnalysisState>) => setState((old) => ({ ...old, ...change }));
  const setStep = (index: number, change: Partial<StepState>) =>
    update({ steps: state.steps.map((step, i) => (i === index ? { ...step, ...change } : step)) });

  async function save(name: string, folderId: number | undefined) {
    const columns = result.data ? resultColumns(result.data) : [];
    const body = {
      name, kind: "analysis" as const, analysis: definition ?? undefined,
      visualization: { ...(spec ?? (result.data ? readSpec(null, columns, result.data.row_count) : {})) },
      ...(folderId ? { folder_id: folderId } : {}),
    };
    const saved = await saveQuestion(question.data?.question_id, body);
    setSaving(false);
    setNotice(t("save.saved", { name }));
    await queryClient.invalidateQueries({ queryKey: QUESTIONS_KEY });
    if (!question.data && saved.question_id) void navigate(`/analysis/new?question=${saved.question_id}`, { replace: true });
  }

  const columns = result.data ? resultColumns(result.data) : [];
  const chartSpec = result.data ? spec ?? readSpec(question.data?.visualization, columns, result.data.row_count) : null;
  const siteOptions = [{ value: "", label: t("analysis.allSites") },
    ...(sites.data ?? [])];
  const segmentOptions = [{ value: "", label: t("analysis.everyVisit") },
    ...(segments.data ?? []).map((segment) => ({ value: String(segment.segment_id), label: segment.name }))];
  const title = question.data?.name ?? t("analysis.title");

  return (
    <div className={styles.page}>
      <PageHeader title={title}>
        <Button variant="primary" onClick={() => setSaving(true)} disabled={!definition}>{t("sql.save")}</Button>
      </PageHeader>
      <section className={styles.steps} aria-label={t("analysis.title")}>
        <fieldset className={styles.step}>
          <legend>{t("analysis.scope")}</legend>
          <SelectField label={t("analysis.kind")} value={state.kind}
            options={ANALYSIS_KINDS.map((kind) => ({ value: kind, label: t(`analysis.kind.${kind}`) }))}
            onChange={(kind) => { setSpec(null); update({ kind }); }} />
          <SelectField label={t("analysis.site")} value={state.site} options={siteOptions} onChange={(site) => update({ site })} />
          <SelectField label={t("analysis.segment")} value={state.segment} options={segmentOptions}
            onChange={(segment) => update({ segment })} />
          <SelectField label={t("analysis.range")} value={state.range}
            options={RANGES.map((range) => ({ value: range, label: t(`analysis.range.${range}`) }))}
            onChange={(range) => update({ range })} />
          {state.range === "custom" && (
            <div className={styles.row}>
              <TextField label={t("analysis.from")} type="date" value={state.from} onChange={(from) => update({ from })} />
              <TextField label={t("analysis.to")} type="date" value={state.to} onChange={(to) => update({ to })} />
            </div>
          )}
        </fieldset>

        {state.kind === "funnel" && (
          <fieldset className={styles.step}>
            <legend>{t("analysis.steps")}</legend>
            {state.steps.map((step, index) => {
              const n = index + 1;
              return (
                <div key={index} className={styles.row} role="group" aria-label={t("analysis.stepLegend", { n })}>
                  <SelectField label={t("analysis.stepKind", { n })} value={step.kind}
                    options={[{ value: "page", label: t("analysis.stepKind.page") }, { value: "event", label: t("analysis.stepKind.event") }]}
                    onChange={(kind) => setStep(index, { kind })} />
                  <TextField label={step.kind === "page" ? t("analysis.pagePattern", { n }) : t("analysis.eventName", { n })}
                    value={step.value} onChange={(value) => setStep(index, { value })} />
                  {step.kind === "event" && (
                    <>
                      <TextField label={t("analysis.propertyKey", { n })} value={step.propertyKey}
                        onChange={(propertyKey) => setStep(index, { propertyKey })} />
                      <TextField label={t("analysis.propertyValue", { n })} value={step.propertyValue}
                        onChange={(propertyValue) => setStep(index, { propertyValue })} />
                    </>
                  )}
                  <Button variant="ghost" disabled={index === 0} aria-label={t("analysis.moveUp", { n })}
                    onClick={() => update({ steps: moveStep(state.steps, index, -1) })}>↑</Button>
                  <Button variant="ghost" disabled={index === state.steps.length - 1} aria-label={t("analysis.moveDown", { n })}
                    onClick={() => update({ steps: moveStep(state.steps, index, 1) })}>↓</Button>
                  <Button variant="ghost" disabled={state.steps.length <= 2} aria-label={t("analysis.removeStep", { n })}
                    onClick={() => update({ steps: state.steps.filter((_, i) => i !== index) })}>✕</Button>
                </div>
              );
            })}
            <Button disabled={state.steps.length >= MAX_STEPS} onClick={() => update({ steps: [...state.steps, emptyStep()] })}>
              {t("analysis.addStep")}
            </Button>
            <div className={styles.row} role="group" aria-label={t("analysis.window")}>
              <TextField label={t("analysis.windowAmount")} type="number" min={1} value={String(state.windowAmount)}
                onChange={(value) => update({ windowAmount: bounded(value, 1, 10_000) })} />
              <SelectField label={t("analysis.windowUnit")} value={state.windowUnit}
                options={WINDOW_UNITS.map((unit) => ({ value: unit, label: t(`analysis.unit.${unit}`) }))}
                onChange={(windowUnit) => update({ windowUnit })} />
            </div>
          </fieldset>
        )}

        {state.kind === "path" && (
          <fieldset className={styles.step}>
            <legend>{t("analysis.kind.path")}</legend>
            <SelectField label={t("analysis.pathStart")} value={state.pathStart}
              options={[{ value: "page", label: t("analysis.pathStart.page") }, { value: "entry", label: t("analysis.pathStart.entry") }]}
              onChange={(pathStart) => update({ pathStart })} />
            {state.pathStart === "page" && (
              <TextField label={t("analysis.page")} value={state.page} onChange={(page) => update({ page })} />
            )}
            <div className={styles.row}>
              {state.pathStart === "page" && (
                <TextField label={t("analysis.stepsBefore")} type="number" min={0} max={5} value={String(state.stepsBefore)}
                  onChange={(value) => update({ stepsBefore: bounded(value, 0, 5) })} />
              )}
              <TextField label={t("analysis.stepsAfter")} type="number" min={0} max={5} value={String(state.stepsAfter)}
                onChange={(value) => update({ stepsAfter: bounded(value, 0, 5) })} />
              <TextField label={t("analysis.branches")} type="number" min={1} max={20} value={String(state.branches)}
                onChange={(value) => update({ branches: bounded(value, 1, 20) })} />
            </div>
          </fieldset>
        )}

        {state.kind === "retention" && (
          <fieldset className={styles.step}>
            <legend>{t("analysis.kind.retention")}</legend>
            <SelectField label={t("analysis.period")} value={state.period}
              options={[{ value: "week", label: t("analysis.period.week") }, { value: "month", label: t("analysis.period.month") }]}
              onChange={(period) => update({ period })} />
            <TextField label={t("analysis.periods")} type="number" min={1} max={12} value={String(state.periods)}
              onChange={(value) => update({ periods: bounded(value, 1, 12) })} />
            <TextField label={t("analysis.cohortEvent")} value={state.cohortEvent} onChange={(cohortEvent) => update({ cohortEvent })} />
            <p>{t("analysis.retentionNote")}</p>
          </fieldset>
        )}
      </section>
      {notice && <p role="status">{notice}</p>}
      {!definition && <p>{t("analysis.incomplete")}</p>}
      <ErrorMessage error={result.error} onRetry={() => void result.refetch()} />
      {result.isFetching && <p role="status" aria-live="polite">{t("sql.running")}</p>}
      {result.data && chartSpec && pending && (
        <ResultPanel result={result.data} spec={chartSpec} onSpecChange={setSpec} title={title}
          fetchCsv={() => downloadAnalysisCsv(pending)} />
      )}
      {saving && <SaveQuestionDialog initialName={question.data?.name ?? ""} initialFolder={question.data?.folder_id}
        onSave={save} onCancel={() => setSaving(false)} />}
    </div>
  );
}
