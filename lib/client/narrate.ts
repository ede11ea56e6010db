/**
 * The agent's side of a lesson's trace: each attempt of its call, as it leaves and as it ends, in the
 * trace's words (the tracker tells its own side: lib/tracker/narrate.ts).
 */

import type { Trace } from "../core/trace.ts";
import { type Attempt, describeOutcome, type FileReportOptions } from "./client.ts";

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
