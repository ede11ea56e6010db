/** Order statistics for measurements: the median and other quantiles of a list of numbers. */

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("median of nothing");
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * The q-quantile by the nearest-rank method: the smallest value with at least q of all values at or
 * below it (q = 0.99 is the p99: 99 % of the values are no larger). `sorted` must be in ascending
 * order; sorting is left to the caller so that one sort serves several quantiles.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) throw new RangeError("quantile of nothing");
  if (!(q >= 0 && q <= 1)) throw new RangeError(`q must be in [0, 1], got ${q}`);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}
