/**
 * A sweep's results as the terminal shows them, in lesson 02 and in `npm run herd`: a table of the
 * mean write calls and one of the mean completion time (a row per client count, a column per
 * strategy), then, with more than one client count, each as a chart across the client counts; and
 * the numbers lesson 02's sentences and closing table are made of.
 */
import { HERD_PARAMS } from "../client/backoff.ts";
import { t } from "../core/i18n.ts";
import { sweepChart, sweepTable } from "./charts.ts";
import { formatNumber, silentBuckets } from "./series.ts";
import {
  HERD_STRATEGIES,
  type HerdStrategy,
  LATENCY_MEAN_MS,
  LATENCY_SD_MS,
  type PointResult,
} from "./simulator.ts";
import type { HerdWriteTimes } from "./write-times.ts";

/** A heading and the text under it. */
export interface Block {
  title: string;
  body: string;
}

/** The tables of a sweep, and its charts when it has more than one client count. */
export function sweepBlocks(rows: readonly PointResult[]): Block[] {
  const blocks: Block[] = [
    {
      title: t("Write calls per run (mean): the work the server does"),
      body: sweepTable(rows, "calls", 1),
    },
    {
      title: t("Completion time (mean, ms): until the last client has written"),
      body: sweepTable(rows, "completionMs"),
    },
  ];
  if (new Set(rows.map((r) => r.clients)).size > 1) {
    blocks.push({ title: t("Calls versus clients"), body: sweepChart(rows, "calls") });
    blocks.push({
      title: t("Completion time versus clients"),
      body: sweepChart(rows, "completionMs", " ms"),
    });
  }
  return blocks;
}

/** The simulator's setup, for a sentence: client counts, runs, latency, base and cap. */
export function simulatorSetup(clients: readonly number[], runs: number): Record<string, string> {
  return {
    clients: clients.join(", "),
    runs: String(runs),
    mean: String(LATENCY_MEAN_MS),
    sd: String(LATENCY_SD_MS),
    base: String(HERD_PARAMS.baseMs),
    cap: String(HERD_PARAMS.capMs),
  };
}

/**
 * The silences between the waves of the write-time histogram, for a sentence: of the buckets up to
 * the last write, how many had none, for exponential, codex-capped and full jitter.
 */
export function waveGaps(writes: HerdWriteTimes): Record<string, number> {
  const of = (name: HerdStrategy) =>
    silentBuckets(
      writes.series.find((s) => s.name === name)?.timesMs ?? [],
      writes.untilMs,
      writes.buckets,
    );
  const [expo, codex, full] = [of("exponential"), of("codex-capped"), of("full")];
  return {
    expoSilent: expo.silent,
    expoActive: expo.active,
    codexSilent: codex.silent,
    codexActive: codex.active,
    fullSilent: full.silent,
    fullActive: full.active,
  };
}

/** One strategy's run over real HTTP, as the closing table shows it. */
export interface LiveCount {
  strategy: string;
  requests: number;
  doneMs: number;
}

/**
 * What a run measured, a row per strategy: the simulator's calls and completion time at `clients`,
 * then the requests and time of the run over HTTP by `agents` agents, where that strategy ran.
 */
export function measuredTable(
  rows: readonly PointResult[],
  clients: number,
  live: readonly LiveCount[],
  agents: number,
): { header: string[]; rows: string[][] } {
  return {
    header: [
      t("strategy"),
      t("simulator, {n} clients: calls", { n: clients }),
      t("completion"),
      t("HTTP, {n} agents: requests", { n: agents }),
      t("all served after"),
    ],
    rows: HERD_STRATEGIES.map((s) => {
      const point = rows.find((r) => r.strategy === s && r.clients === clients);
      const l = live.find((r) => r.strategy === s);
      return [
        s,
        point ? formatNumber(point.calls, 1) : "–",
        point ? `${formatNumber(point.completionMs)} ms` : "–",
        l ? String(l.requests) : "–",
        l ? `${formatNumber(l.doneMs)} ms` : "–",
      ];
    }),
  };
}
