// Time buckets of a chart's x axis: which period a time stamp falls in, and the stamps of the
// periods that follow. Months, quarters and years are calendar periods in UTC, never fixed steps.

export type Bucket = "hour" | "day" | "week" | "month" | "quarter" | "year";

const FIXED_STEP_MS: Partial<Record<Bucket, number>> = {
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
};

const MONTHS_PER_PERIOD: Partial<Record<Bucket, number>> = { month: 1, quarter: 3, year: 12 };

/** A bucket's periods counted from an origin stamp (the series' first point). */
export interface PeriodGrid {
  /** Which period `t` falls in, counted from the origin (0); stamps between periods round to the nearest. */
  index(t: number): number;
  /** The stamp of period `k`: the origin moved by k periods, keeping its day of month and time of day. */
  stamp(k: number): number;
}

export function periodGrid(bucket: Bucket, origin: number): PeriodGrid {
  const step = FIXED_STEP_MS[bucket];
  if (step !== undefined) {
    return { index: (t) => Math.round((t - origin) / step), stamp: (k) => origin + k * step };
  }
  const months = MONTHS_PER_PERIOD[bucket];
  if (months === undefined) throw new RangeError(`unknown time bucket: ${String(bucket)}`);
  const start = new Date(origin);
  const startMonth = start.getUTCFullYear() * 12 + start.getUTCMonth();
  const day = start.getUTCDate();
  const timeOfDay = origin - Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), day);
  return {
    index(t) {
      const date = new Date(t);
      return Math.round((date.getUTCFullYear() * 12 + date.getUTCMonth() - startMonth) / months);
    },
    stamp(k) {
      const month = startMonth + k * months;
      const year = Math.floor(month / 12);
      const monthOfYear = month - year * 12;
      // A month shorter than the origin's day (31 January -> February) takes its last day.
      const lastDay = new Date(Date.UTC(year, monthOfYear + 1, 0)).getUTCDate();
      return Date.UTC(year, monthOfYear, Math.min(day, lastDay)) + timeOfDay;
    },
  };
}

/** Periods per season for the buckets that get a seasonal model: a year of months or quarters, a
 * week of days, a day of hours. */
export function seasonLength(bucket: Bucket): number | undefined {
  return { month: 12, quarter: 4, day: 7, hour: 24 }[bucket as "month" | "quarter" | "day" | "hour"];
}
