// ECharts, tree-shaken: only the chart kinds and components we draw, rendered as SVG (vectors,
// for sharp PDF prints). Loaded with the chart view, never with the first screen.
import { BarChart, FunnelChart, HeatmapChart, LineChart, PieChart, SankeyChart, ScatterChart } from "echarts/charts";
import { GridComponent, LegendComponent, TooltipComponent, VisualMapComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { SVGRenderer } from "echarts/renderers";

echarts.use([BarChart, FunnelChart, HeatmapChart, LineChart, PieChart, SankeyChart, ScatterChart, GridComponent, LegendComponent,
  TooltipComponent, VisualMapComponent, SVGRenderer]);

export { echarts };
