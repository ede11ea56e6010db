/**
 * Several instances of one service, as lesson 10 runs them: real tracker processes
 * (lib/tracker/child.ts), each on its own port of 127.0.0.1, behind the round-robin balancer of
 * balancer.ts. The instances keep their reports and keys either each in its own SQLite file (the
 * mistake) or all in one schema of a shared PostgreSQL. Every event an instance tells is printed with
 * its instance number (`[instance 2] #1 …`) and kept in `events`, so that a lesson can say what
 * happened from what the instances said, not from what it expected them to say.
 *
 * Also here: the agent's one logical call through the balancer (one key, reused on every attempt),
 * and readings of the events (who claimed a key with which fence, who filed which report).
 */

import { type Attempt, type FileReportOptions, fileReport } from "../client/client.ts";
import { agentLogAfter } from "../client/narrate.ts";
import type { Trace } from "../core/trace.ts";
import { type ChildTracker, startChildTracker } from "../tracker/child.ts";
import type { FaultName } from "../tracker/faults.ts";
import type { TrackerEvent } from "../tracker/narrate.ts";
import type { VariantName } from "../tracker/variant.ts";
import { type Balancer, startBalancer } from "./balancer.ts";

/** Where the instances keep reports and keys: each its own SQLite file, or one shared PostgreSQL schema. */
export type ClusterStore =
  | { kind: "own-files"; file: (instance: number) => string }
  | { kind: "postgres"; url: string };

export interface ClusterOptions {
  trace: Trace;
  store: ClusterStore;
  variant?: Extract<VariantName, "keyed" | "fenced">;
  /** How many instances (default 3). */
  size?: number;
  /** Faults by instance (1-based), then by that instance's request number. */
  faults?: Record<number, Record<number, FaultName>>;
  leaseMs?: number;
  /** A clock the lesson moves (ms), the same on every instance; absent: the real clock. */
  clockMs?: number;
}

/** One event an instance told, with the instance's number (1-based). */
export interface InstanceEvent extends TrackerEvent {
  instance: number;
}

export interface Cluster {
  balancer: Balancer;
  instances: ChildTracker[];
  /** Every event the instances told, in the order the parent heard them. */
  events: InstanceEvent[];
  /** Resolves once every event each instance wrote so far has arrived. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const COUNT_WORDS = ["no", "one", "two", "three", "four", "five"];

/** Starts the instances and the balancer in front of them. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { store, trace } = options;
  const variant = options.variant ?? "keyed";
  const numbers = Array.from({ length: options.size ?? 3 }, (_, i) => i + 1);
  const events: InstanceEvent[] = [];
  const instances = await Promise.all(
    numbers.map((i) =>
      startChildTracker({
        variant,
        ...(store.kind === "postgres" ? { postgres: store.url } : { db: store.file(i) }),
        faults: options.faults?.[i] ?? {},
        ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
        ...(options.clockMs !== undefined ? { clockMs: options.clockMs } : {}),
        onEvent: (e) => {
          events.push({ ...e, instance: i });
          trace.event(e.actor, `[instance ${i}] #${e.requestNo} ${e.text}`, e.mark);
        },
      }),
    ),
  );
  const balancer = await startBalancer({
    upstreams: instances.map((t) => t.url),
    onRoute: (r) =>
      trace.event("network", `balancer: ${r.method} ${r.path} → instance ${r.instance}`),
  });
  const n = COUNT_WORDS[numbers.length] ?? String(numbers.length);
  const where =
    store.kind === "postgres"
      ? `all ${n} over one schema of the shared PostgreSQL`
      : "each over its own SQLite file";
  trace.event(
    "lesson",
    `${n} tracker processes (${variant}), ${where}, each on its own port, behind the balancer`,
  );
  return {
    balancer,
    instances,
    events,
    flush: async () => {
      await Promise.all(instances.map((t) => t.flush()));
    },
    close: async () => {
      await balancer.close();
      await Promise.all(instances.map((t) => t.close()));
    },
  };
}

export interface AgentCallOptions {
  trace: Trace;
  report: FileReportOptions["report"];
  timeoutMs: number;
  random: FileReportOptions["random"];
  maxAttempts: number;
  /** Runs before each retry, once the last attempt's events are printed (a lesson moves its clock here). */
  beforeRetry?: (last: Attempt, waitedMs: number) => Promise<void>;
}

/** The agent's one logical call through the balancer: one key, reused on every attempt. */
export async function agentCall(cluster: Cluster, options: AgentCallOptions): Promise<Attempt[]> {
  const agent = agentLogAfter(options.trace, cluster.flush);
  const result = await fileReport({
    url: cluster.balancer.url,
    report: options.report,
    policy: "same-key",
    maxAttempts: options.maxAttempts,
    timeoutMs: options.timeoutMs,
    random: options.random,
    onAttempt: agent.onAttempt,
    beforeRetry: async (_retry, last, waitedMs) => {
      await agent.settled();
      await options.beforeRetry?.(last, waitedMs);
    },
  });
  await agent.settled();
  return result.attempts;
}

/** What one attempt got, short: "timeout", "409", "201 replayed". */
export const outcomeText = (a: Attempt): string =>
  a.outcome.kind === "response"
    ? `${a.outcome.status}${a.outcome.headers["idempotent-replayed"] === "true" ? " replayed" : ""}`
    : a.outcome.kind;

/** A claim of a key, as an instance told it: a new claim, or a take-over of a claim whose lease ran out. */
export interface ClaimSeen {
  instance: number;
  requestNo: number;
  fence: number;
  /** The fence of the claim it took over (absent: a new claim). */
  takenFrom?: number;
}

/** The claims in `events`, in order (the PostgreSQL store's "claimed as in_progress, fence N" and "TAKEN OVER …, fence N (was M)"). */
export function claimsIn(events: readonly InstanceEvent[]): ClaimSeen[] {
  const claims: ClaimSeen[] = [];
  for (const e of events) {
    const over = /TAKEN OVER \(lease ran out\), fence (\d+) \(was (\d+)\)/.exec(e.text);
    const fresh = /claimed as in_progress, fence (\d+)/.exec(e.text);
    if (over)
      claims.push({
        instance: e.instance,
        requestNo: e.requestNo,
        fence: Number(over[1]),
        takenFrom: Number(over[2]),
      });
    else if (fresh)
      claims.push({ instance: e.instance, requestNo: e.requestNo, fence: Number(fresh[1]) });
  }
  return claims;
}

/** A report an instance inserted: kept (its transaction committed) or undone (rolled back). */
export interface FilingSeen {
  instance: number;
  requestNo: number;
  report: number;
  committed: boolean;
}

/** The reports the instances inserted, in order, and whether each transaction committed. */
export function filingsIn(events: readonly InstanceEvent[]): FilingSeen[] {
  const filings: FilingSeen[] = [];
  for (const e of events) {
    if (e.actor !== "database") continue;
    const m = /INSERT report (\d+)\b.*· (COMMIT|ROLLBACK)/.exec(e.text);
    if (m)
      filings.push({
        instance: e.instance,
        requestNo: e.requestNo,
        report: Number(m[1]),
        committed: m[2] === "COMMIT",
      });
  }
  return filings;
}

/** The instances (in order, each once) whose requests found the key held by a claim still running (their 409s). */
export function heldKeyMetBy(events: readonly InstanceEvent[]): number[] {
  return [
    ...new Set(
      events.filter((e) => /\bis in progress \(lease ends in/.test(e.text)).map((e) => e.instance),
    ),
  ];
}

/** The instances (in order, each once) that answered from a key completed before (a replay). */
export function replayedBy(events: readonly InstanceEvent[]): number[] {
  return [
    ...new Set(
      events
        .filter((e) => /completed before: replaying the stored/.test(e.text))
        .map((e) => e.instance),
    ),
  ];
}

/** The instances (in order, each once) whose answer was lost on the way back (the lose-response fault). */
export function lostAnswersOf(events: readonly InstanceEvent[]): number[] {
  return [
    ...new Set(events.filter((e) => /lost on the way back/.test(e.text)).map((e) => e.instance)),
  ];
}

/** "1", "1 and 2", "1, 2 and 3". */
export function andList(items: readonly (string | number)[]): string {
  const s = items.map(String);
  return s.length <= 1 ? (s[0] ?? "") : `${s.slice(0, -1).join(", ")} and ${s.at(-1)}`;
}
