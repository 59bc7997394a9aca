import { describe, expect, it } from "vitest";
import { splitValues, withValues } from "./ValuesField";

describe("values field", () => {
  it("splits pasted text on commas and drops empty parts", () => {
    expect(splitValues(" Direct, Organic Search,, ")).toEqual(["Direct", "Organic Search"]);
  });

  it("adds no duplicate and stops at the most values", () => {
    expect(withValues(["a"], ["a", "b"], 100)).toEqual(["a", "b"]);
    expect(withValues(["a", "b"], ["c", "d"], 3)).toEqual(["a", "b", "c"]);
  });
});
