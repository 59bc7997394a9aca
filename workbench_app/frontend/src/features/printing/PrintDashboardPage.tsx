// The print page of a dashboard: what Chromium turns into the PDF (workbench_app/printing). Every
// card of every tab in reading order, with the filters of the URL (`?f.<id>=`) and the theme the
// server resolved, charts as SVG, tables as real tables. Its API calls carry a print ticket that the
// server's own headless browser adds; the page marks <html data-print-ready> once all is drawn.
import { useQueries, useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useParams, useSearchParams } from "react-router";
import ChartView from "../charts/ChartView";
import { readSpec } from "../charts/chartSpec";
import type { SavedCard } from "../dashboards/dashboardDraft";
import { cardFilters, filterValues } from "../dashboards/filterState";
import { TextCard } from "../dashboards/TextCard";
import { resultColumns } from "../results/types";
import { AppliedTheme } from "../themes/ThemedArea";
import { useDashboardTheme } from "../themes/useEffectiveTheme";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PrintTable } from "./PrintTable";
import { whenDrawn } from "./whenDrawn";
import { printCardQuery, printDashboardQuery } from "./printQueries";
import styles from "./PrintDashboard.module.css";

// Rows a printed table holds at most (a print is for reading, not for exporting: CSV does that).
const PRINT_ROWS = 2000;

export default function PrintDashboardPage() {
  const { t } = useTranslation();
  const dashboardId = Number(useParams().dashboardId);
  const [params] = useSearchParams();
  const dashboard = useQuery(printDashboardQuery(dashboardId));
  const theme = useDashboardTheme(dashboardId);
  const saved = dashboard.data;
  // The print of a public link marks the filters it opens (`settable`): the others keep their
  // defaults, as on the shared page (the server refuses them anyway). A person's own print has no mark.
  const filters = (saved?.filters ?? []).filter((item) => (item as { settable?: boolean }).settable !== false);
  const values = saved ? filterValues(params, filters) : {};
  const questionCards = (saved?.cards ?? []).filter((card) => card.kind === "question");
  const runs = useQueries({
    queries: questionCards.map((card) => printCardQuery(dashboardId, card.card_id, cardFilters(card.card_id, filters, values), PRINT_ROWS)),
  });
  const settled = (dashboard.isError || theme.isError || (saved !== undefined && !theme.isPending))
    && runs.every((run) => !run.isPending);

  useEffect(() => {
    if (!settled) return undefined;
    let cancelled = false;
    void whenDrawn().then(() => {
      if (!cancelled) document.documentElement.dataset.printReady = "true";
    });
    return () => {
      cancelled = true;
    };
  }, [settled]);

  if (dashboard.error) return <ErrorMessage error={dashboard.error} />;
  if (!saved) return <p role="status">{t("common.loading")}</p>;
  const resultOf = (card: SavedCard) => runs[questionCards.indexOf(card)];
  const sections = saved.tabs.length > 0
    ? [{ key: "none", name: null, cards: saved.cards.filter((card) => card.tab_id === null) },
      ...saved.tabs.map((tab) => ({ key: String(tab.tab_id), name: tab.name, cards: saved.cards.filter((card) => card.tab_id === tab.tab_id) }))]
    : [{ key: "all", name: null, cards: saved.cards }];

  function renderCard(card: SavedCard) {
    if (card.kind === "heading") return <h2 key={card.card_id} className={styles.heading}>{card.text}</h2>;
    if (card.kind === "text") {
      return <section key={card.card_id} className={card.width <= 6 ? styles.half : styles.card}><TextCard text={card.text ?? ""} /></section>;
    }
    const title = card.question_name ?? "";
    const run = resultOf(card);
    const result = run?.data;
    const columns = result ? resultColumns(result) : [];
    const spec = result ? readSpec(card.visualization, columns, result.row_count) : null;
    const table = spec?.kind === "table";
    const className = table ? `${styles.card} ${styles.long}` : card.width <= 6 ? styles.half : styles.card;
    return (
      <section key={card.card_id} className={className} aria-label={title} data-card-id={card.card_id}>
        <h3 className={styles.cardTitle}>{title}</h3>
        {run?.error ? <ErrorMessage error={run.error} />
          : !result || !spec ? <p role="status">{t("common.loading")}</p>
          : table ? <PrintTable result={result} title={title} />
          : <div className={styles.chart}><ChartView spec={spec} columns={columns} rows={(result.rows ?? []) as unknown[][]} title={title} fill /></div>}
      </section>
    );
  }

  return (
    <AppliedTheme theme={theme.data} className={styles.page}>
      <h1 className={styles.title}>{saved.name}</h1>
      {saved.description && <p className={styles.description}>{saved.description}</p>}
      {sections.filter((section) => section.cards.length > 0).map((section) => (
        <div key={section.key}>
          {section.name && <h2 className={styles.tab}>{section.name}</h2>}
          <div className={styles.cards}>
            {[...section.cards].sort((a, b) => a.row - b.row || a.col - b.col).map(renderCard)}
          </div>
        </div>
      ))}
    </AppliedTheme>
  );
}
