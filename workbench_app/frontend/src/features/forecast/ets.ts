// Exponential smoothing in the ETS form statsmodels' ETSModel uses (Hyndman et al., "Forecasting
// with exponential smoothing", 2008): an additive trend, damped or not, and no season, an additive
// one or a multiplicative one. Two ways to fit:
// - `fitEts`: statsmodels' "simple" initial states and least squares of the one-step errors (the
//   reference the fixtures check the recursions against);
// - `fitModel`: initial states from a regression over the first seasons, then estimated with the
//   smoothing parameters by maximum likelihood (least squares for additive errors), alternately
//   by Gauss-Newton steps and a bounded simplex, within statsmodels' Holt-Winters bounds (the
//   trend's smoothing at most the level's); its deviance and parameter count give the AICc that
//   compares the candidates.
// Forecast variances are analytic: Hyndman's class 1 (additive errors) and class 3 (a
// multiplicative season, relative errors) formulas.

import { fitLine } from "./linear";
import { minimise } from "./nelderMead";

export type Seasonality = "none" | "additive" | "multiplicative";
export type ErrorForm = "additive" | "multiplicative";

export interface SmoothingParameters {
  /** alpha: the level's share of each one-step error. */
  level: number;
  /** beta, in ETS form (alpha times Holt's beta*): the trend's share of each error. */
  trend: number;
  /** gamma: the season's share of each error (0 without a season). */
  seasonal: number;
  /** phi: the trend's damping (1, or absent, for an undamped trend). */
  damping?: number;
}

export interface InitialStates {
  level: number;
  trend: number;
  /** The m seasonal terms before the first observation, oldest first (empty without a season). */
  seasonal: number[];
}

/** The form of a model: its season and trend, and how its errors are measured. */
export interface ModelSpec {
  /** Periods per season; 0 without a season. */
  seasonLength: number;
  seasonality: Seasonality;
  damped: boolean;
  /** Additive errors have a constant variance; multiplicative ones a variance proportional to
   * the square of the forecast (the likelihood and the interval differ, the recursions do not). */
  error: ErrorForm;
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
  seasonality: Seasonality;
  error: ErrorForm;
  /** Variance of the one-step errors, relative to the forecast for multiplicative errors. */
  variance: number;
  /** -2 log-likelihood, less the constant n (log 2 pi + 1) shared by every model of the series. */
  deviance: number;
  /** Numbers taken from the data: smoothing parameters, free initial states and the variance. */
  parameterCount: number;
}

export interface Prediction {
  mean: number[];
  lower: number[];
  upper: number[];
}

/** Standard normal quantile at 0.9: the half-width factor of a central 80 % interval. */
export const Z_80 = 1.2815515655446004;

// statsmodels' bounds on alpha, beta* = beta / alpha and gamma* = gamma / (1 - alpha), which keep
// the usual admissible region 0 < beta < alpha and 0 < gamma < 1 - alpha, and ETSModel's bounds on
// the damping (a damping nearer 1 is an undamped trend, a candidate of its own).
const LOWER = 1e-4;
const UPPER = 1 - 1e-4;
export const DAMPING_BOUNDS = [0.8, 0.98] as const;

/** Akaike's criterion corrected for small samples; infinite when the data cannot pay for the
 * parameters (n <= k + 1). */
export function aicc(deviance: number, parameterCount: number, count: number): number {
  const k = parameterCount;
  if (count - k - 1 <= 0) return Number.POSITIVE_INFINITY;
  return deviance + 2 * k + (2 * k * (k + 1)) / (count - k - 1);
}

/** -2 log-likelihood of normal errors with variance SSE / n, less n (log 2 pi + 1). The variance
 * has a floor so that a perfect fit (a constant series) is finite and compares. */
export function normalDeviance(sse: number, count: number): number {
  return count * Math.log(Math.max(sse / count, 1e-300));
}

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

/** Fewest periods the trend's regression uses without a season (statsmodels' heuristic uses 10). */
const HEURISTIC_POINTS = 10;
/** Most seasons the seasonal decomposition of the first periods uses. */
const HEURISTIC_SEASONS = 4;

/**
 * Initial states from the first seasons, after the classical decomposition (Hyndman et al. 2008,
 * section 2.6.1): the season from a centred moving average over the first (up to four) seasons,
 * then the level and the trend from a regression of the seasonally adjusted values on time.
 * Without a season, the regression covers the first ten periods (or all of a shorter series).
 * The level is the state before the first period, so the first prediction is the line's start.
 */
export function heuristicInitialStates(y: readonly number[], seasonLength: number, seasonality: Seasonality): InitialStates {
  const m = seasonality === "none" ? 0 : seasonLength;
  const multiplicative = seasonality === "multiplicative";
  let adjusted: number[];
  let seasonal: number[] = [];
  if (m > 0) {
    if (y.length < 2 * m) throw new RangeError("a season needs two full cycles");
    const cycles = Math.min(HEURISTIC_SEASONS, Math.floor(y.length / m));
    const first = y.slice(0, cycles * m);
    // A 2 x m moving average for an even season (weights 1/2m at both ends), an m one for odd.
    const half = Math.floor(m / 2);
    const sums = new Array<number>(m).fill(0);
    const counts = new Array<number>(m).fill(0);
    for (let t = half; t < first.length - half; t += 1) {
      let average = 0;
      if (m % 2 === 0) {
        for (let j = -half; j <= half; j += 1) average += first[t + j]! * (Math.abs(j) === half ? 0.5 : 1);
      } else {
        for (let j = -half; j <= half; j += 1) average += first[t + j]!;
      }
      average /= m;
      sums[t % m]! += multiplicative ? first[t]! / average : first[t]! - average;
      counts[t % m]! += 1;
    }
    seasonal = sums.map((sum, slot) => sum / counts[slot]!);
    const centre = seasonal.reduce((total, s) => total + s, 0) / m;
    seasonal = seasonal.map((s) => (multiplicative ? s / centre : s - centre));
    adjusted = first.map((v, t) => (multiplicative ? v / seasonal[t % m]! : v - seasonal[t % m]!));
  } else {
    adjusted = y.slice(0, Math.min(y.length, HEURISTIC_POINTS));
  }
  const { intercept, slope } = fitLine(adjusted);
  return { level: intercept - slope, trend: slope, seasonal };
}

interface Smoothed extends EtsFit {
  /** Sum of squared relative errors (e / prediction) and of log |prediction|. */
  relativeSse: number;
  logPredictions: number;
}

/**
 * Run the model's recursions over `y` from the given initial states. The level and the trend are
 * in the ETS error-correction form, the same for additive and multiplicative errors (which differ
 * in likelihood and interval); a multiplicative season is updated as statsmodels does it, from the
 * new level: s = gamma* y / level + (1 - gamma*) s, gamma* = gamma / (1 - alpha). Without a `spec`,
 * the season is additive when there are seasonal states (the reference models). With `residuals`,
 * the one-step errors (relative ones for multiplicative errors) are written there; the returned
 * `fitted` is then empty (the optimiser's fast path).
 */
export function smooth(
  y: readonly number[],
  parameters: SmoothingParameters,
  initial: InitialStates,
  spec?: Partial<ModelSpec>,
  residuals?: Float64Array,
): Smoothed {
  const m = initial.seasonal.length;
  const seasonality: Seasonality = spec?.seasonality ?? (m === 0 ? "none" : "additive");
  const error: ErrorForm = spec?.error ?? "additive";
  const multiplicative = seasonality === "multiplicative";
  const relative = error === "multiplicative";
  const { level: alpha, trend: beta, seasonal: gamma } = parameters;
  const gammaStar = gamma / (1 - alpha);
  const phi = parameters.damping ?? 1;
  const season = initial.seasonal.slice();
  let level = initial.level;
  let trend = initial.trend;
  let sse = 0;
  let relativeSse = 0;
  let logPredictions = 0;
  // The log-likelihood of relative errors needs sum log |prediction|: a running product, its log
  // taken every 32 periods or before it leaves the comfortable range (a log a period is the
  // recursion's most expensive operation).
  let product = 1;
  const n = y.length;
  const fitted = residuals === undefined ? new Array<number>(n) : [];
  let slot = 0;
  for (let t = 0; t < n; t += 1) {
    const base = level + phi * trend;
    const s = m === 0 ? 0 : season[slot]!;
    const prediction = multiplicative ? base * s : base + s;
    const e = y[t]! - prediction;
    if (residuals === undefined) fitted[t] = prediction;
    sse += e * e;
    if (relative || multiplicative) {
      const r = e / prediction;
      relativeSse += r * r;
      product *= Math.abs(prediction);
      if ((t & 31) === 31 || product < 1e-100 || product > 1e100) {
        logPredictions += Math.log(product);
        product = 1;
      }
      if (residuals !== undefined) residuals[t] = relative ? r : e;
    } else if (residuals !== undefined) residuals[t] = e;
    if (multiplicative) {
      level = base + (alpha * e) / s;
      trend = phi * trend + (beta * e) / s;
      season[slot] = (gammaStar * y[t]!) / level + (1 - gammaStar) * s;
    } else {
      level = base + alpha * e;
      trend = phi * trend + beta * e;
      if (m > 0) season[slot] = s + gamma * e;
    }
    slot += 1;
    if (slot === m) slot = 0;
  }
  logPredictions += Math.log(product);
  // Rotate the seasonal terms so that the oldest (the next period's) comes first.
  const shift = m === 0 ? 0 : n % m;
  const seasonal = [...season.slice(shift), ...season.slice(0, shift)];
  // A multiplicative season's interval (class 3) takes the relative errors' variance.
  const variance = relative || multiplicative ? relativeSse / n : sse / n;
  const deviance = relative ? normalDeviance(relativeSse, n) + 2 * logPredictions : normalDeviance(sse, n);
  return {
    parameters,
    fitted,
    sse,
    mse: sse / n,
    final: { level, trend, seasonal },
    seasonLength: m,
    seasonality: m === 0 ? "none" : seasonality,
    error,
    variance,
    deviance: Number.isFinite(deviance) ? deviance : Number.POSITIVE_INFINITY,
    // Smoothing parameters, initial level and trend, m - 1 free seasonal states, the variance.
    parameterCount: 2 + (m > 0 ? 1 + m - 1 : 0) + (phi !== 1 ? 1 : 0) + 2 + 1,
    relativeSse,
    logPredictions,
  };
}

function fromStarred(x: readonly number[], seasonal: boolean): SmoothingParameters {
  const alpha = x[0]!;
  return { level: alpha, trend: x[1]! * alpha, seasonal: seasonal ? x[2]! * (1 - alpha) : 0 };
}

/**
 * The smoothing parameters from the vector `fitModel` searches: alpha, beta* / alpha and gamma* in
 * [0, 1]. Holt's beta* (the share of each level change taken into the trend) is then at most
 * alpha, the bound statsmodels' Holt-Winters puts on it (`to_restricted`: beta <= alpha): the
 * trend moves no faster than the level. Without it, short noisy series often fit best with
 * beta* = 1, a trend that follows every change of the level, whose forecasts run off (held-out
 * error of the monthly multiplicative family 5 % above statsmodels' without the bound, equal with it).
 */
function fromHoltWintersBounded(x: readonly number[], seasonal: boolean): SmoothingParameters {
  const parameters = fromStarred(x, seasonal);
  parameters.trend *= parameters.level;
  return parameters;
}

/** The inverse of `fromHoltWintersBounded`, clamped to the search's box. */
function toHoltWintersBounded(parameters: SmoothingParameters, seasonal: boolean): number[] {
  const clamp = (v: number) => Math.min(UPPER, Math.max(LOWER, Number.isFinite(v) ? v : LOWER));
  const alpha = clamp(parameters.level);
  const x = [alpha, clamp(parameters.trend / (alpha * alpha))];
  if (seasonal) x.push(clamp(parameters.seasonal / (1 - alpha)));
  return x;
}

// statsmodels' start (alpha 0.1, beta 0.01, gamma 0.01) in (alpha, beta*, gamma*).
const START = [0.1, 0.1, 0.01];

/** Minimise from `start`, then restart from where the simplex stopped until it stops improving:
 * a simplex can shrink onto a bound or a ridge before the minimum (the usual remedy). */
function minimiseWithRestarts(objective: (x: number[]) => number, start: number[], lower: number[], upper: number[], restarts = 3) {
  const bounds = { lower, upper };
  let found = minimise(objective, start, bounds);
  for (let restart = 0; restart < restarts; restart += 1) {
    const again = minimise(objective, found.x, bounds);
    const improved = again.value < found.value * (1 - 1e-9) - 1e-12;
    if (again.value < found.value) found = again;
    if (!improved) break;
  }
  return found;
}

/** Fit ETS(A,A,A) (seasonLength > 0) or ETS(A,A,N) by least squares of the one-step errors, from
 * statsmodels' simple initial states: the reference the fixtures check. */
export function fitEts(y: readonly number[], seasonLength = 0): EtsFit {
  const initial = simpleInitialStates(y, seasonLength);
  const seasonal = seasonLength > 0;
  const dimensions = seasonal ? 3 : 2;
  const objective = (x: number[]) => smooth(y, fromStarred(x, seasonal), initial).sse;
  const found = minimiseWithRestarts(objective, START.slice(0, dimensions), new Array<number>(dimensions).fill(LOWER), new Array<number>(dimensions).fill(UPPER));
  return smooth(y, fromStarred(found.x, seasonal), initial);
}

/** The free initial states as a vector: level, trend and the first m - 1 seasonal states (the
 * last one keeps the season's sum at zero, or its mean at one). */
function statesToVector(initial: InitialStates): number[] {
  return [initial.level, initial.trend, ...initial.seasonal.slice(0, -1)];
}

function vectorToStates(x: readonly number[], m: number, multiplicative: boolean): InitialStates {
  const seasonal = x.slice(2, 2 + Math.max(m - 1, 0));
  if (m > 0) {
    const sum = seasonal.reduce((total, s) => total + s, 0);
    seasonal.push(multiplicative ? m - sum : -sum);
  }
  return { level: x[0]!, trend: x[1]!, seasonal };
}

/** Solve the symmetric positive (semi-)definite system A x = b by Gaussian elimination with
 * partial pivoting; a tiny ridge keeps a nearly singular system solvable. */
export function solveSymmetric(a: number[][], b: number[]): number[] {
  const p = b.length;
  const trace = a.reduce((sum, row, i) => sum + row[i]!, 0) || 1;
  const m = a.map((row, i) => [...row.map((v, j) => (i === j ? v + 1e-10 * trace / p : v)), b[i]!]);
  for (let col = 0; col < p; col += 1) {
    let pivot = col;
    for (let r = col + 1; r < p; r += 1) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    const lead = m[col]![col]!;
    if (lead === 0) continue;
    for (let r = col + 1; r < p; r += 1) {
      const factor = m[r]![col]! / lead;
      if (factor === 0) continue;
      for (let c = col; c <= p; c += 1) m[r]![c]! -= factor * m[col]![c]!;
    }
  }
  const x = new Array<number>(p).fill(0);
  for (let r = p - 1; r >= 0; r -= 1) {
    let sum = m[r]![p]!;
    for (let c = r + 1; c < p; c += 1) sum -= m[r]![c]! * x[c]!;
    x[r] = m[r]![r]! === 0 ? 0 : sum / m[r]![r]!;
  }
  return x;
}

/**
 * One Gauss-Newton step on the initial states for fixed smoothing parameters: the one-step errors
 * are linear in the initial states for additive models (the step then lands on the least-squares
 * states, as statsmodels' estimated initial states) and nearly so for multiplicative ones. The
 * Jacobian is taken by differences (p + 1 runs of the recursions). The step is halved until the
 * deviance falls; the states are kept as they were if it never does.
 */
function refineStates(y: readonly number[], parameters: SmoothingParameters, initial: InitialStates, spec: ModelSpec): InitialStates {
  const m = initial.seasonal.length;
  const multiplicative = spec.seasonality === "multiplicative";
  const n = y.length;
  const x = statesToVector(initial);
  const p = x.length;
  const base = new Float64Array(n);
  const current = smooth(y, parameters, initial, spec, base).deviance;
  const columns: Float64Array[] = [];
  for (let j = 0; j < p; j += 1) {
    const h = 1e-6 * Math.max(1, Math.abs(x[j]!));
    const moved = [...x];
    moved[j]! += h;
    const column = new Float64Array(n);
    smooth(y, parameters, vectorToStates(moved, m, multiplicative), spec, column);
    for (let t = 0; t < n; t += 1) column[t] = (column[t]! - base[t]!) / h;
    columns.push(column);
  }
  const normal = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  const gradient = new Array<number>(p).fill(0);
  for (let i = 0; i < p; i += 1) {
    const ci = columns[i]!;
    let g = 0;
    for (let t = 0; t < n; t += 1) g += ci[t]! * base[t]!;
    gradient[i] = -g;
    for (let j = 0; j <= i; j += 1) {
      const cj = columns[j]!;
      let sum = 0;
      for (let t = 0; t < n; t += 1) sum += ci[t]! * cj[t]!;
      normal[i]![j] = sum;
      normal[j]![i] = sum;
    }
  }
  const step = solveSymmetric(normal, gradient);
  if (!step.every(Number.isFinite)) return initial;
  for (let shrink = 1; shrink >= 1 / 16; shrink /= 2) {
    const candidate = vectorToStates(x.map((v, i) => v + shrink * step[i]!), m, multiplicative);
    if (multiplicative && candidate.seasonal.some((s) => !(s > 0))) continue;
    if (smooth(y, parameters, candidate, spec, base).deviance < current) return candidate;
  }
  return initial;
}

/** Series up to this many periods get the thorough fit (about a millisecond a model). */
const THOROUGH_PERIODS = 300;

/**
 * Fit a model by maximum likelihood: the smoothing parameters (and the damping) by a bounded
 * simplex, the initial states by Gauss-Newton steps, alternately, from the smoothing parameters'
 * usual start and the heuristic initial states. Every initial state is estimated, as statsmodels'
 * "estimated" initialisation does, so that the first seasons' noise does not stay in the season.
 * With `warm`, the search starts from those smoothing parameters instead, with the states fitted
 * to them (a model of the same form already fitted on the series' latest periods: one alternation
 * then suffices).
 */
export function fitModel(y: readonly number[], spec: ModelSpec, warm?: SmoothingParameters): EtsFit {
  // Short series are cheap: more alternations, a tighter simplex, and a second start from a grid
  // (the smoothing and the states can trade places: from the usual start the alternation may
  // settle on states that explain everything and no smoothing, a worse fit); long ones keep the
  // browser's budget.
  const thorough = y.length <= THOROUGH_PERIODS;
  // From a warm start the states are first fitted to its parameters, then one alternation.
  const rounds = warm !== undefined ? 1 : thorough ? 4 : 2;
  const tolerances = thorough ? { tolerance: 1e-10, pointTolerance: 1e-5 } : { tolerance: 1e-8, pointTolerance: 1e-3 };
  const m = spec.seasonality === "none" ? 0 : spec.seasonLength;
  const seasonal = m > 0;
  const smoothingCount = seasonal ? 3 : 2;
  const lower = new Array<number>(smoothingCount).fill(LOWER);
  const upper = new Array<number>(smoothingCount).fill(UPPER);
  // Searched: alpha, beta* / alpha, gamma* and the damping (see `fromHoltWintersBounded`).
  const first = START.slice(0, smoothingCount);
  if (spec.damped) {
    lower.push(DAMPING_BOUNDS[0]);
    upper.push(DAMPING_BOUNDS[1]);
    first.push(DAMPING_BOUNDS[1]);
  }
  const decode = (v: readonly number[]): SmoothingParameters => {
    const parameters = fromHoltWintersBounded(v, seasonal);
    if (spec.damped) parameters.damping = v[smoothingCount]!;
    return parameters;
  };
  const scratch = new Float64Array(y.length);
  const heuristic = heuristicInitialStates(y, m, spec.seasonality);
  if (warm !== undefined) {
    first.splice(0, smoothingCount, ...toHoltWintersBounded(warm, seasonal));
    if (spec.damped) first[smoothingCount] = Math.min(DAMPING_BOUNDS[1], Math.max(DAMPING_BOUNDS[0], warm.damping ?? DAMPING_BOUNDS[1]));
  }
  const starts = [{ x: first, initial: warm === undefined ? heuristic : refineStates(y, decode(first), heuristic, spec) }];
  if (thorough) {
    // As statsmodels' brute start, in small: a coarse grid of smoothing parameters, each with its
    // least-squares initial states.
    let grid: { x: number[]; initial: InitialStates; value: number } | undefined;
    for (const alpha of [0.05, 0.2, 0.4, 0.7]) {
      for (const trendShare of [0.01, 0.3, 0.9]) {
        for (const gammaStar of seasonal ? [0.01, 0.3] : [0]) {
          const x = seasonal ? [alpha, trendShare, gammaStar] : [alpha, trendShare];
          if (spec.damped) x.push(DAMPING_BOUNDS[1]);
          const initial = refineStates(y, decode(x), heuristic, spec);
          const value = smooth(y, decode(x), initial, spec, scratch).deviance;
          if (grid === undefined || value < grid.value) grid = { x, initial, value };
        }
      }
    }
    starts.push(grid!);
  }
  let best: { x: number[]; initial: InitialStates; value: number } | undefined;
  for (const start of starts) {
    let { x, initial } = start;
    let value = Number.POSITIVE_INFINITY;
    for (let round = 0; round < rounds; round += 1) {
      const states = initial;
      const objective = (v: number[]) => smooth(y, decode(v), states, spec, scratch).deviance;
      x = minimise(objective, x, { lower, upper, ...tolerances }).x;
      initial = refineStates(y, decode(x), initial, spec);
      const refined = smooth(y, decode(x), initial, spec, scratch).deviance;
      const settled = value - refined < 1e-6 * Math.max(1, Math.abs(refined));
      value = refined;
      if (settled) break;
    }
    if (best === undefined || value < best.value) best = { x, initial, value };
  }
  return smooth(y, decode(best!.x), best!.initial, spec);
}

/** The damped trend's cumulative factor phi + phi^2 + ... + phi^h (h when undamped). */
function dampedSum(phi: number, h: number): number {
  if (phi === 1) return h;
  return (phi * (1 - phi ** h)) / (1 - phi);
}

/**
 * Relative variance of the h-step forecast error of an additive-error model (statsmodels'
 * `_relative_forecast_variance`, Hyndman et al. 2008, table 6.1, class 1):
 * 1 + sum over j < h of (alpha + beta phi_j + gamma [j a multiple of m])^2; times the mse, the
 * forecast variance.
 */
export function relativeForecastVariance(h: number, parameters: SmoothingParameters, seasonLength: number): number {
  const { level: alpha, trend: beta, seasonal: gamma } = parameters;
  const phi = parameters.damping ?? 1;
  let total = 1;
  for (let j = 1; j < h; j += 1) {
    const c = alpha + beta * dampedSum(phi, j) + (seasonLength > 0 && j % seasonLength === 0 ? gamma : 0);
    total += c * c;
  }
  return total;
}

/** Point forecasts and the 80 % interval for the next `horizon` periods; `quantile` is the
 * interval's half-width in standard deviations (the normal's, as statsmodels, by default). */
export function predict(fit: EtsFit, horizon: number, quantile = Z_80): Prediction {
  const { level, trend, seasonal } = fit.final;
  const m = fit.seasonLength;
  const { level: alpha, trend: beta, seasonal: gamma } = fit.parameters;
  const phi = fit.parameters.damping ?? 1;
  const multiplicative = fit.seasonality === "multiplicative";
  const mean: number[] = [];
  const lower: number[] = [];
  const upper: number[] = [];
  // Class 3 (Hyndman et al. 2008, section 6.4): theta_h = mu_h^2 + sigma^2 sum_j c_j^2 theta_(h-j).
  const theta: number[] = [];
  for (let h = 1; h <= horizon; h += 1) {
    const base = level + dampedSum(phi, h) * trend;
    let value: number;
    let variance: number;
    if (multiplicative) {
      const s = seasonal[(h - 1) % m]!;
      value = base * s;
      const sigma2 = fit.variance;
      let sum = 0;
      for (let j = 1; j < h; j += 1) {
        const c = alpha + beta * dampedSum(phi, j);
        sum += c * c * theta[h - j - 1]!;
      }
      theta.push(base * base + sigma2 * sum);
      const k = Math.floor((h - 1) / m);
      variance = Math.max(0, s * s * (theta[h - 1]! * (1 + sigma2) * (1 + gamma * gamma * sigma2) ** k - base * base));
    } else {
      value = base + (m === 0 ? 0 : seasonal[(h - 1) % m]!);
      variance = fit.mse * relativeForecastVariance(h, fit.parameters, m);
    }
    const half = quantile * Math.sqrt(variance);
    mean.push(value);
    lower.push(value - half);
    upper.push(value + half);
  }
  return { mean, lower, upper };
}
