/**
 * Exercise 02a · Codex's backoff: 200 ms, doubling, ±10 %
 *
 * Goal: the course page's exercise. Codex's sampling layer, the loop that sends a whole model
 * request again when its answer's stream fails (lesson 03), waits backoff(attempt) = 200 ms ×
 * 2^(attempt−1) × uniform[0.9, 1.1) before each retry (openai/codex, `codex-rs/core/src/util.rs`).
 * What is the nominal wait (no jitter) before the 4th retry? Write the two functions and let the tests
 * tell you whether your answer comes out.
 *
 * Constraints: pure functions. All randomness comes from the `random` argument (never Math.random),
 * one draw per wait, so the tests can feed fixed draws. Return milliseconds as a plain number: no need
 * to round to whole milliseconds as the Rust code does. No cap: Codex has none. Lesson 02 prints
 * Codex's schedule (run `npm run lesson 2`). Check your answer with `npm run check 2`.
 *
 * 练习 02a · Codex 的退避：200 ms 起，每次翻倍，±10 %
 *
 * 目标：课程页上的那道练习。Codex 的采样层（模型响应的流断了，就把整个模型请求重发一遍的那个循环，
 * 第 03 课）每次重试前等待 backoff(attempt) = 200 ms × 2^(attempt−1) × uniform[0.9, 1.1)
 * （openai/codex，`codex-rs/core/src/util.rs`）。第 4 次重试前的名义等待（不算抖动）是多少毫秒？写
 * 出这两个函数，让测试告诉你算得对不对。
 *
 * 约束：纯函数。随机数只从参数 `random` 取（不要用 Math.random），每次等待只取一次，这样测试可以喂
 * 给它固定的值。返回毫秒数，普通的 number 就行，不用像 Rust 代码那样取整到毫秒。不封顶：Codex 本来
 * 就不封顶。第 02 课会打印 Codex 的等待时间表（`npm run lesson 2`）。用 `npm run check 2` 检查你的
 * 答案。
 */
import type { Random } from "../lib/core/random.ts";

/** `INITIAL_DELAY_MS` in codex-rs/core/src/util.rs. */
export const INITIAL_DELAY_MS = 200;
/** `BACKOFF_FACTOR` in codex-rs/core/src/util.rs. */
export const BACKOFF_FACTOR = 2;

/** The wait before retry `attempt` (1 for the first retry) without jitter, in ms. */
export function nominalBackoffMs(attempt: number): number {
  // TODO: INITIAL_DELAY_MS, multiplied by BACKOFF_FACTOR once for each retry after the first.
  // 待办：INITIAL_DELAY_MS，第一次之后每多一次重试，就再乘一次 BACKOFF_FACTOR。
  throw new Error("TODO: write nominalBackoffMs (exercise 02a)");
}

/** The wait Codex sleeps before retry `attempt`: the nominal wait times a factor uniform in [0.9, 1.1). */
export function codexBackoff(attempt: number, random: Random): number {
  // TODO: one draw from `random`, turned into a factor in [0.9, 1.1), times the nominal wait.
  // 待办：从 `random` 取一次，变成 [0.9, 1.1) 里的系数，再乘上名义等待。
  throw new Error("TODO: write codexBackoff (exercise 02a)");
}
