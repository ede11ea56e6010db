/**
 * The chaos run's agents: the `same-key` clients that file the plan's operations, each agent its own in
 * their order, up to `inFlight` at a time, at the pace the system keeps up with (pace.ts). They run in
 * a thread of their own (agents-worker.ts), beside the run's thread that keeps the proxy, the processes
 * and the plan's books (run.ts): a client's attempts (a connection each, its timeout, its retries) and
 * the proxy's passing of them on are then not one event loop's work.
 *
 * The run must know an operation before its first request reaches the proxy (the proxy finds the
 * operation's faults by its key): so an agent says "open" and waits for "opened" before sending it.
 * It says "left" when its calls in the main phase are over without an answer, "done" with the outcome
 * when the operation is over, "main-phase-over" when every agent is through, and settles the
 * operations left once the run says "settle" (every fault stopped).
 */
import { type BackoffParams, fullJitterMs } from "../client/backoff.ts";
import { fileReport, isRetryable, type Outcome } from "../client/client.ts";
import { nowMs, sleep } from "../core/clock.ts";
import { type Random, seeded } from "../core/random.ts";
import { Pace } from "./pace.ts";
import { type ChaosPlanOptions, type LogicalOp, operationSeed, planOp } from "./schedule.ts";

export interface AgentsConfig {
  /** The proxy's URL. */
  url: string;
  plan: ChaosPlanOptions;
  /** The most operations each agent has in flight at once. */
  inFlight: number;
  /** How many operations in all the pace starts from (default: one per agent). */
  paceFrom?: number;
  timeoutMs: number;
  leaseMs: number;
}

/** Agents → run. */
export type FromAgents =
  | { type: "open"; index: number }
  | { type: "left"; index: number }
  | {
      type: "done";
      index: number;
      acked?: number;
      refused?: number;
      /** Its attempts in short, repeats folded; absent when one attempt got a 201. */
      log?: string;
      /** Answered only in the settle phase. */
      settled: boolean;
    }
  | { type: "main-phase-over" }
  | {
      type: "finished";
      attempts: number;
      gaveUp: number;
      /** How many operations were in flight on average in the main phase. */
      inFlightMean: number;
    };

/** Run → agents. */
export type ToAgents = { type: "opened"; index: number } | { type: "settle" };

/** How the agents talk to the run. */
export interface AgentsLink {
  tell(message: FromAgents): void;
  /** Resolves once the run has answered "opened" for this operation. */
  opened(index: number): Promise<void>;
  /** Resolves once the run says "settle". */
  settle(): Promise<void>;
}

/** Attempts in one call of the `same-key` client. */
const ATTEMPTS = 4;
/** Calls an agent makes for one operation while faults strike, before it leaves it to the settle phase. */
const MAIN_CALLS = 4;
/** Calls for one operation in the settle phase, with every fault stopped, and their attempts' timeout. */
const SETTLE_CALLS = 10;
const SETTLE_TIMEOUT_MS = 2_000;
const BACKOFF: BackoffParams = { baseMs: 20, capMs: 300 };

/** One operation as its agent follows it. */
interface Filing {
  op: LogicalOp;
  acked?: number;
  refused?: number;
  /** Every attempt's outcome, in short. */
  log: string[];
}

export async function runAgents(config: AgentsConfig, link: AgentsLink): Promise<void> {
  const { url, plan, inFlight, timeoutMs, leaseMs } = config;
  let attempts = 0;
  let gaveUp = 0;
  const pace = new Pace({
    least: plan.agents,
    most: plan.agents * inFlight,
    timeoutMs,
    ...(config.paceFrom !== undefined ? { from: config.paceFrom } : {}),
  });

  /** One call of the same-key client for an operation: "done" once the system has answered. */
  const call = async (
    f: Filing,
    attemptTimeoutMs: number,
    random: Random,
  ): Promise<"done" | "again"> => {
    const r = await fileReport({
      url,
      report: f.op.report,
      policy: "same-key",
      key: f.op.key,
      caller: f.op.caller,
      timeoutMs: attemptTimeoutMs,
      maxAttempts: ATTEMPTS,
      backoffMs: (n) => fullJitterMs(n, BACKOFF, random),
      maxRetryAfterMs: leaseMs + 100,
      random,
      // How fast the system answers an operation the plan leaves alone sets the pace (pace.ts).
      ...(unstruck(f.op) ? { onAttempt: hearPace() } : {}),
    });
    attempts += r.attempts.length;
    for (const a of r.attempts) f.log.push(short(a.outcome));
    if (r.ok) {
      f.acked = (r.final as { body: { id: number } }).body.id;
      return "done";
    }
    if (r.final.kind === "response" && !isRetryable(r.final)) {
      f.refused = r.final.status;
      return "done";
    }
    gaveUp += 1;
    return "again";
  };

  /** Calls until the system answers, at most `calls` times, with a growing pause between calls. */
  const keepCalling = async (f: Filing, calls: number, attemptTimeoutMs: number): Promise<void> => {
    // The client's own draws (jitter) come from a stream apart from the plan's.
    const random = seeded(operationSeed(plan.seed, f.op.index) ^ 0x5bd1e995);
    for (let c = 1; c <= calls; c++) {
      if ((await call(f, attemptTimeoutMs, random)) === "done") return;
      await sleep(fullJitterMs(c + 2, BACKOFF, random));
    }
  };

  /** Times each attempt from its start to its end, for the pace. */
  const hearPace = (): NonNullable<Parameters<typeof fileReport>[0]["onAttempt"]> => {
    let started = 0;
    return (event) => {
      if (event.phase === "start") {
        started = nowMs();
        return;
      }
      const o = event.attempt.outcome;
      if (o.kind === "error") return;
      const now = nowMs();
      pace.heard(o.kind === "response" ? now - started : undefined, now);
    };
  };

  const done = (f: Filing, settled: boolean): void => {
    const log = f.log.length === 1 && f.log[0] === "201" ? undefined : runs(f.log).join(", ");
    link.tell({
      type: "done",
      index: f.op.index,
      ...(f.acked !== undefined ? { acked: f.acked } : {}),
      ...(f.refused !== undefined ? { refused: f.refused } : {}),
      ...(log !== undefined ? { log } : {}),
      settled,
    });
  };

  /** Operations still unanswered when their agent moved on: the settle phase retries them. */
  const pending: Filing[] = [];
  // The main phase: each agent files its operations in their order, `inFlight` at a time (the next
  // one as soon as one is answered or left to settle), all agents at once. Nothing of the plan
  // depends on which of an agent's slots files an operation, nor on when: its faults are tied to
  // its own requests, its jitter to its own stream.
  await Promise.all(
    Array.from({ length: plan.agents }, async (_, a) => {
      // Agent a + 1 files operations a + 1, a + 1 + agents, … (planOp gives each its agent so).
      let next = a + 1;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next <= plan.ops) {
            await pace.enter(a, nowMs);
            if (next > plan.ops) {
              pace.leave(a, nowMs()); // another of the agent's slots took the last one meanwhile
              break;
            }
            const index = next;
            next += plan.agents;
            const f: Filing = { op: planOp(plan, index), log: [] };
            link.tell({ type: "open", index });
            await link.opened(index);
            await keepCalling(f, MAIN_CALLS, timeoutMs);
            pace.leave(a, nowMs());
            if (f.acked === undefined && f.refused === undefined) {
              pending.push(f);
              link.tell({ type: "left", index });
            } else done(f, false);
          }
        }),
      );
    }),
  );
  const inFlightMean = pace.mean(nowMs());

  // The settle phase, once the run has stopped every fault: each operation still unanswered is
  // retried with its key until the system answers.
  link.tell({ type: "main-phase-over" });
  await link.settle();
  await inParallel(pending, plan.agents * inFlight, async (f) => {
    await keepCalling(f, SETTLE_CALLS, Math.max(SETTLE_TIMEOUT_MS, timeoutMs));
    done(f, true);
  });
  link.tell({ type: "finished", attempts, gaveUp, inFlightMean });
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function inParallel<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** An operation none of whose requests the plan strikes. */
function unstruck(op: LogicalOp): boolean {
  return op.faults.every((f) => f === undefined);
}

function short(o: Outcome): string {
  return o.kind === "response" ? String(o.status) : o.kind === "timeout" ? "timeout" : o.code;
}

/** Repeats folded: ["timeout", "timeout", "201"] → ["timeout ×2", "201"]. */
export function runs(items: readonly string[]): string[] {
  const out: Array<{ item: string; n: number }> = [];
  for (const item of items) {
    const last = out.at(-1);
    if (last?.item === item) last.n += 1;
    else out.push({ item, n: 1 });
  }
  return out.map(({ item, n }) => (n === 1 ? item : `${item} ×${n}`));
}
