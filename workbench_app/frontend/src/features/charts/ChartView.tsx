import { useContext, useLayoutEffect, useMemo, useRef } from "react";
import { useTranslation } from "react-i18next";
import { formatNumber } from "../../i18n/i18n";
import type { ResultColumn } from "../results/types";
import { buildOption, changeValues, numberValue, type ForecastSeries } from "./chartOptions";
import { isSingleValue, type ChartSpec } from "./chartSpec";
import styles from "./ChartView.module.css";
import { echarts } from "./echarts";
import { ThemePalette } from "../themes/paletteContext";

/** The theme's palette, read from the design tokens (one place for the app, embeds and PDF). */
function themePalette(element: HTMLElement): string[] {
  const style = getComputedStyle(element);
  return Array.from({ length: 8 }, (_, i) => style.getPropertyValue(`--chart-${i + 1}`).trim()).filter(Boolean);
}

interface Props {
  spec: ChartSpec;
  columns: ResultColumn[];
  rows: unknown[][];
  forecasts?: ForecastSeries[];
  title: string;
  /** Fill the parent's height (a dashboard card) rather than the editor's fixed height. */
  fill?: boolean;
}

// One empty list for every chart without forecasts: a fresh `[]` at each render would count as a
// change below and redraw the chart each time its card renders (its "updated" label, say).
const NO_FORECASTS: ForecastSeries[] = [];

export default function ChartView({ spec, columns, rows, forecasts = NO_FORECASTS, title, fill = false }: Props) {
  const { t, i18n } = useTranslation();
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  const texts = useMemo(() => ({
    forecast: t("chart.forecast"), interval: t("chart.interval"), incomplete: t("chart.incomplete"),
    analysis: {
      other: t("analysis.other"), step: (n: number) => t("analysis.stepNode", { n }),
      period: (n: number) => t("analysis.periodNumber", { n }), visitors: t("analysis.visitors"),
      dropOff: t("analysis.dropOff"), medianTime: t("analysis.medianTime"),
      percent: (share: number) => formatNumber(share, { style: "percent", maximumFractionDigits: 1 }),
      count: (value: number) => formatNumber(value),
      duration: (seconds: number) => seconds >= 3600
        ? t("analysis.hours", { value: formatNumber(seconds / 3600, { maximumFractionDigits: 1 }) })
        : seconds >= 60 ? t("analysis.minutes", { value: formatNumber(seconds / 60, { maximumFractionDigits: 1 }) })
          : t("analysis.seconds", { value: formatNumber(seconds, { maximumFractionDigits: 0 }) }),
    },
  }), [t]);
  // Only a signal to draw again (a theme that arrives after the result): the colours are read from the tokens below.
  const palette = useContext(ThemePalette);

  // Layout effects: the chart is set up in the commit that places its box, not in a task after the
  // next paint (a frame later for each card whose answer arrives).
  useLayoutEffect(() => {
    if (isSingleValue(spec.kind) || spec.kind === "table" || !host.current) return undefined;
    const instance = echarts.init(host.current, undefined, { renderer: "svg" });
    // A User Timing mark each time a chart is drawn (read by bench/workbench_ui.py; cheap to keep).
    instance.on("finished", () => {
      performance.mark("workbench:chart-drawn");
    });
    chart.current = instance;
    // An observer reports the size it starts with: redrawing for it would draw every chart twice.
    const element = host.current;
    let size = `${element.clientWidth}x${element.clientHeight}`;
    const resize = new ResizeObserver(() => {
      const now = `${element.clientWidth}x${element.clientHeight}`;
      if (now === size) return;
      size = now;
      instance.resize();
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, [spec.kind]);

  useLayoutEffect(() => {
    if (!chart.current || !host.current) return;
    chart.current.setOption(buildOption(spec, columns, rows, themePalette(host.current), forecasts, texts,
      { locale: i18n.language, width: host.current.clientWidth }), { notMerge: true });
  }, [spec, columns, rows, forecasts, texts, palette, i18n.language]);

  if (spec.kind === "change") {
    const { value, previous, change, good } = changeValues(spec, columns, rows);
    const written = change === null ? null
      : formatNumber(change, { style: "percent", maximumFractionDigits: 1, signDisplay: "exceptZero" });
    return (
      <figure className={`${styles.number} ${styles.change}${fill ? ` ${styles.fill}` : ""}`} aria-label={title}>
        <span className={styles.value}>{value === null ? "–" : formatNumber(value, { maximumFractionDigits: 2 })}</span>
        <figcaption>
          <span className={good === null ? styles.flat : good ? styles.good : styles.bad}>
            {written === null ? t("chart.noChange") : t("chart.change", { change: written })}
          </span>
          {previous !== null && <span className={styles.previous}>{t("chart.previousPeriod", { value: formatNumber(previous, { maximumFractionDigits: 2 }) })}</span>}
        </figcaption>
      </figure>
    );
  }

  if (spec.kind === "number") {
    const value = numberValue(spec, columns, rows);
    return (
      <figure className={fill ? `${styles.number} ${styles.fill}` : styles.number} aria-label={title}>
        <span className={styles.value}>{value === null ? "–" : formatNumber(value, { maximumFractionDigits: 2 })}</span>
        <figcaption>{spec.y[0]}</figcaption>
      </figure>
    );
  }
  return (
    <figure className={fill ? `${styles.figure} ${styles.fill}` : styles.figure}>
      <div ref={host} className={styles.chart} role="img" aria-label={title} data-testid="chart" />
      {spec.kind === "heatmap" && <figcaption className={styles.caption}>{t("analysis.retentionNote")}</figcaption>}
      {forecasts.length > 0 && (
        <figcaption className={styles.caption}>
          {t("chart.forecastMethod", { method: t(`forecast.method.${forecasts[0]!.method}`) })}
        </figcaption>
      )}
    </figure>
  );
}
