/**
 * The agent's side of a lesson's trace: each attempt of its call, as it leaves and as it ends, in the
 * trace's words (the tracker tells its own side: lib/tracker/narrate.ts); and the retry layers' own
 * (an SDK's requests and waits, Codex's two layers).
 */

import { t } from "../core/i18n.ts";
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
  return key
    ? t("attempt {n} → {what} (Idempotency-Key {key}…)", { n, what, key: key.slice(0, 8) })
    : t("attempt {n} → {what}", { n, what });
}

/** The trace's words for an attempt's outcome: "attempt 1 ← no response within 150 ms (timeout)". */
export function attemptEndText(attempt: Attempt): string {
  return t("attempt {n} ← {outcome}", { n: attempt.n, outcome: describeOutcome(attempt.outcome) });
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
  if (o.kind === "response") return String(o.status);
  return o.kind === "timeout" ? t("timeout") : t("error");
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
  const values = {
    n,
    count: `x-stainless-retry-count: ${headers["x-stainless-retry-count"]}`,
    status: statusText(outcome),
  };
  return key === undefined
    ? t("SDK request {n}: POST /v1/messages ({count}, no Idempotency-Key) ← {status}", values)
    : t("SDK request {n}: POST /v1/messages ({count}, Idempotency-Key {key}) ← {status}", {
        ...values,
        key: String(key),
      });
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
    onAttempt: (n) => trace.event("harness", t("attempt {n}: call the SDK", { n })),
    onRequest: (n, headers, o) => trace.event("agent", sdkRequestText(n, headers, o), "bad"),
    onWait: (_n, v) =>
      trace.event(
        "agent",
        t("SDK waits {wait} ({why})", { wait: scaledWait(v.delayMs, scale), why: v.why }),
      ),
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
      const wait = scaledWait(v.delayMs, scale);
      if (layer === "http") httpWaits.push(t("{wait} ({why})", { wait, why: v.why }));
      else
        trace.event(
          "harness",
          t("sampling layer waits {wait} ({why}) and starts over", { wait, why: v.why }),
        );
    },
    onStop: (layer, s, why) => {
      if (layer !== "http") return;
      const text =
        httpWaits.length === 0
          ? t(
              "sampling attempt {s}: {requests, plural, one {# HTTP request} other {# HTTP requests}}; HTTP layer stops: {why}",
              { s, requests, why },
            )
          : t(
              "sampling attempt {s}: {requests, plural, one {# HTTP request} other {# HTTP requests}}; HTTP layer waited {waits}; HTTP layer stops: {why}",
              { s, requests, why, waits: httpWaits.join(t(", ")) },
            );
      trace.event("agent", text, "bad");
      httpWaits.length = 0;
      requests = 0;
    },
    honoured: () => honoured,
  };
}
