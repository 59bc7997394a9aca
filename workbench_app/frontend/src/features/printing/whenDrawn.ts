// Resolves once the print page has drawn: fonts loaded, and every chart's SVG in place (ECharts
// paints on an animation frame after its options are set). Gives up waiting after a few seconds:
// a PDF with a chart missing beats no PDF.
const GIVE_UP_MS = 8000;

function frame(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => resolve()));
}

function chartsDrawn(): boolean {
  return Array.from(document.querySelectorAll('[data-testid="chart"]')).every((chart) => chart.querySelector("svg path, svg text"));
}

export async function whenDrawn(): Promise<void> {
  await document.fonts.ready;
  const started = performance.now();
  await frame();
  while (!chartsDrawn() && performance.now() - started < GIVE_UP_MS) await frame();
  await frame();
}
