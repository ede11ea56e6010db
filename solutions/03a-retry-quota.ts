/**
 * Exercise 03a · A retry budget: the AWS SDKs' token bucket (reference answer)
 * @lesson 03
 *
 * Goal: a client-side retry quota as the AWS SDKs' standard retry mode has it. Every retry must be
 * paid for from one bucket that all of a client's calls share; successes pay a little back.
 */

/** Tokens in a full bucket (`INITIAL_RETRY_TOKENS`). */
export const CAPACITY = 500;
/** A retry after an error answer (`RETRY_COST`). */
export const RETRY_COST = 5;
/** A retry after a timeout (`TIMEOUT_RETRY_COST`). */
export const TIMEOUT_RETRY_COST = 10;
/** What a success that needed no retry pays back (`NO_RETRY_INCREMENT`). */
export const NO_RETRY_INCREMENT = 1;

/** What the failed attempt was: an error answer or a timeout. */
export type RetryKind = "error" | "timeout";

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
    const price = kind === "timeout" ? TIMEOUT_RETRY_COST : RETRY_COST;
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
