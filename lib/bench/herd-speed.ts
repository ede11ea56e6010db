/**
 * How fast the herd simulator runs the AWS original's own sweep (every strategy, N = 10..190 step
 * 10, 100 runs a point): wall time and simulated events per second.
 *
 * "Events" are the messages of the original, literal model: a client's every write attempt is one
 * read reaching the server, its reply, the write reaching the server and the write's reply, so a run
 * with C write calls is 4·C messages, exactly what `simulateOnceLiteral` processes one by one. The
 * write-only loop (`simulateOnce`) computes the same model with one heap event per write; counting
 * it by the literal model's messages puts both loops in the same unit.
 */

import { t } from "../core/i18n.ts";
import { seeded } from "../core/random.ts";
import { median } from "../core/stats.ts";
import { simulateManyParallel } from "../herd/parallel.ts";
import {
  HERD_STRATEGIES,
  ORIGINAL_CLIENTS,
  type PointResult,
  type SweepSpec,
  simulateMany,
  simulateOnceLiteral,
} from "../herd/simulator.ts";

/** Messages of the literal model per write call: read, read reply, write, write reply. */
export const MESSAGES_PER_CALL = 4;

export interface SweepSpeed {
  /** Which loop, on how many threads. */
  label: string;
  threads: number;
  /** What was simulated, e.g. "6 strategies × 19 client counts × 100 runs". */
  work: string;
  /** Wall time of each timed round, ms. */
  roundsMs: number[];
  medianMs: number;
  /**
   * CPU time of the round with the median wall time, ms, every thread of this process included:
   * the work itself. Wall time well above CPU time / threads means the cores were busy elsewhere.
   */
  cpuMs: number;
  /** Write calls simulated in one round. */
  calls: number;
  /** The literal model's messages in one round: MESSAGES_PER_CALL × calls. */
  events: number;
  /** events / median wall time, per second. */
  eventsPerSecond: number;
}

/** The original's sweep; `runs` 100 as in the original unless a shorter run asks for fewer. */
export function originalSweep(runs = 100, seed = 1): SweepSpec {
  return { strategies: HERD_STRATEGIES, clients: ORIGINAL_CLIENTS, runs, seed };
}

/** Write calls in all of a sweep's runs (the rows hold means per run). */
export function totalCalls(rows: readonly PointResult[]): number {
  return rows.reduce((sum, r) => sum + Math.round(r.calls * r.runs), 0);
}

function describe(spec: SweepSpec): string {
  return t("{strategies} strategies × {counts} client counts × {runs} runs", {
    strategies: spec.strategies.length,
    counts: spec.clients.length,
    runs: spec.runs,
  });
}

interface Timing {
  roundsMs: number[];
  medianMs: number;
  cpuMs: number;
  calls: number;
}

/** Times `round` after `warmups` untimed calls; the median of `rounds` timed ones. */
async function timeRounds(
  rounds: number,
  warmups: number,
  round: () => Promise<number> | number,
): Promise<Timing> {
  let calls = 0;
  for (let i = 0; i < warmups; i++) calls = await round();
  const timed: { ms: number; cpuMs: number }[] = [];
  for (let i = 0; i < rounds; i++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    calls = await round();
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    timed.push({ ms, cpuMs: (used.user + used.system) / 1000 });
  }
  const roundsMs = timed.map((t) => t.ms);
  const medianMs = median(roundsMs);
  // The CPU time of the median round (for an even count, of the nearer of the two middle ones).
  const middle = [...timed].sort(
    (a, b) => Math.abs(a.ms - medianMs) - Math.abs(b.ms - medianMs),
  )[0]!;
  return { roundsMs, medianMs, cpuMs: middle.cpuMs, calls };
}

function speed(label: string, threads: number, work: string, timing: Timing): SweepSpeed {
  const events = MESSAGES_PER_CALL * timing.calls;
  return {
    label,
    threads,
    work,
    ...timing,
    events,
    eventsPerSecond: (events / timing.medianMs) * 1000,
  };
}

/** The sweep on `threads` threads, as `npm run herd` runs it (worker start-up included). */
export async function timeParallelSweep(
  spec: SweepSpec,
  threads: number,
  rounds: number,
  warmups = 1,
): Promise<SweepSpeed> {
  const timing = await timeRounds(rounds, warmups, async () =>
    totalCalls(await simulateManyParallel(spec, { threads })),
  );
  return speed(t("write-only loop (npm run herd)"), threads, describe(spec), timing);
}

/** The sweep on this thread alone. */
export async function timeSerialSweep(
  spec: SweepSpec,
  rounds: number,
  warmups = 1,
): Promise<SweepSpeed> {
  const timing = await timeRounds(rounds, warmups, () => totalCalls(simulateMany(spec)));
  return speed(t("write-only loop"), 1, describe(spec), timing);
}

/**
 * The literal loop on a sample (every strategy at `clients`, `runs` runs each): the full sweep would
 * take it too long for a benchmark; events per second carry over.
 */
export async function timeLiteralSample(
  clients: number,
  runs: number,
  rounds: number,
  warmups = 1,
): Promise<SweepSpeed> {
  const timing = await timeRounds(rounds, warmups, () => {
    const random = seeded(1);
    let calls = 0;
    for (const strategy of HERD_STRATEGIES)
      for (let i = 0; i < runs; i++) calls += simulateOnceLiteral(strategy, clients, random).calls;
    return calls;
  });
  return speed(
    t("literal loop, message by message"),
    1,
    t("{strategies} strategies × N = {clients} × {runs} runs (a sample)", {
      strategies: HERD_STRATEGIES.length,
      clients,
      runs,
    }),
    timing,
  );
}
