/**
 * What a keyed tracker does with a request, given what its key table holds for the caller's key: a
 * pure function of the stored row, the request's fingerprint and the clock, so that every rule can
 * be tested without a server (and written by the learner, exercise 04c).
 *
 * The order of the checks is the design:
 *   1. no row, or a row past its TTL            → claim   (a new operation; an expired key is new)
 *   2. a different fingerprint                   → 422     (checked before "in progress": a misused
 *                                                            key is the client's bug, whatever state)
 *   3. completed                                 → replay  (the stored status and body, errors too)
 *   4. in progress, lease still running          → 409     (+ Retry-After: when the lease ends)
 *   5. in progress, lease run out                → take over (the holder is presumed dead)
 *
 * Step 5 is a guess from time alone: a holder that is only slow (paused past its lease) is still
 * alive. The `fenced` variant adds a check at completion for that case; the decision stays the same.
 */

import type { KeyDecision, KeyRow } from "./key-row.ts";

export type { KeyDecision, KeyRow };

export function decideKey(row: KeyRow | undefined, fingerprint: string, now: number): KeyDecision {
  if (row === undefined || now >= row.expiresAt) return { kind: "claim" };
  if (row.fingerprint !== fingerprint) return { kind: "mismatch" };
  if (row.state === "completed") return { kind: "replay" };
  if (now < row.leaseUntil) return { kind: "in-progress", retryAfterMs: row.leaseUntil - now };
  return { kind: "take-over" };
}
