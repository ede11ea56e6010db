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
 */
import type { Random } from "../lib/core/random.ts";

/** `INITIAL_DELAY_MS` in codex-rs/core/src/util.rs. */
export const INITIAL_DELAY_MS = 200;
/** `BACKOFF_FACTOR` in codex-rs/core/src/util.rs. */
export const BACKOFF_FACTOR = 2;

/** The wait before retry `attempt` (1 for the first retry) without jitter, in ms. */
export function nominalBackoffMs(attempt: number): number {
  // TODO: INITIAL_DELAY_MS, multiplied by BACKOFF_FACTOR once for each retry after the first.
  throw new Error("TODO: write nominalBackoffMs (exercise 02a)");
}

/** The wait Codex sleeps before retry `attempt`: the nominal wait times a factor uniform in [0.9, 1.1). */
export function codexBackoff(attempt: number, random: Random): number {
  // TODO: one draw from `random`, turned into a factor in [0.9, 1.1), times the nominal wait.
  throw new Error("TODO: write codexBackoff (exercise 02a)");
}
