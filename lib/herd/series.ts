/**
 * The numbers behind the herd's charts, with no text of their own: grouped numbers, counts of
 * times in buckets, a sweep's rows as series. The browser demo draws its SVG charts from these
 * (lib/herd/svg-docs.ts), so this module imports nothing that needs Node; the terminal's charts,
 * with their words, are charts.ts.
 */

/** A number for people: thousands grouped with commas, up to `decimals` decimals (exactly, if `fixed`). */
export function formatNumber(value: number, decimals = 0, fixed = false): string {
  return value.toLocaleString("en-US", {
    maximumFractionDigits: decimals,
    minimumFractionDigits: fixed ? decimals : 0,
  });
}

export interface Series {
  name: string;
  /** y for each x of the chart's shared x values, in the same order. */
  values: readonly number[];
}

/** Counts of `timesMs` in `buckets` equal buckets over [0, untilMs); later times are left out. */
export function bucketCounts(
  timesMs: readonly number[],
  untilMs: number,
  buckets: number,
): number[] {
  const counts = new Array<number>(buckets).fill(0);
  const width = untilMs / buckets;
  for (const t of timesMs) {
    if (t < 0 || t >= untilMs) continue;
    const i = Math.min(buckets - 1, Math.floor(t / width));
    counts[i]!++;
  }
  return counts;
}

/**
 * Of the buckets up to the last one that holds a time, how many hold none: the silences between the
 * waves of a herd without jitter.
 */
export function silentBuckets(
  timesMs: readonly number[],
  untilMs: number,
  buckets: number,
): { silent: number; active: number } {
  const counts = bucketCounts(timesMs, untilMs, buckets);
  const active = counts.findLastIndex((c) => c > 0) + 1;
  return { silent: counts.slice(0, active).filter((c) => c === 0).length, active };
}

export interface TimeSeries {
  name: string;
  /** When each write reached the server, ms (from any number of runs). */
  timesMs: readonly number[];
}

/** One row of a sweep (what `simulateMany` returns). */
export interface SweepRow {
  strategy: string;
  clients: number;
  calls: number;
  completionMs: number;
}

export type SweepMetric = "calls" | "completionMs";

export function sweepAxes(rows: readonly SweepRow[]): { strategies: string[]; clients: number[] } {
  const strategies = [...new Set(rows.map((r) => r.strategy))];
  const clients = [...new Set(rows.map((r) => r.clients))];
  return { strategies, clients };
}

/** One metric of one point of a sweep, if the sweep has it. */
export function sweepValue(
  rows: readonly SweepRow[],
  strategy: string,
  clients: number,
  metric: SweepMetric,
): number | undefined {
  return rows.find((r) => r.strategy === strategy && r.clients === clients)?.[metric];
}

/** One metric of a sweep as series: a series per strategy, a value per client count (0 if missing). */
export function sweepSeries(
  rows: readonly SweepRow[],
  metric: SweepMetric,
): { clients: number[]; series: Series[] } {
  const { strategies, clients } = sweepAxes(rows);
  const series = strategies.map((name) => ({
    name,
    values: clients.map((n) => sweepValue(rows, name, n, metric) ?? 0),
  }));
  return { clients, series };
}
