import { describe, expect, it } from "vitest";
import { buildOption, changeValues, dateFormatter, labelRotation, labelsWidth, numberFormatter, numberValue, runningPeriod,
  timeSeries, valueLabels } from "./chartOptions";
import { canForecast, defaultSpec, readSpec, type ChartSpec } from "./chartSpec";

const overTime = [{ name: "day", type: "DATE" }, { name: "visits", type: "BIGINT" }, { name: "orders", type: "BIGINT" }];
const rows = [["2026-01-02", 5, 1], ["2026-01-01", 3, 0]];
const byChannel = [{ name: "channel", type: "VARCHAR" }, { name: "visits", type: "BIGINT" }];
const palette = ["#111111", "#222222"];

describe("defaultSpec", () => {
  it("draws a line over time, bars by category, a number for one value", () => {
    expect(defaultSpec(overTime, 2)).toEqual({ kind: "line", x: "day", y: ["visits", "orders"] });
    expect(defaultSpec(byChannel, 3)).toEqual({ kind: "bar", x: "channel", y: ["visits"] });
    expect(defaultSpec([{ name: "count", type: "BIGINT" }], 1)).toEqual({ kind: "number", y: ["count"] });
    expect(defaultSpec([{ name: "page", type: "VARCHAR" }], 4)).toEqual({ kind: "table", y: [] });
  });
});

describe("readSpec", () => {
  it("keeps a stored spec that fits and drops what it does not know", () => {
    const stored = { kind: "area", x: "day", y: ["orders"], stacked: true, colors: ["#abcdef", "red"], forecast: 6, script: "x" };
    expect(readSpec(stored, overTime, 2)).toEqual({ kind: "area", x: "day", y: ["orders"], stacked: true, horizontal: false,
      labels: false, forecast: 6, colors: ["#abcdef"] });
  });

  it("falls back to the default when the columns changed", () => {
    expect(readSpec({ kind: "bar", x: "gone", y: ["visits"] }, byChannel, 3).x).toBe("channel");
    expect(readSpec("<script>", byChannel, 3).kind).toBe("bar");
  });
});

describe("buildOption", () => {
  it("sorts a time axis and keeps one series per y column", () => {
    const option = buildOption({ kind: "line", x: "day", y: ["visits", "orders"] }, overTime, rows, palette);
    const series = option.series as { name: string; data: number[][] }[];
    expect((option.xAxis as { type: string }).type).toBe("time");
    expect(series.map((s) => s.name)).toEqual(["visits", "orders"]);
    expect(series[0]!.data).toEqual([[Date.UTC(2026, 0, 1), 3], [Date.UTC(2026, 0, 2), 5]]);
  });

  it("stacks bars on a category axis", () => {
    const spec: ChartSpec = { kind: "bar", x: "channel", y: ["visits"], stacked: true };
    const option = buildOption(spec, byChannel, [["Direct", 4], ["Email", "2"]], palette);
    expect(option.xAxis).toMatchObject({ type: "category", data: ["Direct", "Email"] });
    expect(option.series).toMatchObject([{ type: "bar", stack: "total", data: [4, 2] }]);
  });

  it("draws pies and funnels from the first y column", () => {
    const pie = buildOption({ kind: "pie", x: "channel", y: ["visits"] }, byChannel, [["A", 1], [null, 2]], palette);
    expect(pie.series).toMatchObject([{ type: "pie", data: [{ name: "A", value: 1 }, { name: "∅", value: 2 }] }]);
    const funnel = buildOption({ kind: "funnel", x: "channel", y: ["visits"] }, byChannel, [["view", 1], ["buy", 9]], palette);
    expect((funnel.series as { data: { value: number }[] }[])[0]!.data.map((d) => d.value)).toEqual([9, 1]);
  });

  it("adds a forecast line and its interval band", () => {
    const forecast = { series: "visits", method: "linear", points: [{ t: 10, value: 5, lower: 3, upper: 8 }] };
    const option = buildOption({ kind: "line", x: "day", y: ["visits"] }, overTime, rows, palette, [forecast],
      { forecast: "prévision", interval: "80 %" });
    const series = option.series as { name: string; data: number[][] }[];
    expect(series.map((s) => s.name)).toEqual(["visits", "visits lower", "visits · 80 %", "visits · prévision (linear)"]);
    expect(series[1]!.data).toEqual([[10, 3]]);
    expect(series[2]!.data).toEqual([[10, 5]]);
  });

  it("uses the spec's colours before the palette", () => {
    expect(buildOption({ kind: "bar", x: "channel", y: ["visits"], colors: ["#ff0000"] }, byChannel, [], palette).color)
      .toEqual(["#ff0000", ...palette]);
  });
});

describe("helpers", () => {
  it("read the number and the time series", () => {
    expect(numberValue({ kind: "number", y: ["visits"] }, byChannel, [["x", 42]])).toBe(42);
    expect(timeSeries(overTime, [...rows, ["bad", 1]], "day", "visits").map((p) => p.value)).toEqual([3, 5]);
    expect(canForecast({ kind: "bar", x: "day", y: ["visits"] }, overTime)).toBe(true);
    expect(canForecast({ kind: "pie", x: "day", y: ["visits"] }, overTime)).toBe(false);
    expect(canForecast({ kind: "line", x: "channel", y: ["visits"] }, byChannel)).toBe(false);
  });
});

describe("room for the axis labels", () => {
  const columns = [{ name: "path", type: "VARCHAR" }, { name: "views", type: "BIGINT" }];

  it("grows with the longest category of a horizontal bar chart, up to a cut", () => {
    const short = buildOption({ kind: "bar", x: "path", y: ["views"], horizontal: true }, columns, [["/a", 1]], ["#000"]);
    const long = buildOption({ kind: "bar", x: "path", y: ["views"], horizontal: true }, columns, [["/a/much/longer/path", 1]], ["#000"]);
    const huge = buildOption({ kind: "bar", x: "path", y: ["views"], horizontal: true }, columns, [["/x".repeat(200), 1]], ["#000"]);
    const left = (option: Record<string, unknown>) => (option.grid as { left: number }).left;
    expect(left(long)).toBeGreaterThan(left(short));
    expect(left(huge)).toBe(56 + labelsWidth(["/x".repeat(200)]));
    expect((huge.yAxis as { axisLabel: { overflow: string } }).axisLabel.overflow).toBe("truncate");
  });

  it("leaves room for the largest value, negative values and stacked sums on a value axis", () => {
    expect(valueLabels([{ data: [10, 20] }], false)).toEqual(["30", "0"]);
    expect(valueLabels([{ data: [[1, 12000], [2, -5]] }], false)).toEqual(["18,000", "-8"]);
    expect(valueLabels([{ data: [600, 100] }, { data: [600, 100] }], true)).toEqual(["1,800", "0"]);
  });

  it("lets ECharts skip measuring every label", () => {
    const option = buildOption({ kind: "line", x: "path", y: ["views"] }, columns, [["/a", 1]], ["#000"]);
    expect(option.grid).toMatchObject({ outerBoundsMode: "none" });
    expect(option.grid).not.toHaveProperty("containLabel");
  });
});

describe("charts that read well", () => {
  const daily = [{ name: "day", type: "DATE" }, { name: "visits", type: "BIGINT" }, { name: "previous_period", type: "BIGINT" }];
  const days = [["2026-11-25", 10, 8], ["2026-11-26", 12, 9], ["2026-11-27", 3, 11]];
  const noon = Date.UTC(2026, 10, 27, 12);
  type Series = { name: string; data: unknown[]; lineStyle?: { type?: string; opacity?: number }; markArea?: unknown; z?: number };

  it("draws a running period dashed and shaded rather than as a fall", () => {
    const option = buildOption({ kind: "line", x: "day", y: ["visits"] }, daily, days, palette, [],
      { forecast: "f", interval: "i", incomplete: "période en cours" }, { now: noon });
    const series = option.series as Series[];
    expect(series.map((s) => s.name)).toEqual(["visits", "visits · période en cours"]);
    expect(series[0]!.data).toHaveLength(2);
    expect(series[1]!.data).toEqual([[Date.UTC(2026, 10, 26), 12], [Date.UTC(2026, 10, 27), 3]]);
    expect(series[1]!.lineStyle?.type).toBe("dashed");
    expect(series[0]!.markArea).toMatchObject({ label: { formatter: "période en cours" } });
    // A day later the same day is complete: drawn as it is.
    const later = buildOption({ kind: "line", x: "day", y: ["visits"] }, daily, days, palette, [], undefined,
      { now: Date.UTC(2026, 10, 28, 1) });
    expect((later.series as Series[]).map((s) => s.name)).toEqual(["visits"]);
  });

  it("shades the running bar, and knows a month from a day", () => {
    const option = buildOption({ kind: "bar", x: "day", y: ["visits"] }, daily, days, palette, [], undefined, { now: noon });
    const data = (option.series as Series[])[0]!.data;
    expect(data[2]).toMatchObject({ value: [Date.UTC(2026, 10, 27), 3], itemStyle: { opacity: 0.35 } });
    const months = [Date.UTC(2026, 9, 1), Date.UTC(2026, 10, 1)];
    expect(runningPeriod(months, noon)).toEqual({ start: Date.UTC(2026, 10, 1), end: Date.UTC(2026, 11, 1) });
    expect(runningPeriod(months, Date.UTC(2026, 11, 1))).toBeNull();
    expect(runningPeriod([Date.UTC(2026, 10, 27)], noon)).toBeNull();
  });

  it("draws the previous period faintly behind", () => {
    const option = buildOption({ kind: "line", x: "day", y: ["visits", "previous_period"], faint: ["previous_period"] },
      daily, days, palette, [], undefined, { now: Date.UTC(2027, 0, 1) });
    const [current, previous] = option.series as Series[];
    expect(previous!.lineStyle?.opacity).toBeLessThan(1);
    expect(previous!.z).toBeLessThan(current!.z!);
    expect(current!.lineStyle).toBeUndefined();
  });

  it("labels every category, turned when they do not fit side by side", () => {
    const columns = [{ name: "country", type: "VARCHAR" }, { name: "visits", type: "BIGINT" }];
    const few = buildOption({ kind: "bar", x: "country", y: ["visits"] }, columns, [["FR", 1], ["ES", 2]], palette, [], undefined, { width: 600 });
    expect(few.xAxis).toMatchObject({ axisLabel: { interval: 0 } });
    expect((few.xAxis as { axisLabel: { rotate?: number } }).axisLabel.rotate).toBeUndefined();
    const many = Array.from({ length: 30 }, (_, i) => [`Country number ${i}`, i]);
    const crowded = buildOption({ kind: "bar", x: "country", y: ["visits"] }, columns, many, palette, [], undefined, { width: 600 });
    expect(crowded.xAxis).toMatchObject({ axisLabel: { interval: 0, rotate: 90, overflow: "truncate" } });
    // The turned labels get room below the chart.
    expect((crowded.grid as { bottom: number }).bottom).toBeGreaterThan((few.grid as { bottom: number }).bottom);
    expect(labelRotation(["a", "b"], 600)).toBe(0);
    expect(labelRotation(Array.from({ length: 10 }, () => "a long label here"), 600)).toBe(45);
    const horizontal = buildOption({ kind: "bar", x: "country", y: ["visits"], horizontal: true }, columns, many, palette);
    expect(horizontal.yAxis).toMatchObject({ inverse: true, axisLabel: { interval: 0 } });
  });

  it("hides overlapping date labels and writes dates in the person's language", () => {
    const option = buildOption({ kind: "line", x: "day", y: ["visits"] }, daily, days, palette, [], undefined, { locale: "fr", now: 0 });
    const axis = option.xAxis as { axisLabel: { hideOverlap: boolean; formatter: (v: number) => string } };
    expect(axis.axisLabel.hideOverlap).toBe(true);
    expect(axis.axisLabel.formatter(Date.UTC(2026, 10, 27))).toBe("27 nov.");
    expect(dateFormatter("en", [Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1)])(Date.UTC(2026, 1, 1))).toBe("Feb 2026");
  });

  it("writes numbers in the person's language", () => {
    expect(numberFormatter("fr")(1234.5)).toBe("1\u202f234,5");
    expect(numberFormatter("es")(12345.25)).toBe("12.345,25");
    expect(numberFormatter("en")(null)).toBe("–");
    const option = buildOption({ kind: "bar", x: "channel", y: ["visits"] }, byChannel, [["A", 1234]], palette, [], undefined, { locale: "fr" });
    const format = (option.yAxis as { axisLabel: { formatter: (v: number) => string } }).axisLabel.formatter;
    expect(format(1234)).toBe("1\u202f234");
    expect((option.tooltip as { valueFormatter: (v: number) => string }).valueFormatter(0.5)).toBe("0,5");
  });
});

describe("a number with its change", () => {
  const columns = [{ name: "visits", type: "BIGINT" }, { name: "previous_period", type: "BIGINT" }];

  it("compares with the previous period, a fall being good news when lower is better", () => {
    expect(changeValues({ kind: "change", y: ["visits", "previous_period"] }, columns, [[120, 100]]))
      .toEqual({ value: 120, previous: 100, change: 0.2, good: true });
    expect(changeValues({ kind: "change", y: ["visits", "previous_period"], better: "lower" }, columns, [[80, 100]]))
      .toEqual({ value: 80, previous: 100, change: -0.2, good: true });
    expect(changeValues({ kind: "change", y: ["visits", "previous_period"] }, columns, [[5, null]]))
      .toEqual({ value: 5, previous: null, change: null, good: null });
    expect(changeValues({ kind: "change", y: ["visits", "previous_period"] }, columns, [[5, 0]]).change).toBeNull();
  });

  it("is read back from a stored spec only with its two columns", () => {
    expect(readSpec({ kind: "change", y: ["visits", "previous_period"], better: "lower" }, columns, 1))
      .toMatchObject({ kind: "change", y: ["visits", "previous_period"], better: "lower" });
    expect(readSpec({ kind: "change", y: ["visits"] }, columns, 1).kind).not.toBe("change");
  });
});
