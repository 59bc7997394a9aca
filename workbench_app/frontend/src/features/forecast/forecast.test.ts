import { describe, expect, it } from "vitest";
import { benchmarkSeries, timeForecast } from "./benchmark";
import { periodGrid } from "./calendar";
import { fitEts, predict, simpleInitialStates, smooth, type ErrorForm, type Prediction, type Seasonality } from "./ets";
import { i18n } from "../../i18n/i18n";
import { type Bucket, chooseMethod, forecast, ForecastInputError, type Horizon, MAX_PERIODS, regularise, type SeriesPoint } from "./forecast";
import { fitLine, predictLine, studentTQuantile } from "./linear";
import { minimise } from "./nelderMead";

// Reference answers from statsmodels, made by scripts/make_forecast_fixtures.py.
interface ReferencePrediction {
  mean: number[];
  lower: number[];
  upper: number[];
}
interface ReferenceEts extends ReferencePrediction {
  params: { smoothing_level: number; smoothing_trend: number; smoothing_seasonal?: number };
  fitted: number[];
  sse: number;
  mse: number;
}
interface Fixture {
  name: string;
  bucket: Bucket;
  method: "holt_winters" | "smoothed_trend" | "linear";
  season: number | null;
  points: SeriesPoint[];
  filled: number[];
  future: number[];
  ets?: {
    initial: { initial_level: number; initial_trend: number; initial_seasonal?: number[] };
    fixed: ReferenceEts;
    optimised: ReferenceEts;
  };
  line?: ReferencePrediction & { intercept: number; slope: number };
}

// Families of new series with held-out tails (scripts/make_forecast_fixtures.py): statsmodels as an
// analyst uses it (Holt-Winters chosen by AICc) forecasts each tail; the longest series also has
// ETSModel's answers for the family's model with fixed parameters.
interface FamilySeries {
  points: SeriesPoint[];
  filled: number[];
  future: number[];
  held_out: number[];
  statsmodels: { model: string; aicc: number | null; mean: number[] };
}
interface Family {
  name: string;
  bucket: Bucket;
  season: number | null;
  same_model: {
    spec: { seasonality: Seasonality; damped: boolean; error: ErrorForm };
    initial: { initial_level: number; initial_trend: number; initial_seasonal?: number[] };
    params: { smoothing_level: number; smoothing_trend: number; smoothing_seasonal?: number; damping_trend?: number };
    fitted: number[];
    mean: number[];
    lower: number[];
    upper: number[];
    simulated: boolean;
  };
  series: FamilySeries[];
}

const fixtures = Object.values(import.meta.glob<Fixture>("./fixtures/*.json", { eager: true, import: "default" }));
const families = Object.values(import.meta.glob<Family>("./fixtures/families/*.json", { eager: true, import: "default" }));
const etsFixtures = fixtures.filter((f) => f.ets !== undefined);

/** Equal to within `relative` of the larger magnitude (and `absolute` near zero). */
function expectClose(actual: readonly number[], expected: readonly number[], relative: number, absolute = 1e-9) {
  expect(actual.length).toBe(expected.length);
  actual.forEach((value, i) => {
    const reference = expected[i]!;
    const allowed = Math.max(absolute, relative * Math.max(Math.abs(value), Math.abs(reference)));
    if (!(Math.abs(value - reference) <= allowed)) {
      expect.fail(`item ${i}: ${value} differs from ${reference} by more than ${allowed}`);
    }
  });
}

function widths(prediction: Prediction | ReferencePrediction) {
  return prediction.mean.map((_, i) => prediction.upper[i]! - prediction.lower[i]!);
}

it("has the fixtures the issue lists", () => {
  expect(fixtures.map((f) => f.name).sort()).toEqual([
    "daily_weekly",
    "flat_monthly",
    "missing_periods",
    "negative_monthly",
    "quarterly",
    "seasonal_monthly",
    "short_monthly",
    "very_short_weekly",
  ]);
});

describe.each(etsFixtures.map((f) => [f.name, f] as const))("exponential smoothing against statsmodels: %s", (_, fixture) => {
  const reference = fixture.ets!;
  const season = fixture.season ?? 0;
  const y = fixture.filled;

  it("starts from statsmodels' simple initial states", () => {
    const initial = simpleInitialStates(y, season);
    expectClose([initial.level, initial.trend], [reference.initial.initial_level, reference.initial.initial_trend], 1e-12);
    expectClose(initial.seasonal, reference.initial.initial_seasonal ?? [], 1e-12);
  });

  it("runs the recursions and the interval exactly with fixed parameters", () => {
    const { smoothing_level, smoothing_trend, smoothing_seasonal = 0 } = reference.fixed.params;
    const fit = smooth(y, { level: smoothing_level, trend: smoothing_trend, seasonal: smoothing_seasonal }, simpleInitialStates(y, season));
    expectClose(fit.fitted, reference.fixed.fitted, 1e-10);
    expectClose([fit.sse, fit.mse], [reference.fixed.sse, reference.fixed.mse], 1e-10);
    const prediction = predict(fit, 12);
    expectClose(prediction.mean, reference.fixed.mean, 1e-10);
    expectClose(prediction.lower, reference.fixed.lower, 1e-10);
    expectClose(prediction.upper, reference.fixed.upper, 1e-10);
  });

  it("fits parameters at least as well as statsmodels, with forecasts close to its own", () => {
    const fit = fitEts(y, season);
    // Both minimise the same sum of squares over the same bounds; the optimisers differ, so the
    // minimum found may differ by rounding, but never be clearly worse.
    expect(fit.sse).toBeLessThanOrEqual(reference.optimised.sse * (1 + 1e-6) + 1e-9);
    const prediction = predict(fit, 12);
    const range = Math.max(...y) - Math.min(...y) || 1;
    // Forecasts and interval widths within 0.01 % of the series' range (found: under 0.0004 %).
    expectClose(prediction.mean, reference.optimised.mean, 0, 1e-4 * range);
    expectClose(widths(prediction), widths(reference.optimised), 0, 1e-4 * range);
  });

  it("forecasts from the chart's points with the expected family and calendar", () => {
    const result = forecast(fixture.points, fixture.bucket, 12);
    // Below two seasons the line competes with the smoothed trend (by AICc).
    expect(fixture.method === "smoothed_trend" ? ["smoothed_trend", "linear"] : [fixture.method]).toContain(result.method);
    if (result.method === "holt_winters") expect(result.seasonLength).toBe(fixture.season);
    expect(result.points.map((p) => p.t)).toEqual(fixture.future);
  });
});

describe("the straight line against statsmodels' OLS", () => {
  const fixture = fixtures.find((f) => f.name === "very_short_weekly")!;
  const reference = fixture.line!;

  it("has the same coefficients and prediction interval", () => {
    const line = fitLine(fixture.filled);
    expectClose([line.intercept, line.slope], [reference.intercept, reference.slope], 1e-12);
    const prediction = predictLine(line, 12);
    expectClose(prediction.mean, reference.mean, 1e-12);
    expectClose(prediction.lower, reference.lower, 1e-10);
    expectClose(prediction.upper, reference.upper, 1e-10);
  });

  it("is the method for a very short series, a week apart", () => {
    const result = forecast(fixture.points, "week", 6);
    expect(result.method).toBe("linear");
    expect(result.points.map((p) => p.t)).toEqual(fixture.future.slice(0, 6));
    expectClose(result.points.map((p) => p.upper), reference.upper.slice(0, 6), 1e-10);
  });

  it("takes Student's t quantiles as scipy gives them", () => {
    const scipy: [number, number][] = [
      [1, 3.0776835371752544],
      [2, 1.8856180831641272],
      [3, 1.637744353696209],
      [5, 1.4758840488244815],
      [30, 1.3104150253913955],
      [1000, 1.2823987214609247],
    ];
    expectClose(
      scipy.map(([df]) => studentTQuantile(0.9, df)),
      scipy.map(([, q]) => q),
      1e-10,
    );
  });
});

describe("missing periods", () => {
  const fixture = fixtures.find((f) => f.name === "missing_periods")!;

  it("are filled linearly between neighbouring periods, as pandas interpolates", () => {
    // Two months are absent from the input and one has a null value.
    expect(fixture.points.length).toBe(28);
    expect(fixture.points.filter((p) => p.value === null).length).toBe(1);
    const series = regularise(fixture.points, "month");
    expect(series.filled).toBe(3);
    expectClose(series.values, fixture.filled, 1e-12);
  });

  it("drop leading and trailing periods with no value and ignore non-finite values", () => {
    const day = 86_400_000;
    const series = regularise(
      [
        { t: 0, value: null },
        { t: day, value: 10 },
        { t: 2 * day, value: Number.NaN },
        { t: 4 * day, value: 40 },
        { t: 5 * day, value: null },
      ],
      "day",
    );
    expect(series).toEqual({ origin: day, values: [10, 20, 30, 40], filled: 2 });
  });

  it("keep only the latest MAX_PERIODS periods, however far apart the points", () => {
    const hour = 3_600_000;
    const first = Date.UTC(2015, 0, 1);
    const last = Date.UTC(2025, 0, 1);
    const series = regularise([{ t: first, value: 1 }, { t: last - 5 * hour, value: 5 }, { t: last, value: 10 }], "hour");
    expect(series.values.length).toBe(6);
    expect(series.origin).toBe(last - 5 * hour);
    const many = Array.from({ length: MAX_PERIODS + 500 }, (_, i) => ({ t: first + i * hour, value: i }));
    const capped = regularise(many, "hour");
    expect(capped.values.length).toBe(MAX_PERIODS);
    expect(capped.values[0]).toBe(500);
    expect(forecast(many, "hour", 3).points[0]!.t).toBe(first + (MAX_PERIODS + 500) * hour);
  });

  it("accept points in any order but not two in one period", () => {
    const month = (m: number) => Date.UTC(2025, m, 1);
    expect(regularise([{ t: month(2), value: 3 }, { t: month(0), value: 1 }], "month").values).toEqual([1, 2, 3]);
    expect(() => regularise([{ t: month(0), value: 1 }, { t: month(0) + 3_600_000, value: 2 }], "month")).toThrow(RangeError);
  });
});

describe("the 80 % interval", () => {
  it.each(fixtures.filter((f) => f.name !== "flat_monthly").map((f) => [f.name, f] as const))("widens with the horizon: %s", (_, fixture) => {
    const result = forecast(fixture.points, fixture.bucket, 12);
    // A multiplicative season's interval follows the season: relative to the forecast, it widens.
    const relative = result.seasonality === "multiplicative";
    const spans = result.points.map((p) => (p.upper - p.lower) / (relative ? Math.abs(p.value) : 1));
    expect(spans[0]).toBeGreaterThan(0);
    spans.slice(1).forEach((span, i) => expect(span).toBeGreaterThan(spans[i]!));
    result.points.forEach((p) => expect(p.lower).toBeLessThan(p.value));
  });

  it("widens in statsmodels' answers too", () => {
    for (const fixture of fixtures.filter((f) => f.name !== "flat_monthly")) {
      const spans = widths(fixture.ets?.optimised ?? fixture.line!);
      spans.slice(1).forEach((span, i) => expect(span).toBeGreaterThan(spans[i]!));
    }
  });
});

describe("method choice", () => {
  const monthly = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ t: Date.UTC(2024, i, 1), value: 100 + i + (i % 3) }));

  it.each([
    [0, "none"],
    [1, "none"],
    [2, "linear"],
    [7, "linear"],
    [8, "smoothed_trend"],
    [23, "smoothed_trend"],
    [24, "holt_winters"],
  ] as const)("a monthly series of %i periods gets %s", (count, method) => {
    expect(chooseMethod(count, "month").method).toBe(method);
    const result = forecast(monthly(count), "month", 3);
    // The smoothed trend's family includes the straight line, chosen when its AICc is lower.
    expect(method === "smoothed_trend" ? ["smoothed_trend", "linear"] : [method]).toContain(result.method);
    expect(result.points.length).toBe(method === "none" ? 0 : 3);
  });

  it("takes the straight line when it fits a short series better, the smoothed trend when the level moves", () => {
    const line = forecast(monthly(12).map((p, i) => ({ ...p, value: 50 + 2 * i + (i % 2 === 0 ? 1 : -1) })), "month", 3);
    expect(line.method).toBe("linear");
    const steps = [10, 10.5, 10.2, 14, 14.3, 13.9, 18, 18.2, 17.8, 22, 22.1, 21.9, 26, 26.3, 25.8, 30];
    const moving = forecast(monthly(16).map((p, i) => ({ ...p, value: steps[i]! * (1 + 0.1 * Math.sin(i * i)) })), "month", 3);
    expect(["smoothed_trend", "linear"]).toContain(moving.method);
  });

  it("fits the logarithms when the season, the trend and the noise grow with the level, only then", () => {
    // 60 months growing 3 % a month, a season of +-30 % and a noise of 3 % (deterministic).
    const growing = Array.from({ length: 60 }, (_, i) => ({
      t: Date.UTC(2020, i, 1),
      value: 100 * Math.exp(0.03 * i) * (1 + 0.3 * Math.sin((2 * Math.PI * i) / 12)) * (1 + 0.03 * Math.sin(i * 12.9898)),
    }));
    const result = forecast(growing, "month", 12);
    expect(result).toMatchObject({ method: "holt_winters", seasonLength: 12, seasonality: "multiplicative", logarithms: true });
    // Back from logarithms the interval is the values' quantiles: above zero, wider above.
    result.points.forEach((p) => {
      expect(p.lower).toBeGreaterThan(0);
      expect(p.upper - p.value).toBeGreaterThan(p.value - p.lower);
    });
    // An additive season never offers them.
    const additive = forecast(growing.map((p, i) => ({ ...p, value: 100 + i + 20 * Math.sin((2 * Math.PI * i) / 12) + Math.sin(i * 12.9898) })), "month", 12);
    expect(additive.logarithms).toBeUndefined();
  });

  it("needs two weeks of days, eight quarters, two days of hours, and has no season for weeks and years", () => {
    const series = (count: number, bucket: Bucket) => {
      const grid = periodGrid(bucket, Date.UTC(2020, 0, 6));
      return Array.from({ length: count }, (_, i) => ({ t: grid.stamp(i), value: 10 + (i % 4) + i / 3 }));
    };
    expect(forecast(series(14, "day"), "day", 3)).toMatchObject({ method: "holt_winters", seasonLength: 7 });
    expect(chooseMethod(13, "day").method).toBe("smoothed_trend");
    expect(forecast(series(8, "quarter"), "quarter", 3)).toMatchObject({ method: "holt_winters", seasonLength: 4 });
    expect(forecast(series(48, "hour"), "hour", 3)).toMatchObject({ method: "holt_winters", seasonLength: 24 });
    expect(chooseMethod(47, "hour").method).toBe("smoothed_trend");
    for (const bucket of ["week", "year"] as const) {
      expect(chooseMethod(60, bucket).method).toBe("smoothed_trend");
      expect(["smoothed_trend", "linear"]).toContain(forecast(series(60, bucket), bucket, 3).method);
    }
  });

  it("refuses a horizon other than 3, 6 or 12, saying why in the person's language", () => {
    expect(() => forecast(monthly(30), "month", 5 as Horizon)).toThrow(ForecastInputError);
    const refusal = (call: () => unknown) => {
      try {
        call();
      } catch (error) {
        return error as ForecastInputError;
      }
      throw new Error("not refused");
    };
    // A caller in plain JavaScript may pass what the types forbid: the refusal says what it got.
    // @ts-expect-error text where the horizon is a number
    const text = refusal(() => forecast(monthly(30), "month", "12"));
    expect(text.message).toBe("The forecast horizon must be a number of periods (3, 6 or 12), not the text \"12\".");
    expect(text.message).not.toMatch(/not 12$/);
    // @ts-expect-error no series at all
    const missing = refusal(() => forecast(undefined, "month", 12));
    expect(missing).toBeInstanceOf(ForecastInputError);
    for (const [error, language, words] of [
      [text, "fr", "« 12 »"], [text, "es", "«12»"], [missing, "fr", "Aucune série"], [missing, "es", "No hay serie"],
    ] as const) {
      expect(i18n.getFixedT(language)(error.key, error.values)).toContain(words);
    }
  });
});

describe("future periods follow the calendar in UTC", () => {
  it("steps months and quarters by calendar month, keeping the last day of short months", () => {
    const months = periodGrid("month", Date.UTC(2024, 0, 31));
    expect([1, 2, 13].map((k) => new Date(months.stamp(k)).toISOString())).toEqual([
      "2024-02-29T00:00:00.000Z",
      "2024-03-31T00:00:00.000Z",
      "2025-02-28T00:00:00.000Z",
    ]);
    const quarters = periodGrid("quarter", Date.UTC(2024, 9, 1));
    expect([1, 2].map((k) => new Date(quarters.stamp(k)).toISOString())).toEqual(["2025-01-01T00:00:00.000Z", "2025-04-01T00:00:00.000Z"]);
    expect(new Date(periodGrid("year", Date.UTC(2024, 0, 1)).stamp(3)).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });

  it("steps hours, days and weeks by their length", () => {
    const origin = Date.UTC(2025, 2, 29, 22);
    expect(periodGrid("hour", origin).stamp(5) - origin).toBe(5 * 3_600_000);
    expect(periodGrid("day", origin).stamp(2)).toBe(Date.UTC(2025, 2, 31, 22));
    expect(periodGrid("week", origin).index(Date.UTC(2025, 3, 12, 22))).toBe(2);
  });
});

describe("edge cases give finite numbers", () => {
  const finite = (result: ReturnType<typeof forecast>) =>
    result.points.every((p) => [p.value, p.lower, p.upper].every((v) => Number.isFinite(v)));
  const monthly = (values: number[]) => values.map((value, i) => ({ t: Date.UTC(2022, i, 1), value }));

  it.each([
    ["constant, Holt-Winters", Array(30).fill(250)],
    ["constant, smoothed trend", Array(10).fill(-3)],
    ["constant, line", Array(4).fill(7)],
    ["zeros", Array(30).fill(0)],
    ["zeros, short", Array(10).fill(0)],
    ["huge", Array.from({ length: 30 }, (_, i) => 1e300 * (1 + (i % 12) / 10))],
    ["tiny", Array.from({ length: 30 }, (_, i) => 1e-300 * (1 + (i % 12) / 10))],
    ["mixed signs", Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? -1 : 1) * (5 + i))],
  ])("%s", (_, values: number[]) => {
    for (const horizon of [3, 6, 12] as const) {
      const result = forecast(monthly(values), "month", horizon);
      expect(result.points.length).toBe(horizon);
      expect(finite(result)).toBe(true);
    }
  });

  it("keeps a constant series constant with a zero-width interval", () => {
    const result = forecast(monthly(Array(30).fill(250)), "month", 12);
    // To rounding: the estimated initial states are found by Gauss-Newton steps.
    expectClose(result.points.flatMap((p) => [p.value, p.lower, p.upper]), Array(36).fill(250), 1e-12);
    expect(result.points.every((p) => p.upper - p.lower === 0)).toBe(true);
  });

  it("scales with the series: huge values forecast like ordinary ones", () => {
    const values = Array.from({ length: 30 }, (_, i) => 1 + i / 50 + (i % 12) / 10);
    const ordinary = forecast(monthly(values), "month", 6).points;
    const huge = forecast(monthly(values.map((v) => v * 1e300)), "month", 6).points;
    expectClose(huge.map((p) => p.value / 1e300), ordinary.map((p) => p.value), 1e-9);
  });

  it("draws a line through two points with no interval, and none for one point or all nulls", () => {
    const two = forecast(monthly([10, 14]), "month", 3);
    expect(two.method).toBe("linear");
    expectClose(two.points.map((p) => p.value), [18, 22, 26], 1e-12);
    expect(two.points.every((p) => p.lower === p.value && p.upper === p.value)).toBe(true);
    expect(forecast(monthly([10]), "month", 3)).toEqual({ method: "none", points: [] });
    expect(forecast([{ t: 0, value: null }, { t: 86_400_000, value: null }], "day", 3)).toEqual({ method: "none", points: [] });
  });

  it("refits the chosen model on every period of a long series, even with zeros long ago", () => {
    // 1,200 hours: the candidates are compared on the latest 800 (all positive, a season growing
    // with the level), then the chosen one fitted on all the periods it can take.
    const hour = 3_600_000;
    const points = Array.from({ length: 1200 }, (_, i) => ({
      t: Date.UTC(2025, 0, 1) + i * hour,
      value: i < 100 && i % 24 === 0 ? 0 : (100 + i / 10) * (1 + 0.4 * Math.sin((2 * Math.PI * i) / 24)) * (1 + 0.02 * Math.sin(i * 12.9898)),
    }));
    const result = forecast(points, "hour", 12);
    expect(result).toMatchObject({ method: "holt_winters", seasonLength: 24, seasonality: "multiplicative" });
    expect(result.points.length).toBe(12);
    expect(finite(result)).toBe(true);
  });

  it("gives up rather than overflow", () => {
    // A trend that passes the largest double (1.8e308) within the horizon.
    const values = Array.from({ length: 10 }, (_, i) => 1e308 * (i / 9));
    expect(forecast(monthly(values), "month", 12)).toEqual({ method: "none", points: [] });
    const shorter = forecast(monthly(values), "month", 3);
    expect(shorter.points.length).toBe(3);
    expect(finite(shorter)).toBe(true);
  });
});

describe("the bounded simplex", () => {
  it("finds a minimum inside the box and one on its bound", () => {
    const inside = minimise(([a = 0, b = 0]) => (a - 0.3) ** 2 + (b - 0.7) ** 2, [0.5, 0.5], { lower: [0, 0], upper: [1, 1] });
    expectClose(inside.x, [0.3, 0.7], 0, 1e-6);
    const onBound = minimise(([a = 0]) => (a + 1) ** 2, [0.5], { lower: [0.2], upper: [1] });
    expect(onBound.x).toEqual([0.2]);
  });
});

it("has the families the issue lists", () => {
  expect(families.map((f) => f.name).sort()).toEqual(["daily_additive", "hourly", "monthly_multiplicative", "quarterly", "short_weekly"]);
});

describe.each(families.map((f) => [f.name, f] as const))("the family's model against statsmodels' ETSModel: %s", (_, family) => {
  const reference = family.same_model;
  const y = family.series[family.series.length - 1]!.filled;
  const { smoothing_level, smoothing_trend, smoothing_seasonal = 0, damping_trend } = reference.params;
  const parameters = { level: smoothing_level, trend: smoothing_trend, seasonal: smoothing_seasonal, damping: damping_trend ?? 1 };
  const initial = {
    level: reference.initial.initial_level,
    trend: reference.initial.initial_trend,
    seasonal: reference.initial.initial_seasonal ?? [],
  };
  const fit = smooth(y, parameters, initial, reference.spec);

  it("runs the same recursions and forecasts", () => {
    expectClose(fit.fitted, reference.fitted, 1e-9);
    expectClose(predict(fit, 12).mean, reference.mean, 1e-9);
  });

  it("gives the same 80 % interval (to the simulation's precision for a multiplicative model)", () => {
    const prediction = predict(fit, 12);
    if (reference.simulated) {
      // statsmodels simulates 20,000 paths; the analytic variance (Hyndman's class 3) is a normal
      // approximation of a skewed distribution: the widths agree within a few percent.
      expectClose(widths(prediction), widths(reference), 0.05);
    } else {
      expectClose(prediction.lower, reference.lower, 1e-9);
      expectClose(prediction.upper, reference.upper, 1e-9);
    }
  });
});

/** How much worse than statsmodels each family may be (geometric mean of the MAE ratios): not at
 * all (found: 0.74 to 0.999). */
const TOLERANCE = 1;

describe("accuracy on held-out periods against statsmodels as an analyst uses it", () => {
  const mae = (forecasts: readonly number[], actual: readonly number[]) =>
    actual.reduce((sum, v, i) => sum + Math.abs(v - forecasts[i]!), 0) / actual.length;
  const geometricMean = (values: readonly number[]) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
  const allRatios: number[] = [];
  const lines: string[] = [];
  let covered = 0;
  let heldOut = 0;

  it.each(families.map((f) => [f.name, f] as const))("%s: no worse than statsmodels, the 80-percent band covers about that", (_, family) => {
    const ratios: number[] = [];
    let inside = 0;
    let count = 0;
    for (const series of family.series) {
      const result = forecast(series.points, family.bucket, 12);
      expect(result.points.map((p) => p.t)).toEqual(series.future);
      const ours = mae(result.points.map((p) => p.value), series.held_out);
      const theirs = mae(series.statsmodels.mean, series.held_out);
      ratios.push(ours / theirs);
      result.points.forEach((p, i) => {
        const actual = series.held_out[i]!;
        if (actual >= p.lower && actual <= p.upper) inside += 1;
        count += 1;
      });
    }
    const ratio = geometricMean(ratios);
    allRatios.push(...ratios);
    covered += inside;
    heldOut += count;
    lines.push(
      `${family.name.padEnd(24)} MAE ratio ${ratio.toFixed(3)} (series: ${ratios.map((r) => r.toFixed(2)).join(" ")}), ` +
        `80 % band covers ${((100 * inside) / count).toFixed(0)} %`,
    );
    expect(ratio).toBeLessThanOrEqual(TOLERANCE);
    // 144 held-out periods a family, correlated along each tail: a loose bracket around 80 %.
    expect(inside / count).toBeGreaterThanOrEqual(0.65);
    expect(inside / count).toBeLessThanOrEqual(0.95);
  });

  it("prints the geometric mean of the ratios", () => {
    const overall = geometricMean(allRatios);
    console.log(
      [...lines, `geometric mean of ${allRatios.length} MAE ratios (module / statsmodels): ${overall.toFixed(3)}; ` +
        `80 % band covers ${((100 * covered) / heldOut).toFixed(1)} % of ${heldOut} held-out periods`].join("\n"),
    );
    expect(overall).toBeLessThanOrEqual(0.95);
  });
});

it("forecasts 2,000 points quickly (printed; asserted loosely, the machine is shared)", () => {
  const daily = timeForecast(2000, 10);
  const hourly = timeForecast(2000, 10, "hour");
  const cpu = (figures: typeof daily) => (figures.holtWintersCpuMs === undefined ? "" : ` (${figures.holtWintersCpuMs.toFixed(1)} ms of processor)`);
  console.log(
    `forecast of 2,000 points, horizon 12, target <= 50 ms: daily (m = 7) ${daily.holtWintersMs.toFixed(1)} ms${cpu(daily)}; ` +
      `hourly (m = 24) ${hourly.holtWintersMs.toFixed(1)} ms${cpu(hourly)}; baseline, a line through 7 points: ${daily.lineMs.toFixed(3)} ms`,
  );
  expect(forecast(benchmarkSeries(2000), "day", 12).method).toBe("holt_winters");
  expect(forecast(benchmarkSeries(2000, "hour"), "hour", 12)).toMatchObject({ method: "holt_winters", seasonLength: 24 });
  expect(Math.max(daily.holtWintersMs, hourly.holtWintersMs)).toBeLessThan(250);
});
