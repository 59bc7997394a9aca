// A statement's answer: its status line (rows, time, truncated), then the table or the chart
// with its settings. The chart code loads only when a chart is shown.
import { Suspense, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { formatNumber } from "../../i18n/i18n";
import { ChartSettings } from "../charts/ChartSettings";
import { canForecast, type ChartSpec } from "../charts/chartSpec";
import { LazyChartView as ChartView } from "../charts/lazyChartView";
import { useForecasts } from "../charts/useForecasts";
import { ResultTable } from "./ResultTable";
import styles from "./ResultPanel.module.css";
import { resultColumns, type Result } from "./types";


interface Props {
  result: Result;
  spec: ChartSpec;
  onSpecChange: (spec: ChartSpec) => void;
  title: string;
  /** See ResultTable: the whole result as CSV from the server. */
  fetchCsv?: () => Promise<Blob>;
}

export function ResultPanel({ result, spec, onSpecChange, title, fetchCsv }: Props) {
  const { t } = useTranslation();
  const columns = useMemo(() => resultColumns(result), [result]);
  const rows = (result.rows ?? []) as unknown[][];
  const { forecasts, problem } = useForecasts(canForecast(spec, columns) ? spec : null, columns, rows);

  return (
    <section className={styles.panel} aria-label={t("results.label")}>
      <p className={styles.status} role="status" data-testid="result-status">
        {t("results.rows", { count: result.row_count, formatted: formatNumber(result.row_count) })}
        {result.elapsed_ms !== undefined && ` · ${t("results.time", { ms: formatNumber(result.elapsed_ms, { maximumFractionDigits: 0 }) })}`}
        {result.truncated && <strong className={styles.truncated}> · {t("results.truncated")}</strong>}
      </p>
      {problem && <p role="alert">{t(problem.key, problem.values)}</p>}
      <div className={styles.body}>
        <div className={styles.view}>
          {spec.kind === "table"
            ? <ResultTable result={result} fileName={title} fetchCsv={fetchCsv} />
            : (
              <Suspense fallback={<p role="status">{t("common.loading")}</p>}>
                <ChartView spec={spec} columns={columns} rows={rows} forecasts={forecasts} title={title} />
              </Suspense>
            )}
        </div>
        <ChartSettings spec={spec} columns={columns} onChange={onSpecChange} />
      </div>
    </section>
  );
}
