/**
 * Exercise 03a · A retry budget: the AWS SDKs' token bucket (reference answer)
 *
 * Goal: a client-side retry quota as the AWS SDKs' standard retry mode has it. Every retry must be
 * paid for from one bucket that all of a client's calls share; successes pay a little back. A
 * transient error (a 503, a timeout) costs TIMEOUT_RETRY_COST, a throttling error RETRY_COST.
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
  #left = CAPACITY;

  /** Tokens in the bucket now. */
  get available(): number {
    return this.#left;
  }

  /**
   * Pays for one retry after a failure of this kind. Returns the tokens taken, or undefined when the
   * bucket cannot pay (then the caller must not retry, and the bucket is unchanged).
   */
  acquire(kind: RetryKind): number | undefined {
    const price = kind === "transient" ? TIMEOUT_RETRY_COST : RETRY_COST;
    if (price > this.#left) return undefined;
    this.#left -= price;
    return price;
  }

  /**
   * A call succeeded. `lastRetryCost` is what acquire returned for its last retry, or undefined when
   * it succeeded at its first attempt. Pays back that much, or NO_RETRY_INCREMENT; never past CAPACITY.
   */
  recordSuccess(lastRetryCost?: number): void {
    const refund = lastRetryCost === undefined ? NO_RETRY_INCREMENT : lastRetryCost;
    this.#left = Math.min(CAPACITY, this.#left + refund);
  }
}
