// A dashboard: its filters (state in the URL), tabs and a grid of cards. "Edit" turns the same
// screen into the editor (add, move, resize, duplicate, remove; undo of the last change; save).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { useParams, useSearchParams } from "react-router";
import { api, data } from "../../api/client";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { SelectField } from "../../ui/SelectField";
import { TextField } from "../../ui/TextField";
import { CardKeyboardHandle } from "./CardKeyboardHandle";
import { DownloadPdfButton } from "../printing/DownloadPdfButton";
import { AppliedTheme } from "../themes/ThemedArea";
import { dashboardThemeQuery } from "../themes/themeQueries";
import { ownThemeId, useDashboardTheme } from "../themes/useEffectiveTheme";
import { DashboardEditorBar } from "./DashboardEditorBar";
import { DashboardGrid } from "./DashboardGrid";
import {
  apply, cardsOfTab, changeCard, draftOf, duplicateCard, nudgeCard, placeCards, removeCard, removeTab, saveBody, savedQuestionCardId, shownTab, undo,
  type Draft, type DraftCard, type Editing,
} from "./dashboardDraft";
import { cardRunKey, dashboardQuery } from "./dashboardQueries";
import { FilterBar } from "./FilterBar";
import { comparedFilters, comparisonOf, withComparison } from "./comparison";
import { NO_SEGMENT, segmentLabel } from "../segments/SegmentFilter";
import { segmentsQuery } from "../segments/segmentQueries";
import { cardFilters, filterValues, REFRESH_MINUTES, refreshMinutes, withFilter } from "./filterState";
import { preloadChart, QuestionCard } from "./QuestionCard";
import { TextCard } from "./TextCard";
import { ShareDashboard } from "../sharing/ShareDashboard";
import { SubscriptionsButton } from "../subscriptions/SubscriptionsButton";
import { PinButton } from "../home/PinButton";
import styles from "./DashboardPage.module.css";

/** "Updated N minutes ago" moves on without a re-run. */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs]);
  return now;
}

export default function DashboardPage() {
  const { t } = useTranslation();
  useEffect(preloadChart, []);
  const dashboardId = Number(useParams().dashboardId);
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const now = useNow(30_000);
  const theme = useDashboardTheme(dashboardId);
  const dashboard = useQuery(dashboardQuery(dashboardId));
  // The segments' names label a compared chart (read only when the address asks for a comparison).
  const segments = useQuery({ ...segmentsQuery(), enabled: [...params.keys()].some((name) => name.startsWith("cmp.")), retry: false });
  const save = useMutation({
    mutationFn: async (draft: Draft) => {
      const saved = (await data(api.PUT("/dashboards/{dashboard_id}", {
        params: { path: { dashboard_id: dashboardId } }, body: saveBody(draft),
      })));
      // The theme has its own endpoint (the server checks the edit right there too).
      if (draft.theme_id !== undefined && draft.theme_id !== ownThemeId(theme.data)) {
        queryClient.setQueryData(dashboardThemeQuery(dashboardId).queryKey, await data(api.PUT("/dashboards/{dashboard_id}/theme", {
          params: { path: { dashboard_id: dashboardId } }, body: { theme_id: draft.theme_id },
        })));
      }
      return saved;
    },
    onSuccess: async (saved) => {
      queryClient.setQueryData(dashboardQuery(dashboardId).queryKey, saved);
      await queryClient.invalidateQueries({ queryKey: cardRunKey(dashboardId) });
      setEditing(null);
    },
  });

  if (dashboard.error) return <ErrorMessage error={dashboard.error} />;
  if (!dashboard.data) return <p role="status">{t("common.loading")}</p>;
  const saved = dashboard.data;
  const draft = editing?.draft ?? draftOf(saved);
  const change = (edit: (d: Draft) => Draft) => setEditing((old) => apply(old ?? { draft: draftOf(saved), previous: null }, edit));
  const tab = shownTab(draft, params.get("tab"));
  const values = filterValues(params, saved.filters);
  const comparison = comparisonOf(params, saved.filters);
  const shownValues = comparison ? { ...values, [`cmp.${comparison.filterId}`]: comparison.value } : values;
  const minutes = refreshMinutes(params, saved.auto_refresh_seconds);

  function setParam(name: string, value: string | null) {
    const next = new URLSearchParams(params);
    if (value === null) next.delete(name);
    else next.set(name, value);
    setParams(next, { replace: true });
  }

  function applyFilters(typed: Record<string, string>) {
    let next = params;
    for (const item of saved.filters) next = withFilter(next, item, typed[String(item.filter_id)] ?? "");
    const compared = saved.filters.find((item) => (item.type === "segment" || item.type === "date_range")
      && (typed[`cmp.${item.filter_id}`] ?? NO_SEGMENT) !== NO_SEGMENT);
    next = withComparison(next, saved.filters, compared
      ? { filterId: compared.filter_id, value: typed[`cmp.${compared.filter_id}`] ?? "" } : null);
    setParams(next);
  }

  function compareOf(filters: Record<string, string | string[]>) {
    const again = comparedFilters(filters, comparison);
    if (!again || !comparison) return null;
    const labels: [string, string] = comparison.type === "date_range"
      ? [t("dashboards.thisPeriod"), t("dashboards.previousPeriod")]
      : [segmentLabel(String(filters[String(comparison.filterId)] ?? ""), segments.data, t),
        segmentLabel(comparison.value, segments.data, t)];
    return { filters: again, labels, byPosition: comparison.type === "date_range" };
  }

  function renderCard(card: DraftCard) {
    const tools = editing && (
      <div className={styles.cardTools}>
        <CardKeyboardHandle name={cardName(card)} onNudge={(dx, dy, resize) => {
          const next = nudgeCard(draft, card.key, dx, dy, resize).cards.find((item) => item.key === card.key) ?? card;
          change((d) => nudgeCard(d, card.key, dx, dy, resize));
          setAnnouncement(t("dashboards.cardPlaced", { name: cardName(card), col: next.col + 1, row: next.row + 1, width: next.width, height: next.height }));
        }} />
        <Button variant="ghost" onClick={() => change((d) => duplicateCard(d, card.key))}
          aria-label={t("dashboards.duplicateNamed", { name: cardName(card) })}>{t("dashboards.duplicate")}</Button>
        <Button variant="ghost" onClick={() => change((d) => removeCard(d, card.key))}
          aria-label={t("dashboards.removeNamed", { name: cardName(card) })}>{t("dashboards.remove")}</Button>
      </div>
    );
    const cardId = savedQuestionCardId(card);
    let body;
    if (card.kind === "heading") {
      body = editing
        ? <TextField label={t("dashboards.headingText")} value={card.text ?? ""} maxLength={200}
          onChange={(text) => change((d) => changeCard(d, card.key, { text }))} />
        : <h2 className={styles.heading}>{card.text}</h2>;
    } else if (card.kind === "text") {
      body = editing
        ? <label className={styles.markdownInput}>{t("dashboards.markdown")}
          <textarea value={card.text ?? ""} maxLength={20_000} onChange={(event) => change((d) => changeCard(d, card.key, { text: event.target.value }))} />
        </label>
        : <TextCard text={card.text ?? ""} />;
    } else if (cardId !== null && card.question_id !== undefined) {
      body = <QuestionCard dashboardId={dashboardId} cardId={cardId} questionId={card.question_id}
        title={card.question_name ?? ""} visualization={card.visualization}
        filters={cardFilters(cardId, saved.filters, values)} refreshMs={minutes ? minutes * 60_000 : false} now={now}
        compare={compareOf(cardFilters(cardId, saved.filters, values))} />;
    } else {
      body = <section className={styles.card} aria-label={card.question_name}>
        <h3 className={styles.cardTitle}>{card.question_name}</h3>
        <p>{t("dashboards.runsOnceSaved")}</p>
      </section>;
    }
    return <div className={editing ? styles.editable : styles.cell}>{tools}{body}</div>;
  }

  function cardName(card: DraftCard): string {
    return card.kind === "question" ? card.question_name ?? "" : card.text?.slice(0, 40) || t(`dashboards.kind.${card.kind}`);
  }

  return (
    <div className={styles.page}>
      <PageHeader title={saved.name}>
        {editing ? (
          <>
            <Button onClick={() => setEditing(undo(editing))} disabled={!editing.previous}>{t("dashboards.undo")}</Button>
            <Button onClick={() => { save.reset(); setEditing(null); }}>{t("common.cancel")}</Button>
            <Button variant="primary" onClick={() => save.mutate(draft)} disabled={save.isPending}>{t("common.save")}</Button>
          </>
        ) : (
          <>
            <SelectField label={t("dashboards.autoRefresh")} value={String(minutes)}
              options={REFRESH_MINUTES.map((m) => ({ value: String(m), label: m ? t("dashboards.everyMinutes", { count: m }) : t("dashboards.refreshOff") }))}
              onChange={(value) => setParam("refresh", value)} />
            <Button onClick={() => void queryClient.invalidateQueries({ queryKey: cardRunKey(dashboardId) })}>{t("dashboards.refresh")}</Button>
            <DownloadPdfButton dashboardId={dashboardId} name={saved.name} />
            <ShareDashboard dashboardId={dashboardId} filters={saved.filters} />
            <SubscriptionsButton kind="dashboard" targetId={dashboardId} name={saved.name} filters={saved.filters} />
            <PinButton kind="dashboard" id={dashboardId} />
            <Button variant="primary" onClick={() => setEditing({ draft: draftOf(saved), previous: null })}>{t("dashboards.edit")}</Button>
          </>
        )}
      </PageHeader>
      {saved.description && <p className={styles.description}>{saved.description}</p>}
      <ErrorMessage error={save.error} />
      {editing && <DashboardEditorBar draft={draft} ownTheme={ownThemeId(theme.data)} tab={tab} change={change} />}
      {editing && <p className={styles.announcer} role="status" aria-live="polite">{announcement}</p>}
      {!editing && <FilterBar dashboardId={dashboardId} filters={saved.filters} values={shownValues} onApply={applyFilters} />}
      {draft.tabs.length > 0 && (
        <div role="tablist" aria-label={t("dashboards.tabs")} className={styles.tabs}>
          {draft.tabs.map((item) => (
            <button key={item.key} type="button" role="tab" aria-selected={item.key === tab} className={styles.tab}
              onClick={() => setParam("tab", item.key)}>{item.name}</button>
          ))}
          {editing && tab && (
            <Button variant="danger" onClick={() => change((d) => removeTab(d, tab))}>{t("dashboards.removeTab")}</Button>
          )}
        </div>
      )}
      <div role={draft.tabs.length > 0 ? "tabpanel" : undefined} aria-label={draft.tabs.find((item) => item.key === tab)?.name}>
        {cardsOfTab(draft, tab).length === 0 && <p>{t("dashboards.emptyTab")}</p>}
        <AppliedTheme theme={theme.data}>
          <DashboardGrid cards={cardsOfTab(draft, tab)} editing={editing !== null}
            onPlace={(items) => change((d) => placeCards(d, items))} render={renderCard} />
        </AppliedTheme>
      </div>
    </div>
  );
}
