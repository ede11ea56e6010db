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
 *
 * 练习 03a · 重试预算：AWS SDK 的令牌桶
 *
 * 目标：按 AWS SDK 标准重试模式的做法，写一个客户端侧的重试配额。每次重试都要从一个桶里付令牌，这个
 * 桶由同一个客户端的所有调用共用；成功了会还回一点。大部分调用成功时，桶一直是满的；全都失败时，桶
 * 会被抽干，重试也就停了。一次重试花多少，取决于失败的种类。在 AWS SDK for JavaScript v3 里，瞬时错
 * 误（HTTP 500、502、503 或 504，超时，连接被重置）花 TIMEOUT_RETRY_COST，别看名字，它不只管超时；
 * 限流错误（429）花 RETRY_COST。
 *
 * 约束：不做 I/O，不看时钟；下面的常量取自标准模式（smithy-typescript 的 `util-retry/constants.ts`
 * 和 `StandardRetryStrategy.ts`，2026 年 11 月之前的版本）。第 03 课把同一次故障在有桶和没桶两种情
 * 况下各跑一遍（`npm run lesson 3`）。用 `npm run check 3` 检查你的答案。
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
  // 待办：在这里保存桶的状态（一开始是满的）。

  /** Tokens in the bucket now. */
  get available(): number {
    // TODO: return the tokens left.
    // 待办：返回桶里剩下的令牌数。
    throw new Error("TODO: write RetryQuota.available (exercise 03a)");
  }

  /**
   * Pays for one retry after a failure of this kind. Returns the tokens taken, or undefined when the
   * bucket cannot pay (then the caller must not retry, and the bucket is unchanged).
   */
  acquire(kind: RetryKind): number | undefined {
    // TODO: take the retry's cost from the bucket, or refuse.
    // 待办：从桶里扣掉这次重试的花费，或者拒绝。
    throw new Error("TODO: write RetryQuota.acquire (exercise 03a)");
  }

  /**
   * A call succeeded. `lastRetryCost` is what acquire returned for its last retry, or undefined when
   * it succeeded at its first attempt. Pays back that much, or NO_RETRY_INCREMENT; never past CAPACITY.
   */
  recordSuccess(lastRetryCost?: number): void {
    // TODO: refill the bucket.
    // 待办：往桶里加回令牌。
    throw new Error("TODO: write RetryQuota.recordSuccess (exercise 03a)");
  }
}
