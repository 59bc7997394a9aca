// Forecasts drawn on time charts, computed in the browser (product spec: "Forecasts"). A pure
// module: no React, no DOM. The series is put on a regular grid of periods (missing periods filled
// by linear interpolation), then extended by 3, 6 or 12 periods with the family its length
// supports: Holt-Winters over two full seasons, else Holt's smoothed trend or a line, else a line.
// Within a family the model is chosen by AICc, as an analyst does with statsmodels: an additive or
// a multiplicative season (the latter for positive series), a trend damped or not, and for the
// short series the straight line when it fits better by the same criterion. When a multiplicative
// season wins, the same criterion also weighs the additive models of the values' logarithms,
// where the trend and the errors grow with the level too.

import { type Bucket, periodGrid, seasonLength } from "./calendar";
import { aicc, type EtsFit, fitModel, type ModelSpec, normalDeviance, predict, type Prediction, type Seasonality } from "./ets";
import { fitLine, type Line, predictLine, studentTQuantile } from "./linear";

export type { Bucket } from "./calendar";

export interface SeriesPoint {
  /** Start of the period, epoch milliseconds (UTC). */
  t: number;
  /** The period's value; null (or a non-finite number) when the query gave none. */
  value: number | null;
}

export type Horizon = 3 | 6 | 12;
export const HORIZONS: readonly Horizon[] = [3, 6, 12];

export type ForecastMethod = "holt_winters" | "smoothed_trend" | "linear" | "none";

export interface ForecastPoint {
  t: number;
  value: number;
  /** Bounds of the 80 % prediction interval. */
  lower: number;
  upper: number;
}

export interface Forecast {
  method: ForecastMethod;
  /** Periods per season of the Holt-Winters model. */
  seasonLength?: number;
  /** The fitted smoothing parameters (ETS form) of the exponential smoothing methods; `damping`
   * when the trend is damped. */
  parameters?: { level: number; trend: number; seasonal?: number; damping?: number };
  /** How the Holt-Winters season combines with the level. */
  seasonality?: "additive" | "multiplicative";
  /** True when the model was fitted to the logarithms of the values (an additive model there: a
   * multiplicative season, trend and error in the values); `parameters` are then that model's. */
  logarithms?: boolean;
  /** AICc of the chosen model on the series scaled to at most 1 in magnitude (over every period
   * fitted: the latest MAX_PERIODS). */
  aicc?: number;
  /** The next `horizon` periods; empty with method "none". */
  points: ForecastPoint[];
}

/**
 * Fewest periods for Holt's smoothed trend. ETS(A,A,N) takes four numbers from the data (initial
 * level and trend, alpha and beta); asking for twice as many periods keeps the smoothing
 * parameters from being fitted to noise. Shorter series get a least-squares line (two numbers);
 * longer ones without two seasons get the line too when its AICc is lower.
 */
export const MIN_PERIODS_SMOOTHED_TREND = 8;

/** Fewest periods for any forecast: a line needs two. One period or none gives method "none". */
export const MIN_PERIODS_LINE = 2;

/**
 * Most periods kept: the latest ones. An exponentially weighted forecast barely depends on older
 * periods, and the cap bounds the memory taken by filling gaps (two hourly points years apart would
 * otherwise make an array of tens of thousands); the candidate models are compared on
 * at most FIT_PERIODS of them, and the chosen one fitted on all.
 */
export const MAX_PERIODS = 2000;

/**
 * Most periods the candidate models are compared on: the latest ones. The choice's cost is the
 * number of candidates times the optimiser's evaluations times the periods; the chosen model is
 * then fitted again on every period (at most MAX_PERIODS), starting from the parameters found, so
 * that a long series' parameters use all of it as statsmodels' do (hourly family's held-out error
 * against statsmodels 1.003 -> 0.999) while the whole stays within the browser's budget (50 ms for
 * 2,000 points).
 */
export const FIT_PERIODS = 800;

/** A series on its bucket's regular grid, with every period between its first and last value. */
export interface RegularSeries {
  /** The first period with a value, epoch ms. */
  origin: number;
  values: number[];
  /** How many periods were filled by interpolation. */
  filled: number;
}

/**
 * Put the points on their bucket's grid. Periods absent from the input or with no value are
 * filled by linear interpolation between their nearest known neighbours; periods before the first
 * or after the last known value are dropped (nothing to interpolate from), and so are all but the
 * latest MAX_PERIODS periods. Two points in one period are a caller's error: the chart's query
 * groups by period.
 */
export function regularise(points: readonly SeriesPoint[], bucket: Bucket): RegularSeries {
  const known = points.filter(
    (p): p is { t: number; value: number } => p.value !== null && Number.isFinite(p.value) && Number.isFinite(p.t),
  );
  let sorted = [...known].sort((a, b) => a.t - b.t);
  const latest = sorted[sorted.length - 1];
  if (latest === undefined) return { origin: Number.NaN, values: [], filled: 0 };
  // Count periods back from the latest point, so that the cap keeps the most recent ones.
  const fromLatest = periodGrid(bucket, latest.t);
  sorted = sorted.filter((p) => fromLatest.index(p.t) > -MAX_PERIODS);
  const first = sorted[0]!;
  const grid = periodGrid(bucket, first.t);
  const indices = sorted.map((p) => grid.index(p.t));
  const length = indices[indices.length - 1]! + 1;
  const values = new Array<number>(length);
  let filled = 0;
  for (let i = 0; i < sorted.length; i += 1) {
    const index = indices[i]!;
    if (i > 0 && index === indices[i - 1]) {
      throw new RangeError(`two points fall in the same ${bucket}: ${new Date(sorted[i]!.t).toISOString()}`);
    }
    values[index] = sorted[i]!.value;
    const previous = i > 0 ? indices[i - 1]! : index;
    const from = sorted[i - 1]?.value ?? 0;
    for (let k = previous + 1; k < index; k += 1) {
      values[k] = from + ((sorted[i]!.value - from) * (k - previous)) / (index - previous);
      filled += 1;
    }
  }
  return { origin: first.t, values, filled };
}

/** Which method a series of `periods` regular periods gets in `bucket`. */
export function chooseMethod(periods: number, bucket: Bucket): { method: ForecastMethod; seasonLength?: number } {
  const m = seasonLength(bucket);
  if (m !== undefined && periods >= 2 * m) return { method: "holt_winters", seasonLength: m };
  if (periods >= MIN_PERIODS_SMOOTHED_TREND) return { method: "smoothed_trend" };
  if (periods >= MIN_PERIODS_LINE) return { method: "linear" };
  return { method: "none" };
}

/** What is wrong with a forecast's input, as a catalogue key and its values, so that the screen
 * says it in the person's language (`t(error.key, error.values)`); `message` is the English. */
export class ForecastInputError extends Error {
  readonly key: string;
  constructor(
    readonly reason: "horizon_text" | "horizon_not_offered" | "series_missing",
    readonly values: { given?: string } = {},
  ) {
    super(ENGLISH[reason].replace("{{given}}", values.given ?? ""));
    this.name = "ForecastInputError";
    this.key = `forecast.error.${reason}`;
  }
}

const ENGLISH: Record<ForecastInputError["reason"], string> = {
  horizon_text: "The forecast horizon must be a number of periods (3, 6 or 12), not the text \"{{given}}\".",
  horizon_not_offered: "The forecast horizon is 3, 6 or 12 periods; {{given}} is not one of them.",
  series_missing: "There is no series to forecast: choose a column of numbers over time.",
};

/** The horizon as given, checked: a number among HORIZONS, or a ForecastInputError saying why not. */
function checkedHorizon(horizon: unknown): Horizon {
  if (HORIZONS.includes(horizon as Horizon)) return horizon as Horizon;
  if (typeof horizon === "string") throw new ForecastInputError("horizon_text", { given: horizon.slice(0, 40) });
  throw new ForecastInputError("horizon_not_offered", { given: String(horizon).slice(0, 40) });
}

/** One candidate model of a series: an exponential smoothing fit or the line, with its AICc. */
type Candidate = { kind: "ets"; fit: EtsFit; aicc: number; aic: number; logarithms?: boolean } | { kind: "line"; line: Line; aicc: number; aic: number };

/** The exponential smoothing models compared for a series: with a season of `m` periods, an
 * additive and (for a positive series) a multiplicative one; without, Holt's trend; each with a
 * trend damped or not. */
export function candidateModels(y: readonly number[], m: number | undefined): ModelSpec[] {
  const seasonalities: Seasonality[] = m === undefined ? ["none"] : ["additive"];
  if (m !== undefined && y.every((v) => v > 0)) seasonalities.push("multiplicative");
  return seasonalities.flatMap((seasonality) =>
    [false, true].map((damped) => ({
      seasonLength: m ?? 0,
      seasonality,
      damped,
      // Least squares for every candidate, as statsmodels' Holt-Winters: its AICc compares them
      // and its forecasts are the analyst's reference. A multiplicative season's interval still
      // takes the relative errors' variance (see `predict`).
      error: "additive" as const,
    })),
  );
}

function etsCandidate(y: readonly number[], spec: ModelSpec, warm?: EtsFit["parameters"]): Candidate {
  const fit = fitModel(y, spec, warm);
  const k = fit.parameterCount;
  return { kind: "ets", fit, aicc: aicc(fit.deviance, k, y.length), aic: fit.deviance + 2 * k };
}

/**
 * An additive model fitted to the logarithms of a positive series: a season, a trend and errors
 * in proportion to the level (exponential growth stays exponential), statsmodels' Holt-Winters
 * with `use_boxcox="log"`. Its deviance is taken back to the values' scale (plus 2 sum log y, the
 * logarithm's Jacobian) so that its AICc compares with the models of the values.
 */
function logCandidate(y: readonly number[], spec: ModelSpec, warm?: EtsFit["parameters"]): Candidate {
  const logs = y.map(Math.log);
  const fit = fitModel(logs, spec, warm);
  const k = fit.parameterCount;
  const deviance = fit.deviance + 2 * logs.reduce((sum, v) => sum + v, 0);
  return { kind: "ets", fit, aicc: aicc(deviance, k, y.length), aic: deviance + 2 * k, logarithms: true };
}

function lineCandidate(y: readonly number[]): Candidate {
  const line = fitLine(y);
  const n = y.length;
  // Intercept, slope and the variance; a line through two points fits them exactly.
  const deviance = normalDeviance(n > 2 ? line.residualVariance * (n - 2) : 0, n);
  return { kind: "line", line, aicc: aicc(deviance, 3, n), aic: deviance + 6 };
}

/** The candidate with the lowest AICc; AIC decides when the series is too short for AICc. */
function best(candidates: readonly Candidate[]): Candidate {
  return candidates.reduce((chosen, c) => {
    const finite = Number.isFinite(c.aicc) || Number.isFinite(chosen.aicc);
    return (finite ? c.aicc < chosen.aicc : c.aic < chosen.aic) ? c : chosen;
  });
}

/**
 * Add to the interval the error of the estimated level and trend, which the exponential smoothing
 * formulas leave out: the line's extrapolation term, sigma^2 (1/n + (x - mean)^2 / Sxx), for the
 * period x beyond the n fitted. It is the exact term of a model whose smoothing parameters are
 * zero (a line, times or plus a fixed season: what short series often get), and small beside the
 * smoothing's own term when they are not.
 */
function withEstimationError(prediction: Prediction, fit: EtsFit, n: number, widen: number, quantile: number): Prediction {
  const meanIndex = (n - 1) / 2;
  const spread = (n * (n * n - 1)) / 12;
  const lower: number[] = [];
  const upper: number[] = [];
  prediction.mean.forEach((value, i) => {
    const half = (prediction.upper[i]! - prediction.lower[i]!) / 2;
    const leverage = 1 / n + (n + i - meanIndex) ** 2 / spread;
    const unit = fit.seasonality === "multiplicative" ? fit.variance * widen * value * value : fit.mse * widen;
    const wider = Math.sqrt(half * half + quantile * quantile * unit * leverage);
    lower.push(value - wider);
    upper.push(value + wider);
  });
  return { mean: prediction.mean, lower, upper };
}

/** Extend a time series by `horizon` periods of its bucket, with an 80 % interval. */
export function forecast(points: readonly SeriesPoint[], bucket: Bucket, horizon: Horizon): Forecast {
  // Stored specs and programs reach here too: what they get wrong is said plainly, never a TypeError.
  checkedHorizon(horizon);
  if (!Array.isArray(points)) throw new ForecastInputError("series_missing");
  const series = regularise(points, bucket);
  const choice = chooseMethod(series.values.length, bucket);
  if (choice.method === "none") return { method: "none", points: [] };

  // The models are scale-equivariant; fitting on values scaled to at most 1 keeps the sums of
  // squares finite for huge values (1e300) and well conditioned for tiny ones. An all-zero series
  // keeps scale 1 (it forecasts zeros with no spread).
  const scale = series.values.reduce((largest, v) => Math.max(largest, Math.abs(v)), 0) || 1;
  if (!Number.isFinite(scale)) return { method: "none", points: [] };
  const y = series.values.map((v) => v / scale);

  // Every candidate sees the same periods, or their AICc would not compare.
  const recent = y.length > FIT_PERIODS ? y.slice(-FIT_PERIODS) : y;
  const candidates: Candidate[] = [];
  if (choice.method === "linear") candidates.push(lineCandidate(recent));
  else {
    for (const spec of candidateModels(recent, choice.seasonLength)) candidates.push(etsCandidate(recent, spec));
    if (choice.method === "smoothed_trend") candidates.push(lineCandidate(recent));
    // A season that grows with the level (the multiplicative one wins: the series is positive)
    // often comes with a trend and errors that grow with it too: the logarithms' additive model,
    // its trend damped as the leader's, competes (held-out error of the monthly multiplicative
    // family 1.00 -> 0.74 of statsmodels'; offered to every seasonal series, it would win some
    // additive ones by chance; the other damping changed no choice and costs a fit).
    const leading = best(candidates);
    if (leading.kind === "ets" && leading.fit.seasonality === "multiplicative") {
      const damped = leading.fit.parameters.damping !== undefined;
      candidates.push(logCandidate(recent, { seasonLength: leading.fit.seasonLength, seasonality: "additive", damped, error: "additive" }));
    }
  }
  let chosen = best(candidates);
  if (chosen.kind === "ets" && recent.length < y.length) {
    // The chosen model again on every period, from the parameters found on the latest ones; a
    // multiplicative season or logarithms on the periods since the last one at or below zero.
    const { fit, logarithms } = chosen;
    const spec: ModelSpec = {
      seasonLength: fit.seasonLength,
      seasonality: fit.seasonality,
      damped: fit.parameters.damping !== undefined,
      error: fit.error,
    };
    let from = 0;
    if (logarithms || spec.seasonality === "multiplicative") for (let t = 0; t < y.length; t += 1) if (!(y[t]! > 0)) from = t + 1;
    const all = from === 0 ? y : y.slice(from);
    chosen = logarithms ? logCandidate(all, spec, fit.parameters) : etsCandidate(all, spec, fit.parameters);
  }

  let prediction: Prediction;
  let result: Forecast;
  if (chosen.kind === "line") {
    prediction = predictLine(chosen.line, horizon);
    result = { method: "linear", points: [] };
  } else {
    const fit = chosen.fit;
    // The interval from the error variance with the degrees of freedom the model took (sum of
    // squares over n - k, as R's ets does, not over n as statsmodels) and Student's t for the
    // estimated variance, as the line's: the in-sample errors of a model with k numbers fitted
    // understate the errors to come, most of all in short series (held-out coverage of the
    // fixtures' families: 72 % with statsmodels' variance and normal quantile, 75 % so, 77 % with
    // the estimation error below).
    const n = fit.fitted.length;
    const freedom = Math.max(n - fit.parameterCount, 1);
    const widen = n / freedom;
    const quantile = studentTQuantile(0.9, freedom);
    prediction = predict({ ...fit, mse: fit.mse * widen, variance: fit.variance * widen }, horizon, quantile);
    prediction = withEstimationError(prediction, fit, n, widen, quantile);
    // Back from logarithms: the median forecast and the same quantiles of the values.
    if (chosen.logarithms) prediction = { mean: prediction.mean.map(Math.exp), lower: prediction.lower.map(Math.exp), upper: prediction.upper.map(Math.exp) };
    const { level, trend, seasonal, damping } = fit.parameters;
    const parameters = damping === undefined ? { level, trend } : { level, trend, damping };
    result =
      fit.seasonality === "none"
        ? { method: "smoothed_trend", parameters, points: [] }
        : {
            method: "holt_winters",
            seasonLength: fit.seasonLength,
            seasonality: chosen.logarithms ? "multiplicative" : fit.seasonality,
            parameters: { ...parameters, seasonal },
            points: [],
          };
    if (chosen.logarithms) result.logarithms = true;
  }
  if (Number.isFinite(chosen.aicc)) result.aicc = chosen.aicc;

  const grid = periodGrid(bucket, series.origin);
  const last = series.values.length - 1;
  result.points = prediction.mean.map((value, i) => ({
    t: grid.stamp(last + i + 1),
    value: value * scale,
    lower: prediction.lower[i]! * scale,
    upper: prediction.upper[i]! * scale,
  }));
  // Values near the largest double can still overflow once extended: no forecast beats a wrong one.
  const finite = result.points.every((p) => Number.isFinite(p.value) && Number.isFinite(p.lower) && Number.isFinite(p.upper));
  return finite ? result : { method: "none", points: [] };
}
