// From a chart's result to the forecast module's input: the time bucket is read off the spacing
// of the x values (a chart knows its column, not the bucket its query grouped by). Pure.
import type { Bucket } from "../forecast/forecast";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The bucket whose length is closest to the typical gap between consecutive times, or null. */
export function inferBucket(times: readonly number[]): Bucket | null {
  const gaps: number[] = [];
  for (let i = 1; i < times.length; i += 1) {
    const gap = times[i]! - times[i - 1]!;
    if (gap > 0) gaps.push(gap);
  }
  if (gaps.length === 0) return null;
  gaps.sort((a, b) => a - b);
  const typical = gaps[Math.floor(gaps.length / 2)]!;
  const lengths: [Bucket, number][] = [["hour", HOUR], ["day", DAY], ["week", 7 * DAY], ["month", 30.44 * DAY],
    ["quarter", 91.31 * DAY], ["year", 365.25 * DAY]];
  let best: [Bucket, number] = lengths[0]!;
  for (const candidate of lengths) {
    if (Math.abs(Math.log(typical / candidate[1])) < Math.abs(Math.log(typical / best[1]))) best = candidate;
  }
  // A gap far from every bucket (every 90 minutes, every 10 days) has no calendar to follow.
  return Math.abs(Math.log(typical / best[1])) < Math.log(1.25) ? best[0] : null;
}
