import { describe, expect, it } from "vitest";
import { themeVariables, type ThemeSettings } from "./themeStyle";

const theme: ThemeSettings = {
  font: "source-serif-4",
  colors: { background: "#ffffff", surface: "#fafafa", text: "#111111", muted: "#555555", primary: "#aa0000", border: "#cccccc" },
  card: { radius: 12, border: "thin", shadow: "none" },
  palette: ["#aa0000", "#00aa00"],
  pdf: { orientation: "portrait", margins_mm: { top: 18, right: 12, bottom: 18, left: 12 }, header: "", footer: "", show_filters: true, show_date: true },
};

describe("themeVariables", () => {
  it("turns a theme into the design tokens it overrides", () => {
    const variables = themeVariables(theme);
    expect(variables["--color-primary"]).toBe("#aa0000");
    expect(variables["--radius-md"]).toBe("12px");
    expect(variables["--shadow-card"]).toBe("none");
    expect(variables["--chart-2"]).toBe("#00aa00");
    expect(variables["--chart-3"]).toBeUndefined();
    expect(variables["--font-sans"]).toContain("Source Serif 4");
  });

  it("lets nothing but a colour into a colour, whatever the server sent", () => {
    const hostile = { ...theme, colors: { ...theme.colors, primary: "red; background: url(https://x)" }, palette: ["expression(alert(1))"] };
    const variables = themeVariables(hostile);
    expect(variables["--color-primary"]).toBe("#1d4ed8");
    expect(variables["--chart-1"]).toBe("#1d4ed8");
  });

  it("hides card borders for a borderless card style", () => {
    expect(themeVariables({ ...theme, card: { ...theme.card, border: "none" } })["--color-border"]).toBe("transparent");
  });
});
