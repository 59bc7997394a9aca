// The straight line for series too short to smooth: ordinary least squares of the value on the
// period index, with the OLS prediction interval (Student's t, as statsmodels' `obs_ci_*`).

import type { Prediction } from "./ets";

export interface Line {
  intercept: number;
  slope: number;
  /** Residual variance with n - 2 degrees of freedom; NaN below three points. */
  residualVariance: number;
  count: number;
  meanIndex: number;
  /** Sum of squared deviations of the index from its mean. */
  spread: number;
}

export function fitLine(y: readonly number[]): Line {
  const n = y.length;
  if (n < 2) throw new RangeError("a line needs two points");
  const meanIndex = (n - 1) / 2;
  let meanValue = 0;
  for (const v of y) meanValue += v / n;
  let spread = 0;
  let covariance = 0;
  y.forEach((v, i) => {
    spread += (i - meanIndex) ** 2;
    covariance += (i - meanIndex) * (v - meanValue);
  });
  const slope = covariance / spread;
  const intercept = meanValue - slope * meanIndex;
  let sse = 0;
  y.forEach((v, i) => (sse += (v - intercept - slope * i) ** 2));
  return { intercept, slope, residualVariance: n > 2 ? sse / (n - 2) : Number.NaN, count: n, meanIndex, spread };
}

/**
 * The line's next `horizon` values and their 80 % prediction interval. With two points there is
 * no residual to measure the spread: the interval then collapses onto the line.
 */
export function predictLine(line: Line, horizon: number): Prediction {
  const { intercept, slope, residualVariance, count, meanIndex, spread } = line;
  const t = count > 2 ? studentTQuantile(0.9, count - 2) : 0;
  const mean: number[] = [];
  const lower: number[] = [];
  const upper: number[] = [];
  for (let h = 1; h <= horizon; h += 1) {
    const x = count - 1 + h;
    const value = intercept + slope * x;
    const half = count > 2 ? t * Math.sqrt(residualVariance * (1 + 1 / count + (x - meanIndex) ** 2 / spread)) : 0;
    mean.push(value);
    lower.push(value - half);
    upper.push(value + half);
  }
  return { mean, lower, upper };
}

/** The p-quantile (p > 0.5) of Student's t with `df` degrees of freedom, by bisection of the CDF. */
export function studentTQuantile(p: number, df: number): number {
  // P(T <= t) = 1 - I_{df / (df + t^2)}(df / 2, 1 / 2) / 2 for t >= 0.
  const cdf = (t: number) => 1 - regularisedIncompleteBeta(df / (df + t * t), df / 2, 0.5) / 2;
  let low = 0;
  let high = 1;
  while (cdf(high) < p) high *= 2;
  for (let i = 0; i < 200 && high - low > 1e-13 * high; i += 1) {
    const middle = (low + high) / 2;
    if (cdf(middle) < p) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

function logGamma(x: number): number {
  // Lanczos approximation (g = 7, n = 9), accurate to about 15 digits for x > 0.
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = c[0]!;
  for (let i = 1; i < 9; i += 1) sum += c[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** I_x(a, b) by its continued fraction (modified Lentz), on the side where it converges fast. */
function regularisedIncompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - regularisedIncompleteBeta(1 - x, b, a);
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let f = d;
  for (let m = 1; m <= 300; m += 1) {
    const m2 = 2 * m;
    let numerator = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + numerator * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = 1 + numerator / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    f *= d * c;
    numerator = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + numerator * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = 1 + numerator / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = d * c;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return (front * f) / a;
}
