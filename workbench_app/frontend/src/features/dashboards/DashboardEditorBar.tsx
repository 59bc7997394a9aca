// The editor's controls above the grid: add a question, text, heading or tab; add filters and
// wire each to a field of any number of question cards. Every change goes through `change`,
// which keeps the draft before it for undo.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import type { Question } from "../../api/models";
import { Button } from "../../ui/Button";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import {
  addCard, addFilter, addTab, changeFilter, linkFilter, removeFilter, type Draft, type FilterType,
} from "./dashboardDraft";
import styles from "./DashboardPage.module.css";

interface Props {
  draft: Draft;
  tab: string | null;
  change: (edit: (draft: Draft) => Draft) => void;
}

const FILTER_TYPES: FilterType[] = ["text", "number", "date"];

export function DashboardEditorBar({ draft, tab, change }: Props) {
  const { t } = useTranslation();
  const questions = useQuery({
    queryKey: ["questions", "all"],
    queryFn: async () => ((await data(api.GET("/questions", { params: { query: {} } }))) as { questions: Question[] }).questions,
  });
  const [questionId, setQuestionId] = useState("");
  const [tabName, setTabName] = useState("");
  const [filterName, setFilterName] = useState("");
  const [filterType, setFilterType] = useState<FilterType>("text");
  const chosen = questions.data?.find((q) => String(q.question_id) === questionId) ?? questions.data?.[0];
  const questionCards = draft.cards.filter((card) => card.kind === "question");

  return (
    <section className={styles.editorBar} aria-label={t("dashboards.editor")}>
      <div className={styles.editorRow}>
        <SelectField label={t("dashboards.question")} value={chosen ? String(chosen.question_id) : ""}
          options={(questions.data ?? []).map((q) => ({ value: String(q.question_id), label: q.name ?? "" }))} onChange={setQuestionId} />
        <Button disabled={!chosen} onClick={() => chosen && change((d) => addCard(d, tab, {
          kind: "question", question_id: chosen.question_id, question_name: chosen.name,
          visualization: chosen.visualization ?? null, variables: chosen.variables ?? {},
        }))}>{t("dashboards.addQuestion")}</Button>
        <Button onClick={() => change((d) => addCard(d, tab, { kind: "text", text: "" }))}>{t("dashboards.addText")}</Button>
        <Button onClick={() => change((d) => addCard(d, tab, { kind: "heading", text: t("dashboards.newHeading") }))}>{t("dashboards.addHeading")}</Button>
      </div>
      <div className={styles.editorRow}>
        <TextField label={t("dashboards.tabName")} value={tabName} onChange={setTabName} maxLength={200} />
        <Button disabled={!tabName.trim()} onClick={() => { change((d) => addTab(d, tabName.trim())); setTabName(""); }}>{t("dashboards.addTab")}</Button>
        <TextField label={t("dashboards.filterName")} value={filterName} onChange={setFilterName} maxLength={200} />
        <SelectField label={t("dashboards.filterType")} value={filterType}
          options={FILTER_TYPES.map((type) => ({ value: type, label: t(`dashboards.filterType.${type}`) }))} onChange={setFilterType} />
        <Button disabled={!filterName.trim()} onClick={() => { change((d) => addFilter(d, filterName.trim(), filterType)); setFilterName(""); }}>
          {t("dashboards.addFilter")}
        </Button>
      </div>
      {draft.filters.map((item) => (
        <fieldset key={item.key} className={styles.filterEditor}>
          <legend>{t("dashboards.filterLegend", { name: item.name, type: t(`dashboards.filterType.${item.type}`) })}</legend>
          <TextField label={t("dashboards.filterDefault", { name: item.name })} value={item.default}
            onChange={(value) => change((d) => changeFilter(d, item.key, { default: value }))} />
          <label className={styles.check}>
            <input type="checkbox" checked={item.required} onChange={(event) => change((d) => changeFilter(d, item.key, { required: event.target.checked }))} />
            {t("dashboards.required")}
          </label>
          {questionCards.map((card) => (
            <SelectField key={card.key} label={t("dashboards.feeds", { filter: item.name, card: card.question_name ?? "" })}
              value={item.links.find((link) => link.card === card.key)?.variable ?? ""}
              options={[{ value: "", label: t("dashboards.notLinked") },
                ...Object.keys(card.variables ?? {}).map((variable) => ({ value: variable, label: variable }))]}
              onChange={(variable) => change((d) => linkFilter(d, item.key, card.key, variable))} />
          ))}
          <Button variant="danger" onClick={() => change((d) => removeFilter(d, item.key))}>
            {t("dashboards.removeFilter", { name: item.name })}
          </Button>
        </fieldset>
      ))}
    </section>
  );
}
