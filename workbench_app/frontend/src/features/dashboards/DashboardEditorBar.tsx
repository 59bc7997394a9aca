// The editor's controls above the grid: add a question, text, heading or tab; add filters and
// wire each to a field of any number of question cards. Every change goes through `change`,
// which keeps the draft before it for undo.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../../ui/Button";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { allQuestionsQuery } from "../browse/browseQueries";
import { themesQuery } from "../themes/themeQueries";
import {
  addCard, addFilter, addTab, changeFilter, linkFilter, removeFilter, type Draft, type FilterType,
} from "./dashboardDraft";
import styles from "./DashboardPage.module.css";
import { LinkedColumnField } from "./LinkedColumnField";

interface Props {
  draft: Draft;
  /** The theme the dashboard names itself now (null: it inherits its folder's). */
  ownTheme: number | null;
  tab: string | null;
  change: (edit: (draft: Draft) => Draft) => void;
}

const FILTER_TYPES: FilterType[] = ["text", "number", "date", "date_range", "one_of", "segment"];
// The variable types each filter type can feed (as the server checks them).
const FEEDS: Record<FilterType, string[]> = {
  text: ["text"], number: ["number"], date: ["date", "text"], date_range: ["date"], one_of: ["list"],
  segment: ["segment"],
};
// Not a possible variable name (those are letters, digits and underscores).
const COLUMN = ":column";

export function DashboardEditorBar({ draft, ownTheme, tab, change }: Props) {
  const { t } = useTranslation();
  const questions = useQuery(allQuestionsQuery());
  const themes = useQuery(themesQuery());
  const [questionId, setQuestionId] = useState("");
  const [tabName, setTabName] = useState("");
  const [filterName, setFilterName] = useState("");
  const [filterType, setFilterType] = useState<FilterType>("text");
  const chosen = questions.data?.find((q) => String(q.question_id) === questionId) ?? questions.data?.[0];
  const questionCards = draft.cards.filter((card) => card.kind === "question");

  return (
    <section className={styles.editorBar} aria-label={t("dashboards.editor")}>
      <label className={styles.check}>
        <input type="checkbox" checked={draft.warm_up} onChange={(event) => {
          const warm = event.target.checked;
          change((d) => ({ ...d, warm_up: warm }));
        }} />
        {t("dashboards.warmUp")}
      </label>
      <SelectField label={t("dashboards.theme")} value={String((draft.theme_id === undefined ? ownTheme : draft.theme_id) ?? "")}
        options={[{ value: "", label: t("dashboards.themeInherited") },
          ...(themes.data?.themes ?? []).map((theme) => ({ value: String(theme.theme_id), label: theme.name }))]}
        onChange={(value) => change((d) => ({ ...d, theme_id: value ? Number(value) : null }))} />
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
          {item.type === "one_of" && (
            <>
              <TextField label={t("dashboards.valuesTable", { name: item.name })} value={item.values?.table ?? ""} maxLength={600}
                hint={t("dashboards.valuesTableHint")}
                onChange={(table) => change((d) => changeFilter(d, item.key, { values: { table, column: item.values?.column ?? "" } }))} />
              <TextField label={t("dashboards.valuesColumn", { name: item.name })} value={item.values?.column ?? ""} maxLength={200}
                onChange={(column) => change((d) => changeFilter(d, item.key, { values: { table: item.values?.table ?? "", column } }))} />
            </>
          )}
          {questionCards.map((card) => {
            const link = item.links.find((one) => one.card === card.key);
            const variables = Object.entries(card.variables ?? {}).filter(([, type]) => FEEDS[item.type].includes(type)).map(([name]) => name);
            const mode = link?.column !== undefined ? COLUMN : link?.variable ?? "";
            const cardName = card.question_name ?? "";
            return (
              <div key={card.key} className={styles.editorRow}>
                <SelectField label={t("dashboards.feeds", { filter: item.name, card: cardName })} value={mode}
                  options={[{ value: "", label: t("dashboards.notLinked") },
                    ...variables.map((variable) => ({ value: variable, label: t("dashboards.linkVariable", { name: variable }) })),
                    { value: COLUMN, label: t("dashboards.linkColumn") }]}
                  onChange={(next) => change((d) => linkFilter(d, item.key, card.key,
                    next === "" ? null : next === COLUMN ? { column: link?.column || "" } : { variable: next, end_variable: item.type === "date_range" ? next : undefined }))} />
                {mode === COLUMN && (
                  <LinkedColumnField questionId={card.question_id} filter={item.name} card={cardName} value={link?.column ?? ""}
                    onChange={(column) => change((d) => linkFilter(d, item.key, card.key, { column }))} />
                )}
                {item.type === "date_range" && link?.variable && (
                  <SelectField label={t("dashboards.linkEndVariable", { filter: item.name, card: cardName })} value={link.end_variable ?? link.variable}
                    options={variables.map((variable) => ({ value: variable, label: variable }))}
                    onChange={(end) => change((d) => linkFilter(d, item.key, card.key, { variable: link.variable, end_variable: end }))} />
                )}
              </div>
            );
          })}
          <Button variant="danger" onClick={() => change((d) => removeFilter(d, item.key))}>
            {t("dashboards.removeFilter", { name: item.name })}
          </Button>
        </fieldset>
      ))}
    </section>
  );
}
