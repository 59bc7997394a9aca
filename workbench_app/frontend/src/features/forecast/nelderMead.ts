// A bounded Nelder-Mead minimiser: enough for the two or three smoothing parameters of an
// exponential smoothing model, whose objective is cheap, smooth and often best on a bound.

export interface Minimum {
  x: number[];
  value: number;
  evaluations: number;
}

export interface NelderMeadOptions {
  lower: number[];
  upper: number[];
  /** Size of the first simplex's edges as a share of each parameter's range. */
  step?: number;
  maxEvaluations?: number;
  /** Stop when the simplex's values differ by less than this, relatively... */
  tolerance?: number;
  /** ...and its points by less than this in every coordinate. */
  pointTolerance?: number;
}

/** Minimise `f` inside the box [lower, upper], starting from `start`; points outside are clamped. */
export function minimise(f: (x: number[]) => number, start: number[], options: NelderMeadOptions): Minimum {
  const { lower, upper, step = 0.1, maxEvaluations = 2000, tolerance = 1e-10, pointTolerance = 1e-6 } = options;
  const n = start.length;
  const clamp = (x: number[]) => x.map((v, i) => Math.min(upper[i]!, Math.max(lower[i]!, v)));
  let evaluations = 0;
  const evaluate = (x: number[]) => {
    evaluations += 1;
    const value = f(x);
    // A diverging model is worse than any finite fit, never a NaN that breaks the ordering.
    return Number.isFinite(value) ? value : Number.MAX_VALUE;
  };

  let simplex: { x: number[]; value: number }[] = [];
  const first = clamp(start);
  simplex.push({ x: first, value: evaluate(first) });
  for (let i = 0; i < n; i += 1) {
    const range = upper[i]! - lower[i]!;
    const x = [...first];
    // Step towards the side with room, so a start on a bound still spans the box.
    x[i] = first[i]! + step * range <= upper[i]! ? first[i]! + step * range : first[i]! - step * range;
    const point = clamp(x);
    simplex.push({ x: point, value: evaluate(point) });
  }

  const combine = (a: number[], b: number[], weight: number) => clamp(a.map((v, i) => v + weight * (b[i]! - v)));
  while (evaluations < maxEvaluations) {
    simplex.sort((a, b) => a.value - b.value);
    const best = simplex[0]!;
    const worst = simplex[n]!;
    const valueSpread = worst.value - best.value;
    const pointSpread = Math.max(...simplex.map((p) => Math.max(...p.x.map((v, i) => Math.abs(v - best.x[i]!)))));
    if (valueSpread <= tolerance * (Math.abs(best.value) + tolerance) && pointSpread <= pointTolerance) break;

    const centroid = new Array<number>(n).fill(0);
    for (const point of simplex.slice(0, n)) point.x.forEach((v, i) => (centroid[i]! += v / n));

    const reflected = combine(centroid, worst.x, -1);
    const reflectedValue = evaluate(reflected);
    if (reflectedValue < best.value) {
      const expanded = combine(centroid, worst.x, -2);
      const expandedValue = evaluate(expanded);
      simplex[n] = expandedValue < reflectedValue ? { x: expanded, value: expandedValue } : { x: reflected, value: reflectedValue };
    } else if (reflectedValue < simplex[n - 1]!.value) {
      simplex[n] = { x: reflected, value: reflectedValue };
    } else {
      const outside = reflectedValue < worst.value;
      const contracted = combine(centroid, outside ? reflected : worst.x, 0.5);
      const contractedValue = evaluate(contracted);
      if (contractedValue < (outside ? reflectedValue : worst.value)) {
        simplex[n] = { x: contracted, value: contractedValue };
      } else {
        simplex = simplex.map((point, i) => {
          if (i === 0) return point;
          const x = combine(best.x, point.x, 0.5);
          return { x, value: evaluate(x) };
        });
      }
    }
  }
  simplex.sort((a, b) => a.value - b.value);
  return { x: simplex[0]!.x, value: simplex[0]!.value, evaluations };
}
