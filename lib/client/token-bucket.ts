/**
 * A local retry budget: the token bucket of the AWS SDKs' "standard" retry mode. A retry may go out
 * only if it can pay for itself from a shared bucket; a success pays a little back. While most calls
 * succeed the bucket stays full and retries flow; when everything fails it drains and retries stop,
 * so the client sends roughly one request per call instead of one per attempt.
 *
 * Constants from smithy-lang/smithy-typescript `packages/core/src/submodules/retry/util-retry/`
 * (`constants.ts`, `StandardRetryStrategy.ts`), the code behind `@smithy/core/retry` in the AWS SDK
 * for JavaScript v3, as they stood before AWS's new retry defaults of November 2026 (see
 * `AWS_RETRIES_2026`). What a retry costs depends on the error's type: `StandardRetryStrategy`
 * charges `TIMEOUT_RETRY_COST` (10) for a `TRANSIENT` error and `RETRY_COST` (5) for any other. In
 * the JS SDK `TRANSIENT` covers HTTP 500, 502, 503 and 504 (`TRANSIENT_ERROR_STATUS_CODES` in
 * `@smithy/service-error-classification`), timeouts and reset connections; throttling (429,
 * `ThrottlingException`, …) is checked first and costs 5. So a 503 retry costs 10. (botocore, the
 * Python SDK, differs: 5 for every retryable error, 10 only for a connect or read timeout,
 * `botocore/retries/standard.py`.)
 */
import type { Outcome } from "./client.ts";

export interface QuotaParams {
  /** Tokens in a full bucket (`INITIAL_RETRY_TOKENS`). */
  capacity: number;
  /** What a retry after a throttling or other non-transient error costs (`RETRY_COST`). */
  retryCost: number;
  /** What a retry after a transient error costs: 500, 502, 503, 504, a timeout, a reset (`TIMEOUT_RETRY_COST`). */
  transientRetryCost: number;
  /** What a success without any retry pays back (`NO_RETRY_INCREMENT`). */
  noRetryIncrement: number;
}

/** Standard mode before November 2026: 500 tokens, 10 per transient retry (a 503), 5 per throttling retry, 1 back. */
export const AWS_STANDARD_QUOTA: Readonly<QuotaParams> = Object.freeze({
  capacity: 500,
  retryCost: 5,
  transientRetryCost: 10,
  noRetryIncrement: 1,
});

/** Standard mode's other defaults (`config.ts`, `constants.ts`). */
export const AWS_STANDARD_MAX_ATTEMPTS = 3;
export const AWS_STANDARD_BASE_DELAY_MS = 100;
export const AWS_STANDARD_THROTTLING_BASE_DELAY_MS = 500;
export const AWS_STANDARD_MAX_DELAY_MS = 20_000;

/**
 * The new defaults (smithy `retries-2026-config.ts`; AWS Developer Tools blog, May 2026: opt-in
 * first, the default from 10 November 2026): base 50 ms, throttling base 1000 ms, a non-throttling
 * retry costs 14 tokens, a throttling retry 5.
 */
export const AWS_RETRIES_2026 = Object.freeze({
  baseDelayMs: 50,
  throttlingBaseDelayMs: 1000,
  retryCost: 14,
  throttlingRetryCost: 5,
});

/** The 2026 defaults, for a sentence: base delays, and what a retry costs. */
export function retries2026Facts(): Record<
  "base" | "throttlingBase" | "cost" | "throttling",
  string
> {
  return {
    base: String(AWS_RETRIES_2026.baseDelayMs),
    throttlingBase: String(AWS_RETRIES_2026.throttlingBaseDelayMs),
    cost: String(AWS_RETRIES_2026.retryCost),
    throttling: String(AWS_RETRIES_2026.throttlingRetryCost),
  };
}

/**
 * What failed, as the JS SDK classifies it: `transient` (500, 502, 503, 504, a timeout, a reset
 * connection), `throttling` (429), or `other` (any other retryable answer).
 */
export type RetryKind = "transient" | "throttling" | "other";

/** The HTTP statuses the JS SDK counts as transient (`TRANSIENT_ERROR_STATUS_CODES`). */
export const TRANSIENT_STATUSES: readonly number[] = Object.freeze([500, 502, 503, 504]);

/** Classifies a failed attempt the way `getRetryErrorType` does: throttling first, then transient. */
export function retryKindOf(outcome: Outcome): RetryKind {
  if (outcome.kind !== "response") return "transient";
  if (outcome.status === 429) return "throttling";
  return TRANSIENT_STATUSES.includes(outcome.status) ? "transient" : "other";
}

/** What a full bucket charges for a retry after an answer with this HTTP status. */
export function retryCostAfter(status: number, params: Readonly<QuotaParams> = AWS_STANDARD_QUOTA) {
  const outcome: Outcome = { kind: "response", status, headers: {}, body: undefined };
  return new RetryQuota(params).acquire(retryKindOf(outcome));
}

/**
 * A bucket's rules, for a sentence: its capacity, what a retry costs after a transient error and
 * after throttling (as the code charges them for a 503 and a 429), what a success without retry
 * pays back, and so how many such successes pay for one retry once the bucket is drained.
 */
export function quotaFacts(params: Readonly<QuotaParams> = AWS_STANDARD_QUOTA) {
  const [cost503, cost429] = [retryCostAfter(503, params) ?? 0, retryCostAfter(429, params) ?? 0];
  return {
    capacity: String(params.capacity),
    transient: String(params.transientRetryCost),
    throttling: String(params.retryCost),
    cost503: String(cost503),
    back: String(params.noRetryIncrement),
    per503: String(cost503 / params.noRetryIncrement),
    per429: String(cost429 / params.noRetryIncrement),
  };
}

/** A shared retry budget. One per client, shared by all its calls. */
export class RetryQuota {
  readonly params: Readonly<QuotaParams>;
  #tokens: number;
  #granted = 0;
  #refused = 0;

  constructor(params: Readonly<QuotaParams> = AWS_STANDARD_QUOTA) {
    this.params = params;
    this.#tokens = params.capacity;
  }

  /** Tokens left. */
  get tokens(): number {
    return this.#tokens;
  }

  /** Retries the bucket has paid for, and retries it refused. */
  get granted(): number {
    return this.#granted;
  }

  get refused(): number {
    return this.#refused;
  }

  /**
   * Asks to pay for one retry. Returns the tokens taken (remember them for `recordSuccess`), or
   * `undefined` when the bucket cannot pay: then the caller must not retry.
   */
  acquire(kind: RetryKind): number | undefined {
    const cost = kind === "transient" ? this.params.transientRetryCost : this.params.retryCost;
    if (this.#tokens < cost) {
      this.#refused++;
      return undefined;
    }
    this.#tokens -= cost;
    this.#granted++;
    return cost;
  }

  /**
   * A call succeeded. `lastRetryCost` is what its last retry cost, if it retried; that much comes
   * back, or `noRetryIncrement` for a success at the first attempt. Never beyond capacity.
   */
  recordSuccess(lastRetryCost?: number): void {
    this.#tokens = Math.min(
      this.params.capacity,
      this.#tokens + (lastRetryCost ?? this.params.noRetryIncrement),
    );
  }
}
