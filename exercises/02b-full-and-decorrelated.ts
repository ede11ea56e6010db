/**
 * Exercise 02b · Full Jitter and Decorrelated Jitter
 *
 * Goal: the two jittered strategies of the AWS Architecture Blog's "Exponential Backoff And Jitter"
 * (Marc Brooker, 2015) that spread a herd the most. With v_n = min(cap, base × 2^n) for retry n:
 *   Full Jitter:         sleep = uniform(0, v_n)
 *   Decorrelated Jitter: sleep = min(cap, uniform(base, 3 × prev)), prev = the previous sleep, base at first
 * Decorrelated jitter ignores the retry number: each client remembers its own previous sleep.
 *
 * Constraints: all randomness comes from the `random` argument (never Math.random), one draw per
 * wait, so the tests can feed fixed draws. Times in ms. `cappedExponentialMs` is given. Lesson 02
 * prints these schedules and runs them in the herd simulator (run `npm run lesson 2`). Check your answer
 * with `npm run check 2`.
 *
 * 练习 02b · Full Jitter 和 Decorrelated Jitter
 *
 * 目标：AWS 架构博客 "Exponential Backoff And Jitter"（Marc Brooker，2015）里，把惊群打散得最开的两
 * 种抖动写法。第 n 次重试的封顶指数值为 v_n = min(cap, base × 2^n)：
 *   Full Jitter:         sleep = uniform(0, v_n)
 *   Decorrelated Jitter: sleep = min(cap, uniform(base, 3 × prev))
 * 其中 prev 是上一次的 sleep，一开始取 base。Decorrelated Jitter 不看重试次数：每个客户端记住自己上
 * 一次的等待。
 *
 * 约束：随机数只从参数 `random` 取（不要用 Math.random），每次等待只取一次，这样测试可以喂给它固定
 * 的值。时间单位是 ms。`cappedExponentialMs` 已经写好。第 02 课会打印这些等待时间表，并放进惊群模拟
 * 器里跑（`npm run lesson 2`）。用 `npm run check 2` 检查你的答案。
 */
import type { Random } from "../lib/core/random.ts";

/** Base and cap of the capped exponential. The blog's simulator uses 5 ms and 2000 ms. */
export interface BackoffParams {
  baseMs: number;
  capMs: number;
}

/** v_n = min(cap, base × 2^n): 2 × base for the first retry (n = 1). Given. */
export function cappedExponentialMs(attempt: number, { baseMs, capMs }: BackoffParams): number {
  return Math.min(capMs, baseMs * 2 ** attempt);
}

/** Full Jitter: a wait drawn uniformly from [0, v_n) before retry `attempt`. */
export function fullJitter(attempt: number, params: BackoffParams, random: Random): number {
  // TODO: one draw, scaled onto [0, v_n).
  // 待办：取一次随机数，缩放到 [0, v_n)。
  throw new Error("TODO: write fullJitter (exercise 02b)");
}

/** Decorrelated Jitter: the next wait, min(cap, uniform(base, 3 × prevMs)). */
export function decorrelatedJitter(prevMs: number, params: BackoffParams, random: Random): number {
  // TODO: one draw, scaled onto [base, 3 × prevMs), then capped.
  // 待办：取一次随机数，缩放到 [base, 3 × prevMs)，再封顶。
  throw new Error("TODO: write decorrelatedJitter (exercise 02b)");
}

/**
 * One client's decorrelated backoff: each call returns the wait before its next retry. The client
 * remembers its previous wait, which starts at base.
 */
export function decorrelatedClient(params: BackoffParams, random: Random): () => number {
  // TODO: keep the previous wait between calls, starting at params.baseMs.
  // 待办：在两次调用之间记住上一次的等待，初始值是 params.baseMs。
  throw new Error("TODO: write decorrelatedClient (exercise 02b)");
}
