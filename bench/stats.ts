// The figures a row of the bench's table reports, from its samples.

export type Summary = { n: number; min: number; p10: number; p50: number; p90: number; p99: number; max: number };

/** Linear-interpolated quantile (q in 0..1) of an unsorted list. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = sorted[Math.floor(pos)]!;
  const hi = sorted[Math.ceil(pos)]!;
  return lo + (hi - lo) * (pos - Math.floor(pos));
}

export function summarize(values: number[]): Summary {
  return {
    n: values.length,
    min: Math.min(...values),
    p10: quantile(values, 0.1),
    p50: quantile(values, 0.5),
    p90: quantile(values, 0.9),
    p99: quantile(values, 0.99),
    max: Math.max(...values),
  };
}
