import { describe, expect, it } from "vitest";
import { csvCell, sortRows, toCsv, toTsv } from "./csv";

describe("csv", () => {
  it("quotes what needs quoting", () => {
    expect(toCsv(["a", "b,c"], [[1, 'say "hi"'], [null, "line\nbreak"]])).toBe(
      'a,"b,c"\r\n1,"say ""hi"""\r\n,"line\nbreak"\r\n');
  });

  it("defuses spreadsheet formulas in text, not in numbers", () => {
    expect(csvCell("=HYPERLINK(\"x\")")).toBe("\"'=HYPERLINK(\"\"x\"\")\"");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell(-3)).toBe("-3");
  });

  it("writes objects as JSON", () => {
    expect(csvCell({ city: "Lyon" })).toBe('"{""city"":""Lyon""}"');
  });

  it("makes tab-separated text for the clipboard", () => {
    expect(toTsv(["a", "b"], [[1, "x\ty"]])).toBe("a\tb\n1\tx y");
  });
});

describe("sortRows", () => {
  const rows = [[3, "b"], [null, "a"], [1, "c"], [2, null]] as const;
  it("sorts numbers and text with nulls last both ways", () => {
    expect(sortRows(rows, 0, "asc").map((r) => r[0])).toEqual([1, 2, 3, null]);
    expect(sortRows(rows, 0, "desc").map((r) => r[0])).toEqual([3, 2, 1, null]);
    expect(sortRows(rows, 1, "asc").map((r) => r[1])).toEqual(["a", "b", "c", null]);
  });
});
