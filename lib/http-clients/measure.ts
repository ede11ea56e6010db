/**
 * Real HTTP client libraries against a faulty server (lesson 09). This module measures one library:
 * each case is one logical call through the library's probe, against a fresh run of the faulty
 * server with its own script; the server's log of that run is the observation. The cases of one
 * library run concurrently (they do not share a run), then the Retry-After cases, whose value is
 * chosen from what the first cases showed.
 *
 * The lesson stops a call only when it has seen enough: at `ATTEMPT_CAP` attempts (a client that
 * would retry for ever), or when a client is still waiting out a long Retry-After after a window.
 * Stopping is an AbortSignal the library is given; it never shortens a wait that is measured.
 */
import { after } from "../core/clock.ts";
import { type Random, uuid } from "../core/random.ts";
import { gapsByRetry, jitter, type Observation, retryAfterSecondsFor } from "./analysis.ts";
import { type Probe, packageVersion } from "./probe.ts";
import type { Fault, FaultyServer, Run, Script } from "./server.ts";

/** A client still retrying at this many attempts is stopped and shown as "≥12". */
export const ATTEMPT_CAP = 12;
/** The client's own timeout in the hang cases, set through its own option: the server never answers. */
export const HANG_TIMEOUT_MS = 300;
/** How many times the plain 503 case runs, to see whether the gaps vary (jitter). */
export const JITTER_RUNS = 7;
/** The long Retry-After: an hour. Nobody waits for it; the question is what the client does. */
export const LONG_RETRY_AFTER_S = 3600;
/** A call that has not ended after this long is stopped (a safety net: no case should need it). */
export const BUDGET_MS = 20_000;

/** The bug report every POST carries. */
export const REPORT = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' on /login has no effect.",
  module: "auth",
};

export const BASE_CASES = [
  "get-503",
  "post-503",
  "get-429",
  "get-reset",
  "post-reset",
  "post-reset-keyed",
  "get-hang",
  "post-hang",
] as const;
export type BaseCase = (typeof BASE_CASES)[number];

export interface CaseSpec {
  method: "GET" | "POST";
  script: Script;
  headers?: Record<string, string>;
  /** The client's own timeout (hang cases only). */
  timeoutMs?: number;
  /** After the first attempt ends, how long the client may take to send the second before it is stopped. */
  windowMs?: number;
}

const always =
  (fault: Fault): Script =>
  () =>
    fault;
const onceThenOk =
  (fault: Fault): Script =>
  (n) =>
    n === 1 ? fault : { kind: "ok" };

/** The cases every library goes through, with what the server does on every attempt. */
export function baseCase(id: BaseCase, key: string): CaseSpec {
  switch (id) {
    case "get-503":
      return { method: "GET", script: always({ kind: "status", status: 503 }) };
    case "post-503":
      return { method: "POST", script: always({ kind: "status", status: 503 }) };
    case "get-429":
      return { method: "GET", script: always({ kind: "status", status: 429 }) };
    case "get-reset":
      return { method: "GET", script: always({ kind: "reset" }) };
    case "post-reset":
      return { method: "POST", script: always({ kind: "reset" }) };
    case "post-reset-keyed":
      return {
        method: "POST",
        script: always({ kind: "reset" }),
        headers: { "Idempotency-Key": `"${key}"` },
      };
    case "get-hang":
      return { method: "GET", script: always({ kind: "hang" }), timeoutMs: HANG_TIMEOUT_MS };
    case "post-hang":
      return { method: "POST", script: always({ kind: "hang" }), timeoutMs: HANG_TIMEOUT_MS };
  }
}

/**
 * The three Retry-After cases: a 503 asking for `seconds`, for an HTTP-date at least `seconds`
 * ahead (whole seconds, so up to a second more), and for an hour; then 200. A client still waiting
 * after `windowMs` (one second more for the date) is stopped.
 */
export function retryAfterCases(
  seconds: number,
  windowMs: number,
): { delay: CaseSpec; date: CaseSpec; long: CaseSpec } {
  const ra = (retryAfter: { seconds: number } | { dateSecondsAhead: number }): Script =>
    onceThenOk({ kind: "status", status: 503, retryAfter });
  return {
    delay: { method: "GET", script: ra({ seconds }), windowMs },
    date: { method: "GET", script: ra({ dateSecondsAhead: seconds }), windowMs: windowMs + 1000 },
    long: { method: "GET", script: ra({ seconds: LONG_RETRY_AFTER_S }), windowMs },
  };
}

/**
 * Runs one logical call of `probe` against a fresh run scripted by `spec`, and returns what the
 * server saw. `onRun` gets the run as soon as it is open, for callers that wait on its gates.
 */
export async function observe(
  server: FaultyServer,
  probe: Probe,
  spec: CaseSpec,
  onRun?: (run: Run) => void,
): Promise<Observation> {
  const run = server.open(spec.script);
  onRun?.(run);
  const controller = new AbortController();
  let stopped: Observation["stopped"];
  let settled = false;
  const stop = (why: NonNullable<Observation["stopped"]>): void => {
    if (settled || stopped) return;
    stopped = why;
    controller.abort(new Error(`stopped by the lesson (${why})`));
  };
  run.onArrival((a) => {
    if (a.n >= ATTEMPT_CAP) stop("cap");
  });
  const cancels: (() => void)[] = [after(BUDGET_MS, () => stop("budget"))];
  if (spec.windowMs !== undefined) {
    const windowMs = spec.windowMs;
    void run.ended(1).then(() => {
      if (!settled) cancels.push(after(windowMs, () => run.log.length < 2 && stop("window")));
    });
  }
  let outcome: Observation["outcome"];
  try {
    await probe.send({
      base: run.url,
      path: "/reports",
      method: spec.method,
      signal: controller.signal,
      ...(spec.method === "POST" ? { body: REPORT } : {}),
      ...(spec.headers ? { headers: spec.headers } : {}),
      ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
    });
    outcome = { ok: true };
  } catch (err) {
    outcome = { ok: false, error: err instanceof Error ? err.message : String(err) };
  } finally {
    settled = true;
    for (const cancel of cancels) cancel();
  }
  return { log: [...run.log], outcome, ...(stopped ? { stopped } : {}) };
}

export interface ProbeReport {
  probe: Probe;
  /** e.g. "axios 1.21.1 + axios-retry 4.5.0", or "Node 26.10.0" for fetch. */
  versions: string;
  cases: Record<BaseCase, Observation>;
  /** JITTER_RUNS runs of get-503, run while no other library was busy (the first is cases["get-503"]). */
  repeats: Observation[];
  retryAfter: {
    seconds: number;
    windowMs: number;
    delay: Observation;
    date: Observation;
    long: Observation;
  };
}

export function versionsOf(probe: Probe): string {
  if (probe.packages.length === 0) return `Node ${process.versions.node}`;
  return probe.packages.map((p) => `${p} ${packageVersion(p)}`).join(" + ");
}

/**
 * One successful GET through every probe, before anything is measured: the first call of a library
 * loads and compiles code, and in this one process that would delay every other client's timers.
 */
export async function warmUp(server: FaultyServer, probes: readonly Probe[]): Promise<void> {
  await Promise.all(
    probes.map((p) => observe(server, p, { method: "GET", script: always({ kind: "ok" }) })),
  );
}

/** JITTER_RUNS concurrent runs of the plain GET 503 case. */
export function measureRepeats(server: FaultyServer, probe: Probe): Promise<Observation[]> {
  return Promise.all(
    Array.from({ length: JITTER_RUNS }, () => observe(server, probe, baseCase("get-503", ""))),
  );
}

/** Whether a try of the repeated runs shows jitter. */
function showsJitter(runs: readonly Observation[]): boolean {
  return jitter(runs.map((o) => o.log))?.jitters ?? false;
}

/**
 * Phase 2 for one library: every other case, and the Retry-After cases, given phase 1's runs.
 * `firstAttempts` resolves once the first attempt of every case has reached the server.
 */
export function startRest(
  server: FaultyServer,
  probe: Probe,
  repeats: Observation[],
  random: Random,
): { firstAttempts: Promise<void>; report: Promise<ProbeReport> } {
  const key = uuid(random);
  // Retry-After: 1 s tells "honoured" from "ignored" only when the client's own first backoff is
  // clearly shorter; for a client whose own first wait is about a second, ask for more.
  const firstGaps = gapsByRetry(repeats.map((o) => o.log))[0];
  const seconds = retryAfterSecondsFor(firstGaps ? Math.max(...firstGaps) : undefined);
  const windowMs = seconds * 1000 + 1000;
  const ra = retryAfterCases(seconds, windowMs);
  const others = BASE_CASES.filter((id) => id !== "get-503");
  const arrivals: Promise<unknown>[] = [];
  const start = (spec: CaseSpec): Promise<Observation> => {
    let run: Run | undefined;
    const o = observe(server, probe, spec, (r) => (run = r));
    arrivals.push(Promise.race([run!.arrived(1), o]));
    return o;
  };
  const results = others.map((id) => start(baseCase(id, key)));
  const [delay, date, long] = [start(ra.delay), start(ra.date), start(ra.long)];
  const report = (async (): Promise<ProbeReport> => {
    const observed = await Promise.all(results);
    const cases = { "get-503": repeats[0]! } as Record<BaseCase, Observation>;
    for (const [i, id] of others.entries()) cases[id] = observed[i]!;
    return {
      probe,
      versions: versionsOf(probe),
      cases,
      repeats,
      retryAfter: { seconds, windowMs, delay: await delay, date: await date, long: await long },
    };
  })();
  return { firstAttempts: Promise.all(arrivals).then(() => {}), report };
}

/**
 * Every case for every library.
 *
 * Phase 1 (the repeated GET 503 runs that show the gaps and the jitter) goes one library at a time:
 * in this one process, one library's busy moments delay another's timers by tens of milliseconds,
 * as much as the jitter it looks for. Other programs on the machine can still make a group of
 * timers late, so every library whose first try shows jitter gets a second try (these run
 * together), and jitter is reported only when both tries show it; the quieter try is kept.
 * Phase 2 (attempt counts, Retry-After, keys) is not that sensitive and runs for all libraries at
 * once; each library starts once the previous one's first requests have reached the server, so
 * that a short client timeout never expires on a request still queued behind a hundred others.
 * `random` draws the Idempotency-Keys of the keyed case.
 */
export async function measureAll(
  server: FaultyServer,
  probes: readonly Probe[],
  random: Random,
  onPhase?: (phase: "warm-up" | "repeats" | "confirm" | "rest", probes: readonly Probe[]) => void,
): Promise<ProbeReport[]> {
  onPhase?.("warm-up", probes);
  await warmUp(server, probes);
  const phase1: Observation[][] = [];
  for (const probe of probes) {
    onPhase?.("repeats", [probe]);
    phase1.push(await measureRepeats(server, probe));
  }
  const toConfirm = probes.map((_, i) => i).filter((i) => showsJitter(phase1[i]!));
  if (toConfirm.length > 0) {
    onPhase?.(
      "confirm",
      toConfirm.map((i) => probes[i]!),
    );
    const seconds = await Promise.all(toConfirm.map((i) => measureRepeats(server, probes[i]!)));
    toConfirm.forEach((i, k) => {
      if (!showsJitter(seconds[k]!)) phase1[i] = seconds[k]!;
    });
  }
  onPhase?.("rest", probes);
  const reports: Promise<ProbeReport>[] = [];
  for (const [i, probe] of probes.entries()) {
    const { firstAttempts, report } = startRest(server, probe, phase1[i]!, random);
    reports.push(report);
    await firstAttempts;
  }
  return Promise.all(reports);
}
