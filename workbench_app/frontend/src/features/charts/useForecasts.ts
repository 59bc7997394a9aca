import { useMemo } from "react";
import { forecast, ForecastInputError, type Horizon } from "../forecast/forecast";
import type { ResultColumn } from "../results/types";
import { timeSeries, type ForecastSeries } from "./chartOptions";
import type { ChartSpec } from "./chartSpec";
import { inferBucket } from "./forecastSeries";

/** Forecasts of a chart's series, computed in the browser (none until a horizon is chosen).
 * Each computation is recorded as a User Timing measure named "forecast" (read by the benchmark). */
export function useForecasts(spec: ChartSpec | null, columns: ResultColumn[], rows: unknown[][]): Forecasts {
  return useMemo(() => {
    if (!spec?.forecast || !spec.x) return { forecasts: [] };
    const forecasts: ForecastSeries[] = [];
    let problem: ForecastInputError | undefined;
    for (const y of spec.y) {
      const points = timeSeries(columns, rows, spec.x, y);
      const bucket = inferBucket(points.map((point) => point.t));
      if (!bucket) continue;
      const start = performance.now();
      try {
        const result = forecast(points, bucket, spec.forecast as Horizon);
        if (result.points.length > 0) forecasts.push({ series: y, method: result.method, points: result.points });
      } catch (error) {
        // What the spec gets wrong is said to the person; two rows in one period (a query not
        // grouped by its time bucket) only leave this series without a forecast.
        if (error instanceof ForecastInputError) problem ??= error;
        else if (!(error instanceof RangeError)) throw error;
      } finally {
        performance.measure("forecast", { start, end: performance.now() });
      }
    }
    return { forecasts, problem };
  }, [spec, columns, rows]);
}

export interface Forecasts {
  forecasts: ForecastSeries[];
  /** Why the spec's forecast cannot be drawn, to show in the person's language. */
  problem?: ForecastInputError | undefined;
}
