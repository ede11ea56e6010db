/**
 * A client in the style of the AWS SDKs' "standard" retry mode: at most 3 attempts, full-jitter
 * backoff (t = r × min(20 s, base × 2^i), base 100 ms, 500 ms for throttling), and, when given one,
 * a shared retry quota (lib/client/token-bucket.ts) that must pay for every retry.
 */

import { t } from "../core/i18n.ts";
import type { Random } from "../core/random.ts";
import { fullJitterMs } from "./backoff.ts";
import { httpCall, isRetryable, type Outcome } from "./client.ts";
import { type LoopResult, retryLoop } from "./retry-loop.ts";
import {
  AWS_STANDARD_BASE_DELAY_MS,
  AWS_STANDARD_MAX_ATTEMPTS,
  AWS_STANDARD_MAX_DELAY_MS,
  AWS_STANDARD_THROTTLING_BASE_DELAY_MS,
  type RetryQuota,
  retryKindOf,
} from "./token-bucket.ts";

export interface StandardCallOptions {
  url: string;
  body: unknown;
  timeoutMs: number;
  random: Random;
  /** The shared retry budget; without one, every failure is retried up to `maxAttempts`. */
  quota?: RetryQuota;
  /** Default 3 (`DEFAULT_MAX_ATTEMPTS`). */
  maxAttempts?: number;
  /** Waits are slept multiplied by this (default 1). */
  timeScale?: number;
}

export interface StandardCallResult extends LoopResult<Outcome> {
  ok: boolean;
}

/** One call: the first request and the retries the policy (and the quota, if any) allow. */
export async function standardCall(options: StandardCallOptions): Promise<StandardCallResult> {
  const maxAttempts = options.maxAttempts ?? AWS_STANDARD_MAX_ATTEMPTS;
  let lastRetryCost: number | undefined;
  const result = await retryLoop<Outcome>({
    attempt: () =>
      httpCall({
        method: "POST",
        url: options.url,
        body: options.body,
        timeoutMs: options.timeoutMs,
      }),
    decide: (outcome, n) => {
      if (outcome.kind === "response" && outcome.status < 300) {
        options.quota?.recordSuccess(lastRetryCost);
        return { retry: false, why: t("success") };
      }
      if (!isRetryable(outcome)) return { retry: false, why: t("not retryable") };
      if (n >= maxAttempts)
        return { retry: false, why: t("attempts used up ({max})", { max: maxAttempts }) };
      if (options.quota) {
        const cost = options.quota.acquire(retryKindOf(outcome));
        if (cost === undefined) return { retry: false, why: t("the retry quota is empty") };
        lastRetryCost = cost;
      }
      const throttled = outcome.kind === "response" && outcome.status === 429;
      const baseMs = throttled ? AWS_STANDARD_THROTTLING_BASE_DELAY_MS : AWS_STANDARD_BASE_DELAY_MS;
      return {
        retry: true,
        delayMs: fullJitterMs(n - 1, { baseMs, capMs: AWS_STANDARD_MAX_DELAY_MS }, options.random),
        why: t("full-jitter backoff"),
      };
    },
    ...(options.timeScale !== undefined ? { timeScale: options.timeScale } : {}),
  });
  return { ...result, ok: result.final.kind === "response" && result.final.status < 300 };
}
