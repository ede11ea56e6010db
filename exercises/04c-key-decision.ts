/**
 * Exercise 04c · What a keyed tracker does with a key it has seen
 *
 * Goal: given what the key table holds for the caller's key (or nothing), the fingerprint of the new
 * request and the time, decide: claim the key, replay the stored response, answer 409 (in progress)
 * or 422 (a different request under the same key), or take over a claim whose lease ran out.
 *
 * Constraints: a pure function of its arguments (the clock is an argument, so the tests can move it).
 * Times are milliseconds. Lesson 04 shows every answer live (run `npm run lesson 4`); lesson 05 shows
 * why "take over" needs a fencing token. Check your answer with `npm run check 04c`.
 *
 * 练习 04c · keyed Bug 库遇到见过的键时怎么做
 *
 * 目标：给定三样东西：键表里这个调用方的这个键对应的记录（也可能没有），新请求的指纹，当前时间。据
 * 此做出决定：占键，重放存下的响应，回 409（处理中）或 422（同一个键下来了另一个请求），或者接管租
 * 约已到期的占位。
 *
 * 约束：只依赖参数的纯函数（时钟也是参数，测试才能拨动它）。时间单位是毫秒。第 04 课把每种决定都现
 * 场演示一遍（`npm run lesson 4`）；第 05 课讲为什么“接管”需要 fencing token。用
 * `npm run check 04c` 检查你的答案。
 */
import type { KeyDecision, KeyRow } from "../lib/protocol/key-row.ts";

export type { KeyDecision, KeyRow };

/**
 * `row` is what the key table holds for this caller and key, or undefined. Returns one of
 * `{ kind: "claim" }`, `{ kind: "mismatch" }`, `{ kind: "replay" }`,
 * `{ kind: "in-progress", retryAfterMs }` or `{ kind: "take-over" }`.
 */
export function decideKey(row: KeyRow | undefined, fingerprint: string, now: number): KeyDecision {
  // TODO: check, in this order: no live row (none, or expired), the fingerprint, completed, the lease.
  // 待办：按这个顺序检查：有没有有效的记录（没有，或者已过期），指纹，是否已完成，租约。
  throw new Error("TODO: write decideKey (exercise 04c)");
}
