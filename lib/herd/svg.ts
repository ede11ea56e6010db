/**
 * The herd's charts as SVG files: calls versus clients and completion time versus clients (a line
 * per strategy, log scale: the strategies differ by orders of magnitude), and when the writes reach
 * the server (one histogram panel per strategy). The same data as the terminal charts of
 * `npm run herd`, drawn by lib/charts-svg.ts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { histogramSvg, lineChartSvg } from "../charts-svg.ts";
import { colorAt } from "../svg.ts";
import { HERD_STRATEGIES } from "./simulator.ts";
import { bucketCounts, formatNumber, sweepSeries, type SweepMetric, type SweepRow } from "./charts.ts";
import type { HerdWriteTimes } from "./write-times.ts";

/** The file names `writeHerdSvgs` writes. */
export const HERD_SVG_FILES = {
  calls: "herd-calls.svg",
  completion: "herd-completion.svg",
  writeTimes: "herd-write-times.svg",
} as const;

export interface SvgFile {
  name: string;
  svg: string;
}

/** The charts as documents, not yet written: calls and completion time, and the histogram if given. */
export function herdSvgs(rows: readonly SweepRow[], writeTimes?: HerdWriteTimes): SvgFile[] {
  if (rows.length === 0) throw new RangeError("no rows to draw");
  const files: SvgFile[] = [
    { name: HERD_SVG_FILES.calls, svg: sweepLines(rows, "calls") },
    { name: HERD_SVG_FILES.completion, svg: sweepLines(rows, "completionMs") },
  ];
  if (writeTimes !== undefined) files.push({ name: HERD_SVG_FILES.writeTimes, svg: writeTimesSvg(writeTimes) });
  return files;
}

/**
 * Writes the herd's charts into `dir` (created if missing) and returns the paths written:
 * herd-calls.svg, herd-completion.svg and, given `writeTimes`, herd-write-times.svg.
 * `rows` are a sweep's rows (`simulateMany` / `simulateManyParallel`); `writeTimes` comes from
 * `herdWriteTimes` (lib/herd/write-times.ts).
 */
export function writeHerdSvgs(dir: string, rows: readonly SweepRow[], writeTimes?: HerdWriteTimes): string[] {
  mkdirSync(dir, { recursive: true });
  return herdSvgs(rows, writeTimes).map((file) => {
    const path = join(dir, file.name);
    writeFileSync(path, file.svg);
    return path;
  });
}

/** A strategy's colour, the same in every chart whichever strategies it shows. */
function strategyColor(name: string, index: number): string {
  const known = (HERD_STRATEGIES as readonly string[]).indexOf(name);
  return colorAt(known >= 0 ? known : HERD_STRATEGIES.length + index);
}

function sweepLines(rows: readonly SweepRow[], metric: SweepMetric): string {
  const { clients, series: plain } = sweepSeries(rows, metric);
  const series = plain.map((s, i) => ({ ...s, color: strategyColor(s.name, i) }));
  const calls = metric === "calls";
  return lineChartSvg({
    title: calls ? "Write calls per run versus clients" : "Completion time versus clients",
    subtitle: calls
      ? "Mean write attempts per run, the work the server does; one line per backoff strategy"
      : "Mean time until the last client has written, ms; one line per backoff strategy",
    xLabel: "clients",
    yLabel: calls ? "write calls per run" : "completion time (ms)",
    xs: clients,
    series,
    yScale: "log",
  });
}

function writeTimesSvg(w: HerdWriteTimes): string {
  const bucketMs = w.untilMs / w.buckets;
  return histogramSvg({
    title: `When the write calls reach the server, ${w.clients} clients`,
    subtitle:
      `Writes per ${formatNumber(bucketMs)} ms bucket over ${w.runs} run${w.runs === 1 ? "" : "s"}, first ` +
      `${formatNumber(w.untilMs)} ms; each row scaled to its own peak; height by square root`,
    rows: w.series.map((s, i) => ({ name: s.name, counts: bucketCounts(s.timesMs, w.untilMs, w.buckets), color: strategyColor(s.name, i) })),
    untilMs: w.untilMs,
    runs: w.runs,
    sqrt: true,
  });
}
