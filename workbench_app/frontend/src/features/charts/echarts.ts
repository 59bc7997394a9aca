// ECharts, tree-shaken: only the chart kinds and components we draw, rendered as SVG (vectors,
// for sharp PDF prints). Loaded with the chart view, never with the first screen.
import { BarChart, FunnelChart, LineChart, PieChart, ScatterChart } from "echarts/charts";
import { GridComponent, LegendComponent, TooltipComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { SVGRenderer } from "echarts/renderers";

echarts.use([BarChart, FunnelChart, LineChart, PieChart, ScatterChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

export { echarts };
