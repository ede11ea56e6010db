/**
 * Exercise 02b · Full Jitter and Decorrelated Jitter (reference answer)
 *
 * Goal: the two jittered strategies of the AWS Architecture Blog's "Exponential Backoff And Jitter"
 * (Marc Brooker, 2015) that spread a herd the most. With v_n = min(cap, base × 2^n) for retry n:
 *   Full Jitter:         sleep = uniform(0, v_n)
 *   Decorrelated Jitter: sleep = min(cap, uniform(base, 3 × prev)), prev = the previous sleep, base at first
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
  return cappedExponentialMs(attempt, params) * random();
}

/** Decorrelated Jitter: the next wait, min(cap, uniform(base, 3 × prevMs)). */
export function decorrelatedJitter(prevMs: number, params: BackoffParams, random: Random): number {
  const { baseMs, capMs } = params;
  return Math.min(capMs, baseMs + (3 * prevMs - baseMs) * random());
}

/**
 * One client's decorrelated backoff: each call returns the wait before its next retry. The client
 * remembers its previous wait, which starts at base.
 */
export function decorrelatedClient(params: BackoffParams, random: Random): () => number {
  let prevMs = params.baseMs;
  return () => {
    prevMs = decorrelatedJitter(prevMs, params, random);
    return prevMs;
  };
}
