// The palette of the themed area a chart sits in. Charts read the colours themselves from the
// design tokens (ChartView's themePalette); this only tells them when those tokens changed (the
// theme arrived, or the editor saved another one), so they draw again in the new colours.
import { createContext } from "react";

export const ThemePalette = createContext<string>("");
