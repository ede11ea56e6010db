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
  throw new Error("TODO: write fullJitter (exercise 02b)");
}

/** Decorrelated Jitter: the next wait, min(cap, uniform(base, 3 × prevMs)). */
export function decorrelatedJitter(prevMs: number, params: BackoffParams, random: Random): number {
  // TODO: one draw, scaled onto [base, 3 × prevMs), then capped.
  throw new Error("TODO: write decorrelatedJitter (exercise 02b)");
}

/**
 * One client's decorrelated backoff: each call returns the wait before its next retry. The client
 * remembers its previous wait, which starts at base.
 */
export function decorrelatedClient(params: BackoffParams, random: Random): () => number {
  // TODO: keep the previous wait between calls, starting at params.baseMs.
  throw new Error("TODO: write decorrelatedClient (exercise 02b)");
}
