/**
 * The chaos run's plan, a pure function of the seed: the logical operations (who files which report,
 * under which Idempotency-Key) and the faults that strike them. A fault is tied to an operation and
 * to the order in which that operation's requests reach the service ("op 17's first request loses
 * its response"), never to a time or to a server's request number, so the same seed always plans the
 * same run, however the machine schedules it.
 *
 * Each operation draws from its own stream (seeded from the run's seed and its number), so that
 * `--ops 100` plans exactly the first 100 operations of `--ops 1000`.
 */
import { createHash } from "node:crypto";
import type { ReportToFile } from "../client/client.ts";
import { t } from "../core/i18n.ts";
import { type Random, seeded, uuid } from "../core/random.ts";
import type { FaultName } from "../tracker/faults.ts";

/**
 * What the run can do to one request (fixed names). All but `kill` are the tracker's own faults, set
 * on the request in the process that serves it; `kill` is the run killing that process (SIGKILL) as
 * soon as the request has arrived there, whatever it and its neighbours are doing at that moment.
 */
export const CHAOS_FAULTS = [
  "lose-response",
  "drop-request",
  "slow",
  "pause-past-lease",
  "crash-after-claim",
  "crash-between-commits",
  "kill",
] as const satisfies readonly (FaultName | "kill")[];
export type ChaosFault = (typeof CHAOS_FAULTS)[number];

export const CHAOS_FAULT_HELP: Record<ChaosFault, string> = {
  "lose-response": t("the work is committed, the answer never leaves"),
  "drop-request": t("the request is swallowed before any handler runs"),
  slow: t("the handler stalls until the client has given up on that attempt"),
  "pause-past-lease": t(
    "the handler stalls after its claim until another request answered its operation",
  ),
  "crash-after-claim": t("the serving process kills itself (SIGKILL) after claiming the key"),
  "crash-between-commits": t("the serving process kills itself (SIGKILL) after its first commit"),
  kill: t("the run kills the serving process (SIGKILL) once the request has arrived"),
};

export function isChaosFault(s: string): s is ChaosFault {
  return (CHAOS_FAULTS as readonly string[]).includes(s);
}

/** How often each fault is drawn, relative to the others. */
const WEIGHTS: Record<ChaosFault, number> = {
  "lose-response": 4,
  "drop-request": 2,
  slow: 3,
  "pause-past-lease": 3,
  "crash-after-claim": 0.3,
  "crash-between-commits": 0.3,
  kill: 0.3,
};

/** Faults strike an operation's first two requests only, the second less often: every operation can get through. */
export const FAULTED_ARRIVALS = 2;
const SECOND_ARRIVAL_SHARE = 0.4;

/** One logical operation: one report an agent means to file exactly once. */
export interface LogicalOp {
  /** 1, 2, … */
  index: number;
  /** The agent that files it (1, 2, …); each agent files its operations one after another. */
  agent: number;
  /** The agent's name, sent as `Authorization: Bearer <caller>`: keys are scoped to it. */
  caller: string;
  /** Its Idempotency-Key, the same on every attempt. */
  key: string;
  /** What it files; the title is unique to the operation, so the database tells its reports apart. */
  report: ReportToFile;
  /** The fault for its 1st, 2nd, … request to reach the service (undefined: none). */
  faults: (ChaosFault | undefined)[];
}

export interface ChaosPlanOptions {
  seed: number;
  ops: number;
  agents: number;
  /** The faults that may be drawn (default: all). */
  faults?: readonly ChaosFault[];
  /** The chance that an operation's first request meets a fault, 0…1 (default 0.25). */
  rate?: number;
}

export interface ChaosPlan {
  seed: number;
  ops: LogicalOp[];
  /** A short hash of everything planned: the same seed and flags give the same digest. */
  digest: string;
  /** How many faults of each kind are planned. */
  planned: Record<ChaosFault, number>;
  /**
   * How many are planned for operations' first requests, and for their second ones: a fault planned
   * for a second request strikes only if the operation sends one (its first got no final answer).
   */
  plannedByArrival: number[];
}

export const DEFAULT_FAULT_RATE = 0.25;

export function planChaos(options: ChaosPlanOptions): ChaosPlan {
  const ops: LogicalOp[] = [];
  const walked = walkPlan(options, (op) => ops.push(op));
  return { seed: options.seed, ops, ...walked };
}

/** The plan's digest and counts without keeping its operations (a long run makes each when it needs it). */
export function planSummary(options: ChaosPlanOptions): Omit<ChaosPlan, "ops"> {
  return { seed: options.seed, ...walkPlan(options, () => {}) };
}

/** Operation `index` of the plan, made alone: the same as planChaos(options).ops[index - 1]. */
export function planOp(options: ChaosPlanOptions, index: number): LogicalOp {
  const kinds = options.faults ?? CHAOS_FAULTS;
  const rate = options.rate ?? DEFAULT_FAULT_RATE;
  const random = seeded(operationSeed(options.seed, index));
  const agent = ((index - 1) % options.agents) + 1;
  const key = uuid(random);
  const faults: (ChaosFault | undefined)[] = [];
  for (let arrival = 1; arrival <= FAULTED_ARRIVALS; arrival++) {
    // Two draws per arrival whatever the outcome, so one fault's presence never shifts the next.
    const strikes = random() < (arrival === 1 ? rate : rate * SECOND_ARRIVAL_SHARE);
    const kind = pick(kinds, random());
    faults.push(strikes ? kind : undefined);
  }
  return {
    index,
    agent,
    caller: `agent-${agent}`,
    key,
    report: reportFor(options.seed, index, agent, random),
    faults,
  };
}

function walkPlan(
  options: ChaosPlanOptions,
  each: (op: LogicalOp) => void,
): { digest: string; planned: Record<ChaosFault, number>; plannedByArrival: number[] } {
  const planned = Object.fromEntries(CHAOS_FAULTS.map((f) => [f, 0])) as Record<ChaosFault, number>;
  const plannedByArrival = new Array<number>(FAULTED_ARRIVALS).fill(0);
  // The hash of JSON.stringify(ops), fed one operation at a time: no string of the whole plan.
  const hash = createHash("sha256").update("[");
  for (let index = 1; index <= options.ops; index++) {
    const op = planOp(options, index);
    op.faults.forEach((fault, i) => {
      if (!fault) return;
      planned[fault] += 1;
      plannedByArrival[i]! += 1;
    });
    hash.update(index === 1 ? JSON.stringify(op) : `,${JSON.stringify(op)}`);
    each(op);
  }
  return { digest: hash.update("]").digest("hex").slice(0, 12), planned, plannedByArrival };
}

export function operationSeed(seed: number, index: number): number {
  let h = (Math.imul(index, 0x9e3779b9) ^ (seed >>> 0) ^ Math.floor(seed / 0x100000000)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

function pick(kinds: readonly ChaosFault[], draw: number): ChaosFault {
  const total = kinds.reduce((sum, k) => sum + WEIGHTS[k], 0);
  let at = draw * total;
  for (const k of kinds) {
    at -= WEIGHTS[k];
    if (at < 0) return k;
  }
  return kinds[kinds.length - 1]!;
}

const THINGS = [
  "Login button",
  "Save dialog",
  "Search box",
  "Export to CSV",
  "Dark mode toggle",
  "Upload form",
  "Settings page",
  "Undo",
  "Password reset",
  "Date picker",
];
const FAILURES = [
  "does nothing",
  "crashes the tab",
  "shows a blank page",
  "hangs for a minute",
  "loses the last edit",
  "throws a 500",
  "ignores the first click",
  "renders twice",
];
const MODULES = ["auth", "editor", "search", "export", "ui", "files", "settings"];

function reportFor(seed: number, index: number, agent: number, random: Random): ReportToFile {
  const thing = THINGS[Math.floor(random() * THINGS.length)]!;
  const failure = FAILURES[Math.floor(random() * FAILURES.length)]!;
  return {
    title: `${thing} ${failure} (chaos op ${index})`,
    body: `Found by agent-${agent} while testing, seed ${seed}.`,
    module: MODULES[Math.floor(random() * MODULES.length)]!,
    run: `chaos-${seed}`,
  };
}
