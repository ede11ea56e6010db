/**
 * Plain-text tables and charts for the herd simulator's results: pure functions that return strings
 * (no colour, no terminal queries), built from Unicode block characters, so lessons can print them
 * anywhere. Widths are display widths (lib/core/text.ts), so a Chinese label lines up too; their
 * words are in the process's language (the numbers behind them: series.ts).
 */
import { t } from "../core/i18n.ts";
import { displayWidth, padEnd, padStart } from "../core/text.ts";
import {
  bucketCounts,
  formatNumber,
  type Series,
  type SweepMetric,
  type SweepRow,
  sweepAxes,
  sweepSeries,
  sweepValue,
  type TimeSeries,
} from "./series.ts";

export {
  bucketCounts,
  formatNumber,
  type Series,
  type SweepMetric,
  type SweepRow,
  silentBuckets,
  sweepSeries,
  type TimeSeries,
} from "./series.ts";

/** Eighth blocks for horizontal bars, 1/8 to 8/8 of a character cell. */
const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"] as const;
/** Heights for sparklines: a space for zero, then 1/8 to 8/8 of a cell. */
const LEVELS = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"] as const;

/** A table with a header row; numbers (strings that look numeric) are right-aligned. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) =>
    Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ""))),
  );
  const numeric = (s: string): boolean => /^-?[\d,.]+( ?[a-z]+)?$/.test(s);
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (numeric(cell) ? padStart(cell, widths[i]!) : padEnd(cell, widths[i]!)))
      .join("  ")
      .trimEnd();
  const rule = widths.map((w) => "─".repeat(w)).join("  ");
  return [
    line(headers.map((h, i) => (i === 0 ? h : padStart(h, widths[i]!)))),
    rule,
    ...rows.map(line),
  ].join("\n");
}

/** A horizontal bar `value / max` of `width` cells, to an eighth of a cell. */
export function bar(value: number, max: number, width: number): string {
  if (!(max > 0) || !(value > 0)) return "";
  const eighths = Math.round((Math.min(value, max) / max) * width * 8);
  return "█".repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]!;
}

export interface BarItem {
  label: string;
  value: number;
}

export interface BarChartOptions {
  /** Cells for the longest bar. Default 40. */
  width?: number;
  /** Appended to each value, e.g. " ms". */
  unit?: string;
  /** Decimals of the printed values. Default 0. */
  decimals?: number;
  /** The value of a full bar. Default: the largest value. */
  max?: number;
}

/** One horizontal bar per item, scaled to the largest, with the value after it. */
export function barChart(items: readonly BarItem[], options: BarChartOptions = {}): string {
  const width = options.width ?? 40;
  const max = options.max ?? Math.max(0, ...items.map((i) => i.value));
  const labelWidth = Math.max(0, ...items.map((i) => displayWidth(i.label)));
  return items
    .map((item) => {
      const b = bar(item.value, max, width);
      const value = formatNumber(item.value, options.decimals ?? 0) + (options.unit ?? "");
      return `${padEnd(item.label, labelWidth)} │${b} ${value}`;
    })
    .join("\n");
}

/** One character per value, ▁ to █, scaled so that `max` is a full cell (a space for zero). */
export function sparkline(values: readonly number[], max = Math.max(0, ...values)): string {
  return values
    .map((v) => {
      if (!(max > 0) || !(v > 0)) return LEVELS[0];
      return LEVELS[Math.max(1, Math.round((Math.min(v, max) / max) * 8))]!;
    })
    .join("");
}

export interface SeriesChartOptions {
  /** What the x values are, e.g. "clients". */
  xLabel: string;
  /** The x values, shared by every series. */
  xs: readonly number[];
  /** Appended to the printed maxima, e.g. " ms". */
  unit?: string;
  /** Cells per x value (repeated blocks make a short series easier to read). Default 2. */
  cellsPerPoint?: number;
}

/**
 * A line-ish chart: one sparkline per series across the x values, all on one scale (zero to the
 * largest value of any series), with each series' last value at the end of its line.
 */
export function seriesChart(series: readonly Series[], options: SeriesChartOptions): string {
  const cells = Math.max(1, options.cellsPerPoint ?? 2);
  const max = Math.max(0, ...series.flatMap((s) => s.values));
  const nameWidth = Math.max(0, ...series.map((s) => displayWidth(s.name)));
  const unit = options.unit ?? "";
  const lines = series.map((s) => {
    const line = [...sparkline(s.values, max)].map((ch) => ch.repeat(cells)).join("");
    const last = s.values.at(-1);
    return `${padEnd(s.name, nameWidth)} │${line}│ ${last === undefined ? "" : formatNumber(last) + unit}`;
  });
  const first = options.xs[0];
  const lastX = options.xs.at(-1);
  const span = options.xs.length * cells;
  let axis = "";
  if (first !== undefined && lastX !== undefined) {
    const left = String(first);
    const right = String(lastX);
    axis =
      options.xs.length === 1
        ? left
        : left + right.padStart(Math.max(right.length + 1, span - left.length));
  }
  lines.push(`${" ".repeat(nameWidth)}  ${axis}  ${options.xLabel}`);
  const full = `${formatNumber(max)}${unit}`;
  lines.push(
    `${" ".repeat(nameWidth)}  ${t("(one scale for all rows: a full block is {full})", { full })}`,
  );
  return lines.join("\n");
}

/**
 * Several series of times counted in `buckets` buckets over [0, `untilMs`), one sparkline each, all
 * on one scale: `name │ ▁▂█ │` rows (names padded to one width), and the time axis under them.
 */
export function timeSparklines(
  series: readonly TimeSeries[],
  untilMs: number,
  buckets: number,
): { rows: string[]; axis: string; counts: number[][]; peak: number } {
  const counts = series.map((s) => bucketCounts(s.timesMs, untilMs, buckets));
  const peak = Math.max(0, ...counts.flat());
  const nameWidth = Math.max(0, ...series.map((s) => displayWidth(s.name)));
  const rows = series.map(
    (s, i) => `${padEnd(s.name, nameWidth)} │${sparkline(counts[i]!, peak)}│`,
  );
  const axis = `${" ".repeat(nameWidth)}  0${padStart(`${formatNumber(untilMs)} ms`, buckets - 1)}`;
  return { rows, axis, counts, peak };
}

/**
 * `timeSparklines` in buckets of `bucketMs`, the axis running to the first whole bucket after the
 * last time.
 */
export function bucketSparklines(
  series: readonly TimeSeries[],
  bucketMs: number,
): ReturnType<typeof timeSparklines> {
  const last = Math.max(0, ...series.flatMap((s) => s.timesMs.map((t) => t + 1)));
  const untilMs = Math.ceil(last / bucketMs) * bucketMs;
  return timeSparklines(series, untilMs, untilMs / bucketMs);
}

export interface HistogramOptions {
  /** The time axis ends here, ms. */
  untilMs: number;
  /** Columns, each a bucket of untilMs / buckets ms. Default 50. */
  buckets?: number;
  /** How many runs the times come from, to print the peak as writes per bucket per run. Default 1. */
  runs?: number;
  /** Scale every row to the same peak instead of each to its own. Default false. */
  sharedScale?: boolean;
  /**
   * Heights by the square root of the count, so that small buckets stay visible beside the first
   * burst, when every client writes at once. Default false (heights proportional to counts).
   */
  sqrt?: boolean;
}

/**
 * A histogram of write calls over time, one row per strategy: each column is a time bucket, its
 * height the number of writes that reached the server then. Backoff without jitter shows as
 * separate spikes (everyone who failed together retries together); full jitter as a spread.
 * Each row is scaled to its own peak unless `sharedScale`; the peak is printed at the end.
 */
export function writeTimeHistogram(
  series: readonly TimeSeries[],
  options: HistogramOptions,
): string {
  const buckets = Math.max(1, Math.floor(options.buckets ?? 50));
  const runs = Math.max(1, options.runs ?? 1);
  const counts = series.map((s) => bucketCounts(s.timesMs, options.untilMs, buckets));
  const height = options.sqrt === true ? Math.sqrt : (x: number): number => x;
  const sharedMax = Math.max(0, ...counts.flat());
  const nameWidth = Math.max(0, ...series.map((s) => displayWidth(s.name)));
  const bucketMs = options.untilMs / buckets;
  const lines = series.map((s, i) => {
    const c = counts[i]!;
    const peak = Math.max(0, ...c);
    const line = sparkline(c.map(height), height(options.sharedScale === true ? sharedMax : peak));
    return `${padEnd(s.name, nameWidth)} │${line}│ ${t("peak {peak}", { peak: formatNumber(peak / runs) })}`;
  });
  const right = `${formatNumber(options.untilMs)} ms`;
  lines.push(`${" ".repeat(nameWidth)}  0${right.padStart(Math.max(right.length, buckets - 1))}`);
  const ms = formatNumber(bucketMs);
  const notes = [
    runs > 1
      ? t("writes per {ms} ms bucket over {runs} runs; peak is per run", { ms, runs })
      : t("writes per {ms} ms bucket", { ms }),
    options.sharedScale === true
      ? t("one scale for all rows")
      : t("each row scaled to its own peak"),
  ];
  if (options.sqrt === true) notes.push(t("height by square root"));
  lines.push(`${" ".repeat(nameWidth)}  ${t("({notes})", { notes: notes.join(t("; ")) })}`);
  return lines.join("\n");
}

/** A table of one metric: a row per client count, a column per strategy. */
export function sweepTable(rows: readonly SweepRow[], metric: SweepMetric, decimals = 0): string {
  const { strategies, clients } = sweepAxes(rows);
  const body = clients.map((n) => [
    String(n),
    ...strategies.map((s) => {
      const v = sweepValue(rows, s, n, metric);
      return v === undefined ? "" : formatNumber(v, decimals, true);
    }),
  ]);
  return table([t("clients"), ...strategies], body);
}

/** `seriesChart` of one metric: a line per strategy across the client counts. */
export function sweepChart(rows: readonly SweepRow[], metric: SweepMetric, unit = ""): string {
  const { clients, series } = sweepSeries(rows, metric);
  return seriesChart(series, {
    xLabel: t("clients"),
    xs: clients,
    unit,
    cellsPerPoint: clients.length <= 10 ? 3 : 1,
  });
}

/** `barChart` of one metric at one client count, a bar per strategy. */
export function sweepBars(
  rows: readonly SweepRow[],
  metric: SweepMetric,
  clients: number,
  unit = "",
): string {
  const items = rows
    .filter((r) => r.clients === clients)
    .map((r) => ({ label: r.strategy, value: r[metric] }));
  return barChart(items, { unit });
}
