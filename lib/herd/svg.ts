/**
 * The herd's charts as SVG files: the documents of svg-docs.ts (the same ones the browser demo
 * draws in its page), written into a folder, with their words in the process's language.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { t } from "../core/i18n.ts";
import type { SweepRow } from "./series.ts";
import { type HerdChartLabels, herdSvgs } from "./svg-docs.ts";
import type { HerdWriteTimes } from "./write-times.ts";

export { HERD_SVG_FILES, herdSvgs, type SvgFile } from "./svg-docs.ts";

/**
 * Writes the herd's charts into `dir` (created if missing) and returns the paths written:
 * herd-calls.svg, herd-completion.svg and, given `writeTimes`, herd-write-times.svg.
 * `rows` are a sweep's rows (`simulateMany` / `simulateManyParallel`); `writeTimes` comes from
 * `herdWriteTimes` (lib/herd/write-times.ts).
 */
export function writeHerdSvgs(
  dir: string,
  rows: readonly SweepRow[],
  writeTimes?: HerdWriteTimes,
): string[] {
  mkdirSync(dir, { recursive: true });
  return herdSvgs(rows, writeTimes, chartLabels()).map((file) => {
    const path = join(dir, file.name);
    writeFileSync(path, file.svg);
    return path;
  });
}

/** The charts' words in the process's language (English: svg-docs.ts's ENGLISH_LABELS). */
export function chartLabels(): HerdChartLabels {
  return {
    callsTitle: t("Write calls per run versus clients"),
    callsSubtitle: t(
      "Mean write attempts per run, the work the server does; one line per backoff strategy",
    ),
    callsY: t("write calls per run"),
    completionTitle: t("Completion time versus clients"),
    completionSubtitle: t(
      "Mean time until the last client has written, ms; one line per backoff strategy",
    ),
    completionY: t("completion time (ms)"),
    clientsX: t("clients"),
    logNote: t(" (log scale)"),
    writeTimesTitle: (clients) =>
      t("When the write calls reach the server, {clients} clients", { clients: String(clients) }),
    writeTimesSubtitle: (bucketMs, runs, untilMs) =>
      t(
        "Writes per {bucketMs} ms bucket over {runs, plural, one {# run} other {# runs}}, first {untilMs} ms; each row scaled to its own peak; height by square root",
        { bucketMs, runs, untilMs },
      ),
    timeX: t("time since the clients started (ms)"),
    peak: (peak, perRun) =>
      perRun ? t("peak {peak} / run", { peak }) : t("peak {peak}", { peak }),
    barTooltip: (name, from, to, count, runs) =>
      t("{name}, {from}-{to} ms: {count} writes over {runs} runs", {
        name,
        from,
        to,
        count: String(count),
        runs: String(runs),
      }),
  };
}
