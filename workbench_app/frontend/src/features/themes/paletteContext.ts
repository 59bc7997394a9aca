// The palette of the themed area around (its colours space-separated; "" outside one). Charts read
// their colours from the design tokens (ChartView's themePalette) and only take this as the signal
// to draw again when the tokens changed (a theme arriving after the result, another one saved in
// the editor); the chart settings offer it as the series' colours before any is chosen.
import { createContext } from "react";

export const ThemePalette = createContext<string>("");
