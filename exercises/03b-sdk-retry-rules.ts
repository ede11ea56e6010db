/**
 * Exercise 03b · The SDK's retry rules: what to retry, and how long to wait
 *
 * Goal: the two decisions an LLM SDK makes after a failed request, as anthropic-sdk-python does them
 * (`_should_retry`, `_parse_retry_after_header`, `_calculate_retry_timeout` in `_base_client.py`).
 * Headers arrive as node:http gives them: lower-case names, a string (or an array when repeated).
 *
 * Constraints: pure functions; the clock is the `nowMs` argument, never Date.now(). The SDK's own
 * backoff, min(0.5 s × 2^k, 8 s) × (1 − 0.25 r), is given: `anthropicSdkDelayMs` from
 * lib/client/backoff.ts. Lesson 03 runs these rules under a harness loop (run `npm run lesson 3`).
 * Check your answer with `npm run check 3`.
 *
 * 练习 03b · SDK 的重试规则：重试什么，等多久
 *
 * 目标：一次请求失败后，LLM SDK 要做的两个决定，照 anthropic-sdk-python 的做法来（`_base_client.py`
 * 里的 `_should_retry`、`_parse_retry_after_header`、`_calculate_retry_timeout`）。响应头的形式和
 * node:http 给出的一样：头名小写，值是字符串（同一个头出现多次时是数组）。
 *
 * 约束：纯函数；时钟就是参数 `nowMs`，不要用 Date.now()。SDK 自己的退避 min(0.5 s × 2^k, 8 s) × (1
 * − 0.25 r) 已经给出：lib/client/backoff.ts 里的 `anthropicSdkDelayMs`。第 03 课把这些规则放在
 * harness 的重试循环下面跑（`npm run lesson 3`）。用 `npm run check 3` 检查你的答案。
 */
import { anthropicSdkDelayMs } from "../lib/client/backoff.ts";
import type { Outcome } from "../lib/client/client.ts";
import type { Random } from "../lib/core/random.ts";

/** Response headers, as node:http gives them. */
export type Headers = Record<string, string | string[] | undefined>;

/** The SDK honours a server's delay up to 60 s (`0 < retry_after <= 60`). */
export const MAX_RETRY_AFTER_MS = 60_000;

/** May the SDK retry after this outcome of a request? */
export function shouldRetry(outcome: Outcome): boolean {
  // TODO: connection errors and timeouts; x-should-retry; 408, 409, 429, 5xx.
  // 待办：连接错误和超时；x-should-retry；408、409、429、5xx。
  throw new Error("TODO: write shouldRetry (exercise 03b)");
}

/**
 * How long to wait, in ms, before the next retry. `retriesSoFar` is 0 before the first retry;
 * `nowMs` is the current time (ms since the epoch) for an HTTP-date.
 */
export function retryDelay(
  retriesSoFar: number,
  headers: Headers,
  random: Random,
  nowMs: number,
): number {
  // TODO: the server's delay (retry-after-ms, then retry-after) when it is in (0, 60 s]; else the backoff.
  // 待办：服务端要求的等待（先看 retry-after-ms，再看 retry-after）在 (0, 60 s] 之内就用它，否则用
  //   退避。
  throw new Error("TODO: write retryDelay (exercise 03b)");
}
