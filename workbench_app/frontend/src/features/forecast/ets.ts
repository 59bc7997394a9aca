// Additive exponential smoothing as statsmodels' ETSModel does it: ETS(A,A,A) (Holt-Winters) and
// ETS(A,A,N) (Holt's smoothed trend), with statsmodels' "simple" initial states, smoothing
// parameters chosen by least squares of the one-step errors (the maximum likelihood of an
// additive-error model), and the analytic forecast variance of Hyndman & Athanasopoulos.

import { minimise } from "./nelderMead";

export interface SmoothingParameters {
  /** alpha: the level's share of each one-step error. */
  level: number;
  /** beta, in ETS form (alpha times Holt's beta*): the trend's share of each error. */
  trend: number;
  /** gamma: the season's share of each error (0 without a season). */
  seasonal: number;
}

export interface InitialStates {
  level: number;
  trend: number;
  /** The m seasonal terms before the first observation, oldest first (empty without a season). */
  seasonal: number[];
}

export interface EtsFit {
  parameters: SmoothingParameters;
  /** One-step-ahead predictions of the observations. */
  fitted: number[];
  sse: number;
  /** Mean squared one-step error (SSE / n): the error variance, as statsmodels' `mse`. */
  mse: number;
  final: InitialStates;
  seasonLength: number;
}

export interface Prediction {
  mean: number[];
  lower: number[];
  upper: number[];
}

/** Standard normal quantile at 0.9: the half-width factor of a central 80 % interval. */
export const Z_80 = 1.2815515655446004;

// statsmodels' bounds on alpha, beta* = beta / alpha and gamma* = gamma / (1 - alpha), which keep
// the usual admissible region 0 < beta < alpha and 0 < gamma < 1 - alpha.
const LOWER = 1e-4;
const UPPER = 1 - 1e-4;

/** statsmodels' `_initialization_simple` (FPP 3rd ed., section 7.6) for an additive trend. */
export function simpleInitialStates(y: readonly number[], seasonLength = 0): InitialStates {
  const m = seasonLength;
  if (m === 0) {
    if (y.length < 2) throw new RangeError("a trend needs two observations");
    return { level: y[0]!, trend: y[1]! - y[0]!, seasonal: [] };
  }
  if (y.length < 2 * m) throw new RangeError("a season needs two full cycles");
  let firstCycle = 0;
  let trend = 0;
  for (let i = 0; i < m; i += 1) {
    firstCycle += y[i]!;
    trend += (y[i + m]! - y[i]!) / m;
  }
  const level = firstCycle / m;
  return { level, trend: trend / m, seasonal: y.slice(0, m).map((v) => v - level) };
}

/** Run the model's recursions over `y` from the given initial states. */
export function smooth(y: readonly number[], parameters: SmoothingParameters, initial: InitialStates): EtsFit {
  const m = initial.seasonal.length;
  const { level: alpha, trend: beta, seasonal: gamma } = parameters;
  const season = [...initial.seasonal];
  let level = initial.level;
  let trend = initial.trend;
  let sse = 0;
  const fitted = new Array<number>(y.length);
  for (let t = 0; t < y.length; t += 1) {
    const slot = m === 0 ? 0 : t % m;
    const s = m === 0 ? 0 : season[slot]!;
    const prediction = level + trend + s;
    const error = y[t]! - prediction;
    fitted[t] = prediction;
    sse += error * error;
    level = level + trend + alpha * error;
    trend = trend + beta * error;
    if (m > 0) season[slot] = s + gamma * error;
  }
  // Rotate the seasonal terms so that the oldest (the next period's) comes first.
  const shift = m === 0 ? 0 : y.length % m;
  const seasonal = [...season.slice(shift), ...season.slice(0, shift)];
  return {
    parameters,
    fitted,
    sse,
    mse: sse / y.length,
    final: { level, trend, seasonal },
    seasonLength: m,
  };
}

function fromStarred(x: readonly number[], seasonal: boolean): SmoothingParameters {
  const alpha = x[0]!;
  return { level: alpha, trend: x[1]! * alpha, seasonal: seasonal ? x[2]! * (1 - alpha) : 0 };
}

// statsmodels' start (alpha 0.1, beta 0.01, gamma 0.01) in (alpha, beta*, gamma*).
const START = [0.1, 0.1, 0.01];

/** Fit ETS(A,A,A) (seasonLength > 0) or ETS(A,A,N) by least squares of the one-step errors. */
export function fitEts(y: readonly number[], seasonLength = 0): EtsFit {
  const initial = simpleInitialStates(y, seasonLength);
  const seasonal = seasonLength > 0;
  const dimensions = seasonal ? 3 : 2;
  const objective = (x: number[]) => smooth(y, fromStarred(x, seasonal), initial).sse;
  const bounds = { lower: new Array<number>(dimensions).fill(LOWER), upper: new Array<number>(dimensions).fill(UPPER) };
  // A simplex can shrink onto a bound or a ridge before the minimum: restarting from where it
  // stopped, with a fresh simplex, is the usual remedy (it stops at once when already there).
  let found = minimise(objective, START.slice(0, dimensions), bounds);
  for (let restart = 0; restart < 3; restart += 1) {
    const again = minimise(objective, found.x, bounds);
    const improved = again.value < found.value * (1 - 1e-9);
    if (again.value < found.value) found = again;
    if (!improved) break;
  }
  return smooth(y, fromStarred(found.x, seasonal), initial);
}

/**
 * Relative variance of the h-step forecast error (statsmodels' `_relative_forecast_variance`
 * for models "AAN" and "AAA", from FPP 2nd ed., table 7.8); times the mse, the forecast variance.
 */
export function relativeForecastVariance(h: number, parameters: SmoothingParameters, seasonLength: number): number {
  const { level: alpha, trend: beta, seasonal: gamma } = parameters;
  const trendPart = 1 + (h - 1) * (alpha * alpha + alpha * beta * h + (beta * beta * h * (2 * h - 1)) / 6);
  if (seasonLength === 0) return trendPart;
  const k = Math.floor((h - 1) / seasonLength);
  return trendPart + gamma * k * (2 * alpha + gamma + beta * seasonLength * (k + 1));
}

/** Point forecasts and the 80 % interval for the next `horizon` periods. */
export function predict(fit: EtsFit, horizon: number): Prediction {
  const { level, trend, seasonal } = fit.final;
  const m = fit.seasonLength;
  const mean: number[] = [];
  const lower: number[] = [];
  const upper: number[] = [];
  for (let h = 1; h <= horizon; h += 1) {
    const value = level + h * trend + (m === 0 ? 0 : seasonal[(h - 1) % m]!);
    const half = Z_80 * Math.sqrt(fit.mse * relativeForecastVariance(h, fit.parameters, m));
    mean.push(value);
    lower.push(value - half);
    upper.push(value + half);
  }
  return { mean, lower, upper };
}
