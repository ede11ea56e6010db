/**
 * Exercise 03a · A retry budget: the AWS SDKs' token bucket
 *
 * Goal: a client-side retry quota as the AWS SDKs' standard retry mode has it. Every retry must be
 * paid for from one bucket that all of a client's calls share; successes pay a little back. While
 * most calls succeed the bucket stays full; when everything fails it drains, and retries stop.
 * What a retry costs depends on what failed. In the AWS SDK for JavaScript v3 a transient error (HTTP
 * 500, 502, 503 or 504, a timeout, a reset connection) costs TIMEOUT_RETRY_COST, despite the name,
 * and a throttling error (429) costs RETRY_COST.
 *
 * Constraints: no I/O, no clock; the constants below are the standard mode's (smithy-typescript
 * `util-retry/constants.ts` and `StandardRetryStrategy.ts`, before November 2026). Lesson 03 plays
 * an outage with and without this bucket (run `npm run lesson 3`). Check your answer with
 * `npm run check 3`.
 */

/** Tokens in a full bucket (`INITIAL_RETRY_TOKENS`). */
export const CAPACITY = 500;
/** A retry after a throttling error, such as a 429 (`RETRY_COST`). */
export const RETRY_COST = 5;
/** A retry after a transient error: a 500, 502, 503 or 504, a timeout, a reset connection (`TIMEOUT_RETRY_COST`). */
export const TIMEOUT_RETRY_COST = 10;
/** What a success that needed no retry pays back (`NO_RETRY_INCREMENT`). */
export const NO_RETRY_INCREMENT = 1;

/** What the failed attempt was, as the AWS SDK for JavaScript v3 sorts it: transient or throttling. */
export type RetryKind = "transient" | "throttling";

export class RetryQuota {
  // TODO: keep the bucket's state here (it starts full).

  /** Tokens in the bucket now. */
  get available(): number {
    // TODO: return the tokens left.
    throw new Error("TODO: write RetryQuota.available (exercise 03a)");
  }

  /**
   * Pays for one retry after a failure of this kind. Returns the tokens taken, or undefined when the
   * bucket cannot pay (then the caller must not retry, and the bucket is unchanged).
   */
  acquire(kind: RetryKind): number | undefined {
    // TODO: take the retry's cost from the bucket, or refuse.
    throw new Error("TODO: write RetryQuota.acquire (exercise 03a)");
  }

  /**
   * A call succeeded. `lastRetryCost` is what acquire returned for its last retry, or undefined when
   * it succeeded at its first attempt. Pays back that much, or NO_RETRY_INCREMENT; never past CAPACITY.
   */
  recordSuccess(lastRetryCost?: number): void {
    // TODO: refill the bucket.
    throw new Error("TODO: write RetryQuota.recordSuccess (exercise 03a)");
  }
}
