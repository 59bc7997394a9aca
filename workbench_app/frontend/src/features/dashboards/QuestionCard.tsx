// One question card: it runs on its own (cards load in parallel; one failing shows its error and
// the others still draw), refetches on the dashboard's interval, and says how old its answer is.
import { useQuery } from "@tanstack/react-query";
import { Suspense, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { readSpec } from "../charts/chartSpec";
import { LazyChartView as ChartView } from "../charts/lazyChartView";
import { ResultTable } from "../results/ResultTable";
import { resultColumns, type Result } from "../results/types";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { mergeResults } from "./comparison";
import { cardRunQuery } from "./dashboardQueries";
import { minutesSince } from "./filterState";
import styles from "./DashboardPage.module.css";

// The chart library is the largest part of the page: `preloadChart` fetches and evaluates it while
// the dashboard and its cards load, rather than after the first answer arrives.
export function preloadChart(): void {
  void ChartView.preload();
}

interface Props {
  dashboardId: number;
  cardId: number;
  questionId: number;
  title: string;
  visualization: Record<string, unknown> | null | undefined;
  filters: Record<string, string | string[]>;
  refreshMs: number | false;
  now: number;
  /** Shared pages (public link, embed) run their cards through the link or the token instead. */
  run?: ((cardId: number, filters: Record<string, string | string[]>) => Promise<Result>) | undefined;
  csv?: ((cardId: number, filters: Record<string, string | string[]>) => Promise<Blob>) | undefined;
  /** Part of the cache key of a shared page's runs (the token: a new one runs the cards again). */
  runKey?: string | undefined;
  /** A side-by-side comparison: the card runs again with these filters; labels name both runs. */
  compare?: { filters: Record<string, string | string[]>; labels: [string, string]; byPosition?: boolean } | null | undefined;
}

export function QuestionCard({ dashboardId, cardId, questionId, title, visualization, filters, refreshMs, now, run: runShared, csv, runKey, compare }: Props) {
  const { t } = useTranslation();
  const run = useQuery({
    ...(runShared ? { ...cardRunQuery(dashboardId, cardId, filters, runKey), queryFn: () => runShared(cardId, filters) }
      : cardRunQuery(dashboardId, cardId, filters)),
    refetchInterval: refreshMs,
    refetchIntervalInBackground: false,
  });
  const compared = useQuery({
    ...cardRunQuery(dashboardId, cardId, compare?.filters ?? {}),
    enabled: !!compare && !runShared,
    refetchInterval: refreshMs,
    refetchIntervalInBackground: false,
  });
  const result = run.data;
  const columns = useMemo(() => (result ? resultColumns(result) : []), [result]);
  const spec = useMemo(() => (result ? readSpec(visualization, columns, result.row_count) : null), [result, visualization, columns]);
  const merged = useMemo(() => (compare && result && spec && compared.data
    ? mergeResults(result, compared.data, spec, compare.labels, compare.byPosition) : null), [compare, result, spec, compared.data]);
  const minutes = run.dataUpdatedAt ? minutesSince(run.dataUpdatedAt, now) : null;

  return (
    <section className={styles.card} aria-label={title}>
      <header className={styles.cardHeader}>
        <h3 className={styles.cardTitle}>{runShared ? title : <Link to={`/questions/${questionId}`}>{title}</Link>}</h3>
        {minutes !== null && (
          <span className={styles.updated} data-testid="card-updated">
            {run.isFetching ? t("dashboards.refreshing") : minutes === 0 ? t("dashboards.updatedNow") : t("dashboards.updatedAgo", { count: minutes })}
          </span>
        )}
      </header>
      <div className={styles.cardBody}>
        {run.error ? <ErrorMessage error={run.error} onRetry={() => void run.refetch()} />
          : compare && compared.error ? <ErrorMessage error={compared.error} onRetry={() => void compared.refetch()} />
          : !result || !spec || (compare && !merged) ? <p role="status">{t("common.loading")}</p>
          : merged?.kind === "one" ? (
            <Suspense fallback={<p role="status">{t("common.loading")}</p>}>
              <ChartView spec={merged.spec} columns={resultColumns(merged.result)} rows={(merged.result.rows ?? []) as unknown[][]} title={title} fill />
            </Suspense>
          )
          : merged?.kind === "two" && compared.data && compare ? (
            <div className={styles.compared}>
              {([[compare.labels[0], result], [compare.labels[1], compared.data]] as const).map(([label, one], index) => (
                <figure key={index} className={styles.comparedPart}>
                  <figcaption>{label}</figcaption>
                  {spec.kind === "table" ? <ResultTable result={one} fileName={`${title} ${label}`} />
                    : (
                      <Suspense fallback={<p role="status">{t("common.loading")}</p>}>
                        <ChartView spec={spec} columns={resultColumns(one)} rows={(one.rows ?? []) as unknown[][]} title={`${title} · ${label}`} />
                      </Suspense>
                    )}
                </figure>
              ))}
            </div>
          )
          : spec.kind === "table" ? <ResultTable result={result} fileName={title} fetchCsv={csv ? () => csv(cardId, filters) : undefined} />
          : (
            <Suspense fallback={<p role="status">{t("common.loading")}</p>}>
              <ChartView spec={spec} columns={columns} rows={(result.rows ?? []) as unknown[][]} title={title} fill />
            </Suspense>
          )}
      </div>
    </section>
  );
}
