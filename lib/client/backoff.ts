/**
 * Backoff strategies: how long a client sleeps before its next retry.
 *
 * Every strategy is a pure function of the retry number (and, for decorrelated jitter, the previous
 * sleep) plus an injected `Random`, so a seeded source replays the same waits and tests can script
 * the draws. All durations are in milliseconds.
 *
 * Numbering used throughout: `attempt` (n) is the number of failures so far, so n = 1 before the
 * first retry. The Anthropic SDK counts differently (k = retries already done, k = 0 before the first
 * retry); its own function takes k, and `makeBackoff` converts (k = n - 1).
 */

import type { Random } from "../core/random.ts";

/** The fixed strategy names. */
export type StrategyName =
  | "no-backoff"
  | "exponential"
  | "full"
  | "equal"
  | "decorrelated"
  | "codex"
  | "anthropic-sdk"
  | "codex-capped";

export const STRATEGY_NAMES: readonly StrategyName[] = [
  "no-backoff",
  "exponential",
  "full",
  "equal",
  "decorrelated",
  "codex",
  "anthropic-sdk",
  "codex-capped",
];

export function isStrategyName(name: string): name is StrategyName {
  return (STRATEGY_NAMES as readonly string[]).includes(name);
}

/** Base and cap of the capped exponential v_n = min(cap, base * 2^n). */
export interface BackoffParams {
  baseMs: number;
  capMs: number;
}

/** The AWS simulator's hard-wired values, used by the herd simulator. */
export const HERD_PARAMS: Readonly<BackoffParams> = Object.freeze({ baseMs: 5, capMs: 2000 });

/** openai/codex `codex-rs/core/src/util.rs`: `INITIAL_DELAY_MS = 200`, `BACKOFF_FACTOR = 2.0`. */
export const CODEX_INITIAL_DELAY_MS = 200;
/** anthropic-sdk-python `_constants.py`: `INITIAL_RETRY_DELAY = 0.5`, `MAX_RETRY_DELAY = 8.0` (seconds). */
export const ANTHROPIC_INITIAL_RETRY_DELAY_MS = 500;
export const ANTHROPIC_MAX_RETRY_DELAY_MS = 8000;

// --- The AWS four (AWS Architecture Blog, "Exponential Backoff And Jitter", Marc Brooker, 2015,
// --- and its simulator aws-samples/aws-arch-backoff-simulator).

/** The capped exponential v_n = min(cap, base * 2^n). n = 1 gives 2 * base, not base. */
export function cappedExponentialMs(attempt: number, { baseMs, capMs }: BackoffParams): number {
  return Math.min(capMs, baseMs * 2 ** attempt);
}

/** No backoff: retry at once. */
export function noBackoffMs(): number {
  return 0;
}

/** Exponential without jitter: sleep = v_n. Clients that failed together retry together. */
export function exponentialMs(attempt: number, params: BackoffParams): number {
  return cappedExponentialMs(attempt, params);
}

/** Full Jitter: sleep = uniform(0, v_n). */
export function fullJitterMs(attempt: number, params: BackoffParams, random: Random): number {
  return cappedExponentialMs(attempt, params) * random();
}

/** Equal Jitter: sleep = v_n / 2 + uniform(0, v_n / 2). Never less than half of v_n. */
export function equalJitterMs(attempt: number, params: BackoffParams, random: Random): number {
  const half = cappedExponentialMs(attempt, params) / 2;
  return half + half * random();
}

/**
 * Decorrelated Jitter: sleep = min(cap, uniform(base, 3 * prev)), where prev is the previous sleep
 * (base before the first retry). Ignores the attempt number; the caller keeps `prev`.
 */
export function decorrelatedJitterMs(
  prevMs: number,
  { baseMs, capMs }: BackoffParams,
  random: Random,
): number {
  return Math.min(capMs, baseMs + (3 * prevMs - baseMs) * random());
}

// --- The two real clients the course quotes.

/**
 * Codex's sampling-layer retry: 200 ms * 2^(n-1) * uniform[0.9, 1.1), no cap, truncated to whole
 * milliseconds as `Duration::from_millis(... as u64)` does. Source: openai/codex
 * `codex-rs/core/src/util.rs` `backoff()` (the course cites `async-utils/src/backoff.rs`, the newer
 * layout). Like the Rust `saturating_sub`, attempt 0 behaves as attempt 1.
 */
export function codexBackoffMs(attempt: number, random: Random): number {
  const nominal = codexNominalMs(attempt);
  return Math.trunc(nominal * (0.9 + 0.2 * random()));
}

function codexNominalMs(attempt: number): number {
  return Math.trunc(CODEX_INITIAL_DELAY_MS * 2 ** Math.max(0, attempt - 1));
}

/**
 * The Anthropic Python SDK's delay when the server sent no usable retry-after:
 * min(0.5 s * 2^k, 8 s) * (1 - 0.25 * r), k = retries already done (0 before the first retry).
 * The jitter only shortens the wait, by up to 25 %. Source: anthropic-sdk-python
 * `_base_client.py` `_calculate_retry_timeout` (returns seconds; this returns milliseconds).
 */
export function anthropicSdkDelayMs(retriesSoFar: number, random: Random): number {
  const k = Math.min(retriesSoFar, 1000); // the SDK clamps nb_retries the same way
  const sleepMs = Math.min(ANTHROPIC_INITIAL_RETRY_DELAY_MS * 2 ** k, ANTHROPIC_MAX_RETRY_DELAY_MS);
  return sleepMs * (1 - 0.25 * random());
}

/**
 * The course's "Codex amplitude" for the herd simulator: Codex's ±10 % jitter on the AWS capped
 * exponential, min(cap, base * 2^n) * uniform(0.9, 1.1), so it can be compared with the AWS four.
 */
export function codexCappedMs(attempt: number, params: BackoffParams, random: Random): number {
  return cappedExponentialMs(attempt, params) * (0.9 + 0.2 * random());
}

// --- One object per client.

/** A per-client backoff. Only decorrelated jitter keeps state (the previous sleep). */
export interface Backoff {
  readonly name: StrategyName;
  /** The sleep before retry number `attempt` (1 for the first retry). */
  nextDelayMs(attempt: number): number;
}

/**
 * A per-client backoff object for any strategy. `params` sets base and cap of the AWS strategies and
 * `codex-capped`; `codex` and `anthropic-sdk` use their own constants and ignore it.
 */
export function makeBackoff(name: StrategyName, params: BackoffParams, random: Random): Backoff {
  switch (name) {
    case "no-backoff":
      return { name, nextDelayMs: () => 0 };
    case "exponential":
      return { name, nextDelayMs: (n) => exponentialMs(n, params) };
    case "full":
      return { name, nextDelayMs: (n) => fullJitterMs(n, params, random) };
    case "equal":
      return { name, nextDelayMs: (n) => equalJitterMs(n, params, random) };
    case "decorrelated": {
      let prevMs = params.baseMs;
      return {
        name,
        nextDelayMs: () => (prevMs = decorrelatedJitterMs(prevMs, params, random)),
      };
    }
    case "codex":
      return { name, nextDelayMs: (n) => codexBackoffMs(n, random) };
    case "anthropic-sdk":
      return { name, nextDelayMs: (n) => anthropicSdkDelayMs(n - 1, random) };
    case "codex-capped":
      return { name, nextDelayMs: (n) => codexCappedMs(n, params, random) };
  }
}

// --- Schedules without randomness, for printing.

/**
 * The range a strategy's sleep before retry `attempt` can fall in, and its un-jittered value.
 * `lowMs` and `highMs` are the extreme values of the range (the high end of a uniform draw is never
 * quite reached). For decorrelated jitter the range covers every possible history,
 * [base, min(cap, base * 3^n)], and there is no nominal value (`nominalMs` is null).
 */
export interface DelayBounds {
  lowMs: number;
  highMs: number;
  nominalMs: number | null;
}

export function delayBounds(
  name: StrategyName,
  attempt: number,
  params: BackoffParams,
): DelayBounds {
  const v = cappedExponentialMs(attempt, params);
  switch (name) {
    case "no-backoff":
      return { lowMs: 0, highMs: 0, nominalMs: 0 };
    case "exponential":
      return { lowMs: v, highMs: v, nominalMs: v };
    case "full":
      return { lowMs: 0, highMs: v, nominalMs: v };
    case "equal":
      return { lowMs: v / 2, highMs: v, nominalMs: v };
    case "decorrelated":
      return {
        lowMs: params.baseMs,
        highMs: Math.min(params.capMs, params.baseMs * 3 ** attempt),
        nominalMs: null,
      };
    case "codex": {
      const nominal = codexNominalMs(attempt);
      return {
        lowMs: Math.trunc(nominal * 0.9),
        highMs: Math.trunc(nominal * 1.1),
        nominalMs: nominal,
      };
    }
    case "anthropic-sdk": {
      const k = Math.min(Math.max(attempt - 1, 0), 1000);
      const nominal = Math.min(
        ANTHROPIC_INITIAL_RETRY_DELAY_MS * 2 ** k,
        ANTHROPIC_MAX_RETRY_DELAY_MS,
      );
      return { lowMs: nominal * 0.75, highMs: nominal, nominalMs: nominal };
    }
    case "codex-capped":
      return { lowMs: v * 0.9, highMs: v * 1.1, nominalMs: v };
  }
}

/** `delayBounds` for retries 1 to `retries`, e.g. to print a strategy's schedule as a table. */
export function schedule(
  name: StrategyName,
  retries: number,
  params: BackoffParams,
): DelayBounds[] {
  return Array.from({ length: retries }, (_, i) => delayBounds(name, i + 1, params));
}
