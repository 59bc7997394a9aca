import { useContext } from "react";
import { useTranslation } from "react-i18next";
import { ThemePalette } from "../themes/paletteContext";
import type { ResultColumn } from "../results/types";
import { SelectField } from "../../ui/SelectField";
import { ANALYSIS_KINDS, canForecast, CHART_KINDS, FORECAST_HORIZONS, isNumeric, isSingleValue, type ChartKind, type ChartSpec, type ForecastHorizon } from "./chartSpec";
import styles from "./ChartSettings.module.css";

interface Props {
  spec: ChartSpec;
  columns: ResultColumn[];
  onChange: (spec: ChartSpec) => void;
}

const DEFAULT_PALETTE = ["#1d4ed8", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2", "#db2777", "#65a30d"];

export function ChartSettings({ spec, columns, onChange }: Props) {
  const { t } = useTranslation();
  const numeric = columns.filter(isNumeric);
  const set = (change: Partial<ChartSpec>) => onChange({ ...spec, ...change });
  // The series' colours before any is chosen: the themed area's palette, else the design tokens'.
  const themed = useContext(ThemePalette);
  const palette = themed ? themed.split(" ") : DEFAULT_PALETTE;

  return (
    <fieldset className={styles.panel}>
      <legend>{t("chart.settings")}</legend>
      <SelectField label={t("chart.kind")} value={spec.kind}
        options={CHART_KINDS.map((kind) => ({ value: kind, label: t(`chart.kind.${kind}`) }))}
        onChange={(kind: ChartKind) => set({ kind, forecast: 0 })} />
      {!isSingleValue(spec.kind) && spec.kind !== "table" && !ANALYSIS_KINDS.includes(spec.kind) && (
        <SelectField label={t("chart.x")} value={spec.x ?? ""}
          options={[{ value: "", label: "—" }, ...columns.map((c) => ({ value: c.name, label: c.name }))]}
          onChange={(x) => set({ x: x || undefined })} />
      )}
      {spec.kind !== "table" && !ANALYSIS_KINDS.includes(spec.kind) && (
        <fieldset className={styles.group}>
          <legend>{t("chart.y")}</legend>
          {numeric.map((column, index) => (
            <div key={column.name} className={styles.series}>
              <label>
                <input type="checkbox" checked={spec.y.includes(column.name)}
                  onChange={(event) => set({ y: event.target.checked ? [...spec.y, column.name] : spec.y.filter((n) => n !== column.name) })} />
                {column.name}
              </label>
              <input type="color" aria-label={t("chart.colour", { series: column.name })}
                value={spec.colors?.[spec.y.indexOf(column.name)] ?? palette[index % palette.length]}
                onChange={(event) => {
                  const colors = spec.y.map((name, n) => spec.colors?.[n] ?? palette[numeric.findIndex((c) => c.name === name) % palette.length]!);
                  const at = spec.y.indexOf(column.name);
                  if (at >= 0) colors[at] = event.target.value;
                  set({ colors });
                }} />
            </div>
          ))}
        </fieldset>
      )}
      {(spec.kind === "bar" || spec.kind === "area" || spec.kind === "line") && (
        <label className={styles.check}>
          <input type="checkbox" checked={spec.stacked === true} onChange={(e) => set({ stacked: e.target.checked })} />
          {t("chart.stacked")}
        </label>
      )}
      {spec.kind === "bar" && (
        <label className={styles.check}>
          <input type="checkbox" checked={spec.horizontal === true} onChange={(e) => set({ horizontal: e.target.checked })} />
          {t("chart.horizontal")}
        </label>
      )}
      {spec.kind !== "table" && !isSingleValue(spec.kind) && !ANALYSIS_KINDS.includes(spec.kind) && (
        <label className={styles.check}>
          <input type="checkbox" checked={spec.labels === true} onChange={(e) => set({ labels: e.target.checked })} />
          {t("chart.labels")}
        </label>
      )}
      {canForecast(spec, columns) && (
        <SelectField label={t("chart.forecastHorizon")} value={String(spec.forecast ?? 0)}
          options={FORECAST_HORIZONS.map((h) => ({ value: String(h), label: h === 0 ? t("chart.noForecast") : t("chart.periods", { count: h }) }))}
          onChange={(value) => set({ forecast: Number(value) as ForecastHorizon })} />
      )}
    </fieldset>
  );
}
