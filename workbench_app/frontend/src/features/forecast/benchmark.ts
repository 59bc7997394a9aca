// The benchmark (the forecast of a 2,000-point series, target <= 50 ms), callable from a
// Vitest test in Node and from a page in the browser (bench/ times it in Chromium).

import { forecast, type SeriesPoint } from "./forecast";

/** A daily (or hourly) series with a trend, a weekly (daily) season and deterministic noise,
 * from 2 January 2023. */
export function benchmarkSeries(count = 2000, bucket: "day" | "hour" = "day"): SeriesPoint[] {
  const step = bucket === "day" ? 86_400_000 : 3_600_000;
  const season = bucket === "day" ? 7 : 24;
  const start = Date.UTC(2023, 0, 2);
  return Array.from({ length: count }, (_, i) => ({
    t: start + i * step,
    value: 1000 + 0.5 * i + 80 * Math.sin((2 * Math.PI * i) / season) + 15 * Math.sin(i * 12.9898),
  }));
}

export interface BenchmarkFigures {
  points: number;
  /** Mean milliseconds per forecast: Holt-Winters (every candidate fitted and compared), 12 periods ahead. */
  holtWintersMs: number;
  /** The same in processor time, where the runtime tells it (Node): on a machine shared with other
   * work, the wall-clock figure also counts the time spent waiting for a core. */
  holtWintersCpuMs?: number;
  /** Baseline from the same run: the straight line over the same points' last seven. */
  lineMs: number;
}

type CpuClock = () => { user: number; system: number };

/** Time `runs` forecasts of a `count`-point daily (hourly) series after one warm-up, beside a baseline. */
export function timeForecast(count = 2000, runs = 20, bucket: "day" | "hour" = "day"): BenchmarkFigures {
  const series = benchmarkSeries(count, bucket);
  const short = series.slice(-7);
  const cpuUsage = (globalThis as { process?: { cpuUsage?: CpuClock } }).process?.cpuUsage;
  const cpuMs = () => {
    const used = cpuUsage!();
    return (used.user + used.system) / 1000;
  };
  const mean = (work: () => void) => {
    work();
    const started = performance.now();
    const cpuStarted = cpuUsage ? cpuMs() : 0;
    for (let i = 0; i < runs; i += 1) work();
    return { wall: (performance.now() - started) / runs, cpu: cpuUsage ? (cpuMs() - cpuStarted) / runs : undefined };
  };
  const holtWinters = mean(() => forecast(series, bucket, 12));
  const figures: BenchmarkFigures = { points: count, holtWintersMs: holtWinters.wall, lineMs: mean(() => forecast(short, bucket, 12)).wall };
  if (holtWinters.cpu !== undefined) figures.holtWintersCpuMs = holtWinters.cpu;
  return figures;
}
