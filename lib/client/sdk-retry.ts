/**
 * An SDK-like retry layer with the defaults of the Stainless-generated LLM SDKs, read from
 * anthropic-sdk-python `_base_client.py` and `_constants.py`:
 *
 *   - `DEFAULT_MAX_RETRIES = 2`: up to 3 HTTP requests per SDK call;
 *   - retried: connection errors and timeouts, 408, 409, 429 and every status ≥ 500
 *     (`_should_retry`); the non-standard `x-should-retry: true|false` overrides all of that;
 *   - the wait: the server's `retry-after-ms` or `retry-after` when it is in (0, 60 s]
 *     (`_calculate_retry_timeout`), else min(0.5 s × 2^k, 8 s) × (1 − 0.25 r), k = retries so far;
 *   - the method is not checked, so a POST is retried, and no Idempotency-Key header is sent (the
 *     SDK makes a `stainless-python-retry-<uuid>` value but its header name is unset); what is sent
 *     is `x-stainless-retry-count`.
 *
 * Then the harness: a hand-written loop around the SDK call, so the two multiply.
 */

import { t } from "../core/i18n.ts";
import type { Random } from "../core/random.ts";
import { anthropicSdkDelayMs } from "./backoff.ts";
import { httpCall, isRetryable, type Outcome } from "./client.ts";
import {
  type HeaderBag,
  headerText,
  type RetryAfterSource,
  readRetryAfter,
} from "./retry-after.ts";
import { type LoopResult, retryLoop, type Verdict } from "./retry-loop.ts";

/** anthropic-sdk-python `_constants.py`: `DEFAULT_MAX_RETRIES = 2`. */
export const SDK_MAX_RETRIES = 2;
/** The Python SDK honours a server's delay only up to 60 s (`0 < retry_after <= 60`). */
export const SDK_RETRY_AFTER_CEILING_MS = 60_000;

/** `_should_retry` / `_should_retry_exception`: may this outcome be retried? */
export function sdkShouldRetry(outcome: Outcome): boolean {
  if (outcome.kind !== "response") return true; // APIConnectionError, and APITimeoutError under it
  const hint = headerText(outcome.headers, "x-should-retry");
  if (hint === "true") return true;
  if (hint === "false") return false;
  return isRetryable(outcome); // 408, 409, 429, ≥ 500
}

/** The wait before the next retry, and what it came from. */
export interface SdkDelay {
  /** Real milliseconds. */
  ms: number;
  source: RetryAfterSource | "backoff";
  /** Why a server delay was not used, when one was sent. */
  ignored?: string;
}

/**
 * `_calculate_retry_timeout`: the server's delay when it is in (0, 60 s], otherwise the SDK's own
 * backoff for `retriesSoFar` (0 before the first retry).
 */
export function sdkRetryDelay(
  retriesSoFar: number,
  headers: HeaderBag,
  random: Random,
  nowMs: number,
): SdkDelay {
  const asked = readRetryAfter(headers, nowMs);
  if (asked && asked.ms > 0 && asked.ms <= SDK_RETRY_AFTER_CEILING_MS)
    return { ms: asked.ms, source: asked.from };
  const backoff = { ms: anthropicSdkDelayMs(retriesSoFar, random), source: "backoff" as const };
  if (!asked) return backoff;
  const ignored =
    asked.ms <= 0
      ? t("{header} not in the future", { header: asked.from })
      : t("{header} over {s} s", { header: asked.from, s: SDK_RETRY_AFTER_CEILING_MS / 1000 });
  return { ...backoff, ignored };
}

/** The SDK's verdict after a request that was retry number `retriesSoFar` (0 for the first request). */
export function sdkVerdict(
  outcome: Outcome,
  retriesSoFar: number,
  maxRetries: number,
  random: Random,
  nowMs: number,
): Verdict {
  if (outcome.kind === "response" && outcome.status < 300)
    return { retry: false, why: t("success") };
  if (!sdkShouldRetry(outcome)) return { retry: false, why: t("not retryable") };
  if (retriesSoFar >= maxRetries)
    return { retry: false, why: t("retries used up ({max})", { max: maxRetries }) };
  const d = sdkRetryDelay(
    retriesSoFar,
    outcome.kind === "response" ? outcome.headers : {},
    random,
    nowMs,
  );
  if (d.source !== "backoff") {
    const why = t("server asked ({header})", { header: d.source });
    return { retry: true, delayMs: d.ms, why, honoured: true };
  }
  const why = d.ignored ? t("backoff; {ignored}, ignored", { ignored: d.ignored }) : t("backoff");
  return { retry: true, delayMs: d.ms, why };
}

export interface SdkCallOptions {
  /** The endpoint (the whole URL) the SDK POSTs to. */
  url: string;
  body: unknown;
  timeoutMs: number;
  random: Random;
  /** Default `SDK_MAX_RETRIES`. */
  maxRetries?: number;
  /** The wall clock for HTTP-dates, ms since the epoch (default Date.now). */
  now?: () => number;
  /** Waits are slept multiplied by this (default 1). */
  timeScale?: number;
  /** Called after each HTTP request (n = 1 for the first of this SDK call). */
  onRequest?: (n: number, outcome: Outcome) => void;
  onWait?: (n: number, verdict: Extract<Verdict, { retry: true }>) => void;
}

/** One SDK call: one POST and up to `maxRetries` retries of it. */
export function sdkCall(options: SdkCallOptions): Promise<LoopResult<Outcome>> {
  const maxRetries = options.maxRetries ?? SDK_MAX_RETRIES;
  const now = options.now ?? Date.now;
  return retryLoop({
    attempt: async (n) => {
      const outcome = await httpCall({
        method: "POST",
        url: options.url,
        body: options.body,
        headers: { "x-stainless-retry-count": String(n - 1) },
        timeoutMs: options.timeoutMs,
      });
      options.onRequest?.(n, outcome);
      return outcome;
    },
    decide: (outcome, n) => sdkVerdict(outcome, n - 1, maxRetries, options.random, now()),
    ...(options.timeScale !== undefined ? { timeScale: options.timeScale } : {}),
    ...(options.onWait ? { onWait: options.onWait } : {}),
  });
}

export interface HarnessOptions {
  /** Attempts of the harness loop, first included. */
  attempts: number;
  /** The harness's fixed pause between its attempts, real ms. */
  pauseMs: number;
  /** Called as each harness attempt starts. */
  onAttempt?: (n: number) => void;
}

/**
 * The test agent's stack: a harness loop that calls the SDK again whenever the SDK's call failed, up
 * to `attempts` times. Each SDK call retries on its own underneath.
 */
export function harnessOverSdk(
  harness: HarnessOptions,
  sdk: SdkCallOptions,
): Promise<LoopResult<LoopResult<Outcome>>> {
  return retryLoop({
    attempt: (n) => {
      harness.onAttempt?.(n);
      return sdkCall(sdk);
    },
    decide: (call, n) => {
      const ok = call.final.kind === "response" && call.final.status < 300;
      if (ok) return { retry: false, why: t("success") };
      if (n >= harness.attempts)
        return {
          retry: false,
          why: t("harness attempts used up ({max})", { max: harness.attempts }),
        };
      return {
        retry: true,
        delayMs: harness.pauseMs,
        why: t("the SDK call failed: the harness tries again"),
      };
    },
    ...(sdk.timeScale !== undefined ? { timeScale: sdk.timeScale } : {}),
  });
}
