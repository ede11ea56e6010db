/**
 * Several instances of one service, as lesson 10 runs them: real tracker processes
 * (lib/tracker/child.ts), each on its own port of 127.0.0.1, behind the round-robin balancer of
 * balancer.ts. The instances keep their reports and keys either each in its own SQLite file (the
 * mistake) or all in one schema of a shared PostgreSQL. Every event an instance tells is printed with
 * its instance number (`[instance 2] #1 …`) and kept in `events`, so that a lesson can say what
 * happened from what the instances said, not from what it expected them to say.
 *
 * Also here: the agent's one logical call through the balancer (one key, reused on every attempt).
 * What a lesson says of a run is read from it in instance-story.ts.
 */

import { type Attempt, type FileReportOptions, fileReport } from "../client/client.ts";
import { agentLogAfter } from "../client/narrate.ts";
import { sleep } from "../core/clock.ts";
import { t } from "../core/i18n.ts";
import type { Trace } from "../core/trace.ts";
import { type ChildTracker, startChildTracker } from "../tracker/child.ts";
import type { FaultName } from "../tracker/faults.ts";
import type { TrackerEvent } from "../tracker/narrate.ts";
import { type PacedClock, pacedClock } from "../tracker/paced-clock.ts";
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
  /**
   * One clock for every instance, moved only by what the agent waited (lib/tracker/paced-clock.ts),
   * so that a lease runs out when the story says, on every machine alike; absent: the real clock.
   */
  paced?: boolean;
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
  /** The instance (1-based) each request through the balancer went to, in order. */
  routes: number[];
  /** The instances' shared clock, when started `paced`. */
  clock?: PacedClock;
  /**
   * Wakes instance `instance`'s request `requestNo`, held at its pause, and waits until it has
   * answered and told everything.
   */
  wake(instance: number, requestNo: number): Promise<void>;
  /** Resolves once every event each instance wrote so far has arrived. */
  flush(): Promise<void>;
  /**
   * Resolves `afterMs` after an instance tells, from now on, that a request will get no answer (it
   * was dropped, its answer lost, or its handler stalls): the gate that ends an agent's attempt in
   * place of a timer racing a busy machine (HttpCall.giveUp). Never resolves otherwise.
   */
  noAnswerFromNow(afterMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the instances and the balancer in front of them. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { store, trace } = options;
  const variant = options.variant ?? "keyed";
  const numbers = Array.from({ length: options.size ?? 3 }, (_, i) => i + 1);
  const events: InstanceEvent[] = [];
  const routes: number[] = [];
  /** Who waits for the next event that says a request gets no answer (noAnswerFromNow). */
  let silenceWaiters: (() => void)[] = [];
  const clock = options.paced ? pacedClock() : undefined;
  const instances = await Promise.all(
    numbers.map((i) =>
      startChildTracker({
        variant,
        ...(store.kind === "postgres" ? { postgres: store.url } : { db: store.file(i) }),
        faults: options.faults?.[i] ?? {},
        ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
        ...(clock ? { clockMs: clock.now() } : {}),
        onEvent: (e) => {
          events.push({ ...e, instance: i });
          if (e.what === "dropped" || e.what === "lost" || e.what === "stall") {
            const waiting = silenceWaiters;
            silenceWaiters = [];
            for (const wake of waiting) wake();
          }
          trace.event(
            e.actor,
            t("[instance {instance}] #{requestNo} {text}", {
              instance: i,
              requestNo: e.requestNo,
              text: e.text,
            }),
            e.mark,
          );
        },
      }),
    ),
  );
  const balancer = await startBalancer({
    upstreams: instances.map((t) => t.url),
    onRoute: (r) => {
      routes.push(r.instance);
      trace.event(
        "network",
        t("balancer: {method} {path} → instance {instance}", {
          method: r.method,
          path: r.path,
          instance: r.instance,
        }),
      );
    },
  });
  const values = { count: numbers.length, variant };
  trace.event(
    "lesson",
    store.kind === "postgres"
      ? t(
          "{count, plural, =2 {two} =3 {three} other {#}} tracker processes ({variant}), all {count, plural, =2 {two} =3 {three} other {#}} over one schema of the shared PostgreSQL, each on its own port, behind the balancer",
          values,
        )
      : t(
          "{count, plural, =2 {two} =3 {three} other {#}} tracker processes ({variant}), each over its own SQLite file, each on its own port, behind the balancer",
          values,
        ),
  );
  const flush = async (): Promise<void> => {
    await Promise.all(instances.map((t) => t.flush()));
  };
  return {
    balancer,
    instances,
    events,
    routes,
    ...(clock ? { clock } : {}),
    flush,
    noAnswerFromNow: (afterMs) =>
      new Promise<void>((resolve) => silenceWaiters.push(resolve)).then(() => sleep(afterMs)),
    wake: async (instance, requestNo) => {
      const held = instances[instance - 1]!;
      trace.event(
        "lesson",
        t("instance {instance} wakes from its pause and carries on where it stopped", { instance }),
        "warn",
      );
      await held.release(requestNo);
      await held.reached(requestNo, "handled");
      await flush();
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
}

/** What a call through the cluster left: the agent's attempts, the balancer's routes, the events. */
export interface ClusterRun {
  attempts: readonly Attempt[];
  /** The instance each request through the balancer went to, in order (attempt n: routes[n - 1]). */
  routes: readonly number[];
  /** What the instances told (the cluster's own list: events told later are in it too). */
  events: readonly InstanceEvent[];
}

/**
 * The agent's one logical call through the balancer: one key, reused on every attempt. On a paced
 * cluster, every instance's clock moves before each retry by what the agent waited.
 */
export async function agentCall(cluster: Cluster, options: AgentCallOptions): Promise<ClusterRun> {
  const agent = agentLogAfter(options.trace, cluster.flush);
  const result = await fileReport({
    url: cluster.balancer.url,
    report: options.report,
    policy: "same-key",
    maxAttempts: options.maxAttempts,
    timeoutMs: options.timeoutMs,
    // An attempt ends timeoutMs after an instance says that its request gets no answer, never on a
    // timer alone: on a busy machine an answer may take longer than the timeout, and it is awaited.
    giveUp: () => cluster.noAnswerFromNow(options.timeoutMs),
    random: options.random,
    onAttempt: agent.onAttempt,
    beforeRetry: async (_retry, last, waitedMs) => {
      await agent.settled();
      const clock = cluster.clock;
      if (clock === undefined) return;
      const before = clock.now();
      const now = clock.advance(last, waitedMs);
      await Promise.all(cluster.instances.map((t) => t.setClock(now)));
      if (now !== before)
        options.trace.event(
          "lesson",
          t("every instance's clock: {before} → {now} ms (what the agent waited)", { before, now }),
        );
    },
  });
  await agent.settled();
  return { attempts: result.attempts, routes: cluster.routes, events: cluster.events };
}

/** What one attempt got, short: "timeout", "409", "201 replayed". */
export function outcomeText(a: Attempt): string {
  const o = a.outcome;
  if (o.kind === "timeout") return t("timeout");
  if (o.kind === "error") return t("connection error ({code})", { code: o.code });
  return o.headers["idempotent-replayed"] === "true"
    ? t("{status} replayed", { status: o.status })
    : String(o.status);
}
