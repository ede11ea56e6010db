/**
 * The herd's charts as SVG documents (strings, no files): calls versus clients and completion time
 * versus clients (a line per strategy, log scale: the strategies differ by orders of magnitude), and
 * when the writes reach the server (one histogram panel per strategy). `npm run herd -- --svg`
 * writes them to files (svg.ts); the browser demo draws the very same documents in the page, with
 * its texts in the page's language (`labels`).
 */
import { histogramSvg, lineChartSvg } from "../charts/charts-svg.ts";
import { colorAt } from "../charts/svg.ts";
import {
  bucketCounts,
  formatNumber,
  type SweepMetric,
  type SweepRow,
  sweepSeries,
} from "./series.ts";
import { HERD_STRATEGIES } from "./simulator.ts";
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

/** Every text the charts print, so a page can print them in its own language. */
export interface HerdChartLabels {
  callsTitle: string;
  callsSubtitle: string;
  callsY: string;
  completionTitle: string;
  completionSubtitle: string;
  completionY: string;
  clientsX: string;
  logNote: string;
  writeTimesTitle: (clients: number) => string;
  writeTimesSubtitle: (bucketMs: string, runs: number, untilMs: string) => string;
  timeX: string;
  peak: (peak: string, perRun: boolean) => string;
  barTooltip: (name: string, from: string, to: string, count: number, runs: number) => string;
}

export const ENGLISH_LABELS: HerdChartLabels = {
  callsTitle: "Write calls per run versus clients",
  callsSubtitle:
    "Mean write attempts per run, the work the server does; one line per backoff strategy",
  callsY: "write calls per run",
  completionTitle: "Completion time versus clients",
  completionSubtitle:
    "Mean time until the last client has written, ms; one line per backoff strategy",
  completionY: "completion time (ms)",
  clientsX: "clients",
  logNote: " (log scale)",
  writeTimesTitle: (clients) => `When the write calls reach the server, ${clients} clients`,
  writeTimesSubtitle: (bucketMs, runs, untilMs) =>
    `Writes per ${bucketMs} ms bucket over ${runs} run${runs === 1 ? "" : "s"}, first ${untilMs} ms; each row scaled to its own peak; height by square root`,
  timeX: "time since the clients started (ms)",
  peak: (peak, perRun) => `peak ${peak}${perRun ? " / run" : ""}`,
  barTooltip: (name, from, to, count, runs) =>
    `${name}, ${from}-${to} ms: ${count} writes over ${runs} runs`,
};

/** The charts as documents: calls and completion time, and the histogram if given. */
export function herdSvgs(
  rows: readonly SweepRow[],
  writeTimes?: HerdWriteTimes,
  labels: HerdChartLabels = ENGLISH_LABELS,
): SvgFile[] {
  if (rows.length === 0) throw new RangeError("no rows to draw");
  const files: SvgFile[] = [
    { name: HERD_SVG_FILES.calls, svg: sweepLines(rows, "calls", labels) },
    { name: HERD_SVG_FILES.completion, svg: sweepLines(rows, "completionMs", labels) },
  ];
  if (writeTimes !== undefined)
    files.push({ name: HERD_SVG_FILES.writeTimes, svg: writeTimesSvg(writeTimes, labels) });
  return files;
}

/** A strategy's colour, the same in every chart whichever strategies it shows. */
export function strategyColor(name: string, index = 0): string {
  const known = (HERD_STRATEGIES as readonly string[]).indexOf(name);
  return colorAt(known >= 0 ? known : HERD_STRATEGIES.length + index);
}

/** A strategy's dash pattern, so that lines differ by more than their colour. */
const DASHES = [undefined, "8 4", "2 3", "8 3 2 3", "12 4", "4 4"] as const;
export function strategyDash(name: string): string | undefined {
  const known = (HERD_STRATEGIES as readonly string[]).indexOf(name);
  return known >= 0 ? DASHES[known % DASHES.length] : undefined;
}

function sweepLines(rows: readonly SweepRow[], metric: SweepMetric, l: HerdChartLabels): string {
  const { clients, series: plain } = sweepSeries(rows, metric);
  const series = plain.map((s, i) => {
    const dash = strategyDash(s.name);
    return { ...s, color: strategyColor(s.name, i), ...(dash === undefined ? {} : { dash }) };
  });
  const calls = metric === "calls";
  return lineChartSvg({
    title: calls ? l.callsTitle : l.completionTitle,
    subtitle: calls ? l.callsSubtitle : l.completionSubtitle,
    xLabel: l.clientsX,
    yLabel: calls ? l.callsY : l.completionY,
    xs: clients,
    series,
    yScale: "log",
    logNote: l.logNote,
  });
}

function writeTimesSvg(w: HerdWriteTimes, l: HerdChartLabels): string {
  const bucketMs = w.untilMs / w.buckets;
  return histogramSvg({
    title: l.writeTimesTitle(w.clients),
    subtitle: l.writeTimesSubtitle(formatNumber(bucketMs), w.runs, formatNumber(w.untilMs)),
    rows: w.series.map((s, i) => ({
      name: s.name,
      counts: bucketCounts(s.timesMs, w.untilMs, w.buckets),
      color: strategyColor(s.name, i),
    })),
    untilMs: w.untilMs,
    runs: w.runs,
    sqrt: true,
    xLabel: l.timeX,
    peakLabel: l.peak,
    barTooltip: l.barTooltip,
  });
}
