// The chart library is the largest part of the application: screens load it only when they show
// a chart, and a dashboard starts fetching it while its cards run (`LazyChartView.preload()`).
import { preloadable } from "../../app/preloadable";

export const LazyChartView = preloadable(() => import("./ChartView"));
