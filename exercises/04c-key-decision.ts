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
 */
import type { KeyDecision, KeyRow } from "../lib/protocol/key-decision.ts";

export type { KeyDecision, KeyRow };

/**
 * `row` is what the key table holds for this caller and key, or undefined. Returns one of
 * `{ kind: "claim" }`, `{ kind: "mismatch" }`, `{ kind: "replay" }`,
 * `{ kind: "in-progress", retryAfterMs }` or `{ kind: "take-over" }`.
 */
export function decideKey(row: KeyRow | undefined, fingerprint: string, now: number): KeyDecision {
  // TODO: check, in this order: no live row (none, or expired), the fingerprint, completed, the lease.
  throw new Error("TODO: write decideKey (exercise 04c)");
}
