// A dashboard opened by a public link or a signed embed: the viewer's grid, tabs and filters
// (only those the link opens), each card run through the link or the token, never the session.
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { useSearchParams } from "react-router";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { cardsOfTab, draftOf, shownTab, type DraftCard } from "../dashboards/dashboardDraft";
import { DashboardGrid } from "../dashboards/DashboardGrid";
import { FilterBar } from "../dashboards/FilterBar";
import { cardFilters, filterValues, withFilter } from "../dashboards/filterState";
import { QuestionCard } from "../dashboards/QuestionCard";
import { TextCard } from "../dashboards/TextCard";
import { DownloadPdfButton } from "../printing/DownloadPdfButton";
import type { SharedAccess, SharedDashboard } from "./sharedAccess";
import { sharedDashboardQuery } from "./sharingQueries";
import dashboardStyles from "../dashboards/DashboardPage.module.css";
import styles from "./Sharing.module.css";

export function useSharedDashboard(access: SharedAccess) {
  return useQuery(sharedDashboardQuery(access));
}

export function SharedDashboardView({ access, dashboard }: { access: SharedAccess; dashboard: SharedDashboard }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const settable = dashboard.filters.filter((item) => item.settable);
  const draft = draftOf(dashboard);
  const tab = shownTab(draft, params.get("tab"));
  const values = filterValues(params, settable);

  function applyFilters(typed: Record<string, string>) {
    let next = params;
    for (const item of settable) next = withFilter(next, item, typed[String(item.filter_id)] ?? "");
    setParams(next);
  }

  // Only the filters the link opens go to the PDF, as to the cards (the server refuses the others).
  const settableKeys = new Set(settable.map((item) => `f.${item.filter_id}`));
  const printShared = (filters: URLSearchParams) =>
    access.pdf(new URLSearchParams([...filters].filter(([key]) => settableKeys.has(key))));

  function setTab(key: string) {
    const next = new URLSearchParams(params);
    next.set("tab", key);
    setParams(next, { replace: true });
  }

  function renderCard(card: DraftCard) {
    let body;
    if (card.kind === "heading") body = <h2 className={dashboardStyles.heading}>{card.text}</h2>;
    else if (card.kind === "text") body = <TextCard text={card.text ?? ""} />;
    else {
      const cardId = Number(card.key.slice(1));
      body = <QuestionCard dashboardId={dashboard.dashboard_id} cardId={cardId} questionId={card.question_id ?? 0}
        title={card.question_name ?? ""} visualization={card.visualization}
        filters={cardFilters(cardId, settable, values)} refreshMs={false} now={Date.now()}
        run={access.run} csv={access.csv} runKey={access.key} />;
    }
    return <div className={dashboardStyles.cell}>{body}</div>;
  }

  return (
    <div className={dashboardStyles.page}>
      <h1>{dashboard.name}</h1>
      {dashboard.description && <p className={dashboardStyles.description}>{dashboard.description}</p>}
      {dashboard.share.allow_pdf && (
        <div className={styles.actions}>
          <DownloadPdfButton dashboardId={dashboard.dashboard_id} name={dashboard.name} print={printShared} />
        </div>
      )}
      <FilterBar dashboardId={dashboard.dashboard_id} filters={settable} values={values} onApply={applyFilters}
        valuesSource={{ key: access.key, load: access.filterValues }} />
      {draft.tabs.length > 0 && (
        <div role="tablist" aria-label={t("dashboards.tabs")} className={dashboardStyles.tabs}>
          {draft.tabs.map((item) => (
            <button key={item.key} type="button" role="tab" aria-selected={item.key === tab} className={dashboardStyles.tab}
              onClick={() => setTab(item.key)}>{item.name}</button>
          ))}
        </div>
      )}
      <div role={draft.tabs.length > 0 ? "tabpanel" : undefined} aria-label={draft.tabs.find((item) => item.key === tab)?.name}>
        <DashboardGrid cards={cardsOfTab(draft, tab)} editing={false} onPlace={() => undefined} render={renderCard} />
      </div>
    </div>
  );
}

/** The page around a shared dashboard: loading, or the server's refusal said plainly. */
export function SharedDashboardPage({ access }: { access: SharedAccess }) {
  const { t } = useTranslation();
  const dashboard = useSharedDashboard(access);
  return (
    <main className={styles.main}>
      {dashboard.error ? <><h1>{t("sharing.unavailable")}</h1><ErrorMessage error={dashboard.error} /></>
        : !dashboard.data ? <p role="status">{t("common.loading")}</p>
        : <SharedDashboardView access={access} dashboard={dashboard.data} />}
    </main>
  );
}
