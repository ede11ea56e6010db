/**
 * Exercise 02a · Codex's backoff: 200 ms, doubling, ±10 % (reference answer)
 *
 * Goal: the course page's exercise. Codex's sampling layer, the loop that sends a whole model
 * request again when its answer's stream fails (lesson 03), waits backoff(attempt) = 200 ms ×
 * 2^(attempt−1) × uniform[0.9, 1.1) before each retry (openai/codex, `codex-rs/core/src/util.rs`).
 * What is the nominal wait (no jitter) before the 4th retry? 1600 ms.
 */
import type { Random } from "../lib/core/random.ts";

/** `INITIAL_DELAY_MS` in codex-rs/core/src/util.rs. */
export const INITIAL_DELAY_MS = 200;
/** `BACKOFF_FACTOR` in codex-rs/core/src/util.rs. */
export const BACKOFF_FACTOR = 2;

/** The wait before retry `attempt` (1 for the first retry) without jitter, in ms. */
export function nominalBackoffMs(attempt: number): number {
  // attempt.saturating_sub(1) in Rust: attempt 0 waits like attempt 1.
  return INITIAL_DELAY_MS * BACKOFF_FACTOR ** Math.max(0, attempt - 1);
}

/** The wait Codex sleeps before retry `attempt`: the nominal wait times a factor uniform in [0.9, 1.1). */
export function codexBackoff(attempt: number, random: Random): number {
  const jitter = 0.9 + 0.2 * random(); // rand::rng().random_range(0.9..1.1)
  return nominalBackoffMs(attempt) * jitter;
}
