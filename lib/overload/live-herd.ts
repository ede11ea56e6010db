/**
 * A herd over real HTTP: `agents` clients start at the same instant, each wanting one POST served by
 * a busy server (lib/overload/busy-server.ts). A 503 sends the agent to sleep for its backoff
 * (lib/client/backoff.ts, slept with lib/core/clock.ts) and then it tries again, until it is served or
 * has made `maxAttempts`.
 *
 * Each agent has its own backoff object and its own seeded random source (drawn from `random` in
 * agent order before anyone starts), so an agent's waits depend only on the seed and on which of its
 * attempts failed, not on the order in which the event loop ran the agents.
 */
import { type BackoffParams, makeBackoff, type StrategyName } from "../client/backoff.ts";
import { httpCall } from "../client/client.ts";
import { retryLoop } from "../client/retry-loop.ts";
import { nowMs } from "../core/clock.ts";
import { t } from "../core/i18n.ts";
import { type Random, seeded } from "../core/random.ts";
import { type Arrival, startBusyServer } from "./busy-server.ts";

export interface LiveHerdOptions {
  strategy: StrategyName;
  agents: number;
  params: BackoffParams;
  /** How long the server works on an accepted request, ms. */
  serviceMs: number;
  random: Random;
  /** An agent gives up after this many attempts. */
  maxAttempts: number;
  /** Each attempt's timeout, ms. Default 5000 (the server answers within `serviceMs`). */
  timeoutMs?: number;
}

export interface AgentResult {
  name: string;
  attempts: number;
  served: boolean;
}

export interface LiveHerdResult {
  strategy: StrategyName;
  agents: AgentResult[];
  /** Every request the server received; `atMs` counted from the moment the agents started. */
  arrivals: Arrival[];
  /** When the last agent was served (or gave up), ms from the start. */
  doneMs: number;
}

/** Starts a busy server, lets the herd loose on it, and returns what the server saw. */
export async function runLiveHerd(options: LiveHerdOptions): Promise<LiveHerdResult> {
  const server = await startBusyServer({ serviceMs: options.serviceMs });
  try {
    const seeds = Array.from({ length: options.agents }, () =>
      Math.floor(options.random() * 2 ** 32),
    );
    const started = nowMs();
    const agents = await Promise.all(
      seeds.map(async (seed, i): Promise<AgentResult> => {
        const name = `agent-${i + 1}`;
        const backoff = makeBackoff(options.strategy, options.params, seeded(seed));
        const run = await retryLoop({
          attempt: () =>
            httpCall({
              method: "POST",
              url: `${server.url}/work`,
              body: { agent: name },
              headers: { authorization: `Bearer ${name}` },
              timeoutMs: options.timeoutMs ?? 5000,
            }),
          decide: (o, n) => {
            if (o.kind === "response" && o.status === 200)
              return { retry: false, why: t("served") };
            if (n >= options.maxAttempts) return { retry: false, why: t("out of attempts") };
            return { retry: true, delayMs: backoff.nextDelayMs(n), why: t("busy") };
          },
        });
        const served = run.final.kind === "response" && run.final.status === 200;
        return { name, attempts: run.results.length, served };
      }),
    );
    const doneMs = nowMs() - started;
    const arrivals = server.arrivals.map((a) => ({ ...a, atMs: a.atMs - started }));
    return { strategy: options.strategy, agents, arrivals, doneMs };
  } finally {
    await server.close();
  }
}

/**
 * The same herd under each strategy in turn, each from the same seed, after a first round that is
 * not counted: a fresh process spends its first milliseconds loading and compiling the HTTP code,
 * which would smear the first wave of whichever strategy ran first. `onRun` sees each run as it ends.
 */
export async function liveHerdRace(
  strategies: readonly StrategyName[],
  options: Omit<LiveHerdOptions, "strategy" | "random"> & { seed: number },
  onRun?: (row: LiveHerdRow) => void,
): Promise<{ result: LiveHerdResult; row: LiveHerdRow }[]> {
  const { seed, ...live } = options;
  await runLiveHerd({ ...live, strategy: strategies.at(-1)!, random: seeded(seed) });
  const runs: { result: LiveHerdResult; row: LiveHerdRow }[] = [];
  for (const strategy of strategies) {
    const result = await runLiveHerd({ ...live, strategy, random: seeded(seed) });
    runs.push({ result, row: liveHerdRow(result) });
    onRun?.(runs.at(-1)!.row);
  }
  return runs;
}

/**
 * For each request the server served, in order, how many others it turned away (503) while it was
 * busy with that one. The lists partition the 503s: every refusal happened during exactly one service.
 */
export function refusedPerService(arrivals: readonly Arrival[]): number[] {
  const refused = new Map<number, number>();
  for (const a of arrivals) if (a.status === 200) refused.set(a.n, 0);
  for (const a of arrivals) {
    if (a.status === 503 && a.busyWith !== undefined)
      refused.set(a.busyWith, (refused.get(a.busyWith) ?? 0) + 1);
  }
  return [...refused.values()];
}

/** One strategy's live counts, as lesson 02 compares them. */
export interface LiveHerdCounts {
  /** 503 answers: requests the busy server turned away. */
  refused: number;
  requests: number;
}

/** What one live run came to, counted from the server's arrivals and the agents' attempts. */
export interface LiveHerdRow extends LiveHerdCounts {
  strategy: StrategyName;
  /** Agents served in the end. */
  served: number;
  /** Per request served, in order: how many others it turned away (`refusedPerService`). */
  perService: number[];
  /** The most attempts one agent made. */
  maxAttempts: number;
  doneMs: number;
}

export function liveHerdRow(r: LiveHerdResult): LiveHerdRow {
  return {
    strategy: r.strategy,
    requests: r.arrivals.length,
    served: r.agents.filter((a) => a.served).length,
    refused: r.arrivals.filter((a) => a.status === 503).length,
    perService: refusedPerService(r.arrivals),
    maxAttempts: Math.max(...r.agents.map((a) => a.attempts)),
    doneMs: r.doneMs,
  };
}

/** The runs side by side: requests, 503s, the most attempts of one agent, when all were served. */
export function liveHerdTable(rows: readonly LiveHerdRow[]): {
  header: string[];
  rows: string[][];
} {
  return {
    header: [
      t("strategy"),
      t("requests"),
      t("503s"),
      t("most attempts by one agent"),
      t("all served after"),
    ],
    rows: rows.map((r) => [
      r.strategy,
      String(r.requests),
      String(r.refused),
      String(r.maxAttempts),
      `${Math.round(r.doneMs).toLocaleString("en-US")} ms`,
    ]),
  };
}

/** What a clean run under exponential backoff turns away per request served: "9 · 8 · 7 · … · 0". */
export function cleanWaves(agents: number): string {
  return `${agents - 1} · ${agents - 2} · ${agents - 3} · … · 0`;
}

/** The server's summary of a run: "full: 31 requests for 10 agents; 10 served, 21 answered 503". */
export function liveHerdLine(row: LiveHerdRow, agents: number): string {
  return t(
    "{strategy}: {requests} requests for {agents} agents; {served} served, {refused} answered 503",
    {
      strategy: row.strategy,
      requests: row.requests,
      agents,
      served: row.served,
      refused: row.refused,
    },
  );
}

/**
 * What one live run showed about full jitter against exponential backoff, in words that agree with
 * its counts. With ten agents, when the event loop delivers each request decides a lot (on a busy
 * machine timers fire late and bunched), so a run may show full jitter refused as often as, or more
 * often than, exponential; the sentence then says so and points at the simulator's averages.
 */
export function liveHerdReading(
  expo: LiveHerdCounts,
  full: LiveHerdCounts,
  simulatorRuns: number,
): string {
  const values = { full: full.refused, expo: expo.refused };
  if (full.refused < expo.refused)
    return t(
      "In this run full jitter was turned away {full} times, exponential {expo} times.",
      values,
    );
  // One line, as the message's English is wrapped in the code.
  return t(
    `This run did not show it: full jitter was turned away {full} times, exponential {expo} times.
    Ten agents are a small sample, and when the event loop delivers each request (late and bunched
    on a busy machine) weighs as much as the backoff; the simulator above, averaged over {runs} runs
    a point, is the measure to trust.`,
    { ...values, runs: simulatorRuns },
  ).replace(/\s+/g, " ");
}
