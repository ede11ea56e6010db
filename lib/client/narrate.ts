/**
 * The agent's side of a lesson's trace: each attempt of its call, as it leaves and as it ends, in the
 * trace's words (the tracker tells its own side: lib/tracker/narrate.ts); and the retry layers' own
 * (an SDK's requests and waits, Codex's two layers).
 */

import type { Trace } from "../core/trace.ts";
import { type Attempt, describeOutcome, type FileReportOptions, type Outcome } from "./client.ts";
import type { CodexCallOptions } from "./codex-retry.ts";
import type { Verdict } from "./retry-loop.ts";

/** Prints each attempt of the agent's call as it starts and ends. */
export function agentLog(
  trace: Trace,
  what = "POST /reports",
): NonNullable<FileReportOptions["onAttempt"]> {
  return (e) => {
    if (e.phase === "start") trace.event("agent", attemptStartText(e.n, e.key, what));
    else trace.event("agent", attemptEndText(e.attempt), attemptOk(e.attempt) ? "ok" : "bad");
  };
}

/** The trace's words for an attempt as it leaves: "attempt 2 → POST /reports (Idempotency-Key 1f0c…)". */
export function attemptStartText(
  n: number,
  key: string | undefined,
  what = "POST /reports",
): string {
  return `attempt ${n} → ${what}${key ? ` (Idempotency-Key ${key.slice(0, 8)}…)` : ""}`;
}

/** The trace's words for an attempt's outcome: "attempt 1 ← no response within 150 ms (timeout)". */
export function attemptEndText(attempt: Attempt): string {
  return `attempt ${attempt.n} ← ${describeOutcome(attempt.outcome)}`;
}

/** A 2xx answer (the trace marks it green). */
export function attemptOk(attempt: Attempt): boolean {
  return attempt.outcome.kind === "response" && attempt.outcome.status < 300;
}

/**
 * agentLog for a tracker in another process, whose events arrive through a pipe and may trail the
 * answer the agent already has: each attempt's end is printed once `flush()` has delivered every
 * event the process wrote before it answered, so the trace keeps the order things happened in.
 * Await `settled()` before the next attempt starts and before printing anything after the call.
 */
export function agentLogAfter(
  trace: Trace,
  flush: () => Promise<void>,
): { onAttempt: NonNullable<FileReportOptions["onAttempt"]>; settled: () => Promise<void> } {
  const log = agentLog(trace);
  let pending = Promise.resolve();
  return {
    onAttempt: (e) => {
      if (e.phase === "start") log(e);
      else pending = pending.then(flush).then(() => log(e));
    },
    settled: () => pending,
  };
}

/** An outcome in a word: the status ("503"), or what happened instead ("timeout", "error"). */
export function statusText(o: Outcome): string {
  return o.kind === "response" ? String(o.status) : o.kind;
}

/**
 * A wait a lesson sleeps scaled down: the real client's wait, then in brackets what was slept,
 * "1.00 s [10.0 ms]".
 */
export function scaledWait(realMs: number, scale: number): string {
  return `${(realMs / 1000).toFixed(2)} s [${(realMs * scale).toFixed(1)} ms]`;
}

/**
 * One request of an SDK call, with the headers it carried: "SDK request 2: POST /v1/messages
 * (x-stainless-retry-count: 1, no Idempotency-Key) ← 503".
 */
export function sdkRequestText(
  n: number,
  headers: Record<string, string | string[] | undefined>,
  outcome: Outcome,
): string {
  const key = headers["idempotency-key"];
  const sent = key === undefined ? "no Idempotency-Key" : `Idempotency-Key ${key}`;
  return `SDK request ${n}: POST /v1/messages (x-stainless-retry-count: ${headers["x-stainless-retry-count"]}, ${sent}) ← ${statusText(outcome)}`;
}

/**
 * The test agent's stack narrated: each harness attempt, each request of the SDK under it (with the
 * headers the server received), each wait of the SDK.
 */
export function sdkLog(
  trace: Trace,
  scale: number,
): {
  onAttempt: (n: number) => void;
  onRequest: (
    n: number,
    headers: Record<string, string | string[] | undefined>,
    o: Outcome,
  ) => void;
  onWait: (n: number, verdict: Extract<Verdict, { retry: true }>) => void;
} {
  return {
    onAttempt: (n) => trace.event("harness", `attempt ${n}: call the SDK`),
    onRequest: (n, headers, o) => trace.event("agent", sdkRequestText(n, headers, o), "bad"),
    onWait: (_n, v) => trace.event("agent", `SDK waits ${scaledWait(v.delayMs, scale)} (${v.why})`),
  };
}

/**
 * Codex's two layers narrated: each sampling attempt in one line (its HTTP requests, the HTTP
 * layer's waits, why that layer stopped), each wait of the sampling layer in another. `honoured()`
 * counts the waits the server asked for.
 */
export function codexLog(
  trace: Trace,
  scale: number,
): Required<Pick<CodexCallOptions, "onRequest" | "onWait" | "onStop">> & { honoured(): number } {
  let honoured = 0;
  let requests = 0;
  const httpWaits: string[] = [];
  return {
    onRequest: () => {
      requests++;
    },
    onWait: (layer, _s, _n, v) => {
      if (v.honoured) honoured++;
      const wait = `${scaledWait(v.delayMs, scale)} (${v.why})`;
      if (layer === "http") httpWaits.push(wait);
      else trace.event("harness", `sampling layer waits ${wait} and starts over`);
    },
    onStop: (layer, s, why) => {
      if (layer !== "http") return;
      const waits = httpWaits.length ? `; HTTP layer waited ${httpWaits.join(", ")}` : "";
      trace.event(
        "agent",
        `sampling attempt ${s}: ${requests} HTTP request(s)${waits}; HTTP layer stops: ${why}`,
        "bad",
      );
      httpWaits.length = 0;
      requests = 0;
    },
    honoured: () => honoured,
  };
}
