import { describe, expect, it } from "vitest";
import { inferBucket } from "./forecastSeries";

const day = 86_400_000;
const months = [Date.UTC(2025, 0, 1), Date.UTC(2025, 1, 1), Date.UTC(2025, 2, 1), Date.UTC(2025, 3, 1)];

describe("inferBucket", () => {
  it("reads the bucket off the spacing, missing periods included", () => {
    expect(inferBucket([0, day, 2 * day, 4 * day])).toBe("day");
    expect(inferBucket([0, 3_600_000, 7_200_000])).toBe("hour");
    expect(inferBucket([0, 7 * day, 14 * day])).toBe("week");
    expect(inferBucket(months)).toBe("month");
    expect(inferBucket([Date.UTC(2024, 0, 1), Date.UTC(2024, 3, 1), Date.UTC(2024, 6, 1)])).toBe("quarter");
    expect(inferBucket([Date.UTC(2020, 0, 1), Date.UTC(2021, 0, 1), Date.UTC(2022, 0, 1)])).toBe("year");
  });

  it("has none for too few points or an irregular spacing", () => {
    expect(inferBucket([0])).toBeNull();
    expect(inferBucket([0, 0])).toBeNull();
    expect(inferBucket([0, 10 * day, 20 * day])).toBeNull();
  });
});
