/**
 * A clock for the tracker that moves only by the time the agent spent: each attempt's timeout when
 * it gave up on an answer, and each wait before a retry (a backoff, or the wait a 409 asked for).
 * Nothing else moves it: not the host's scheduling, not a tracker process's start-up, not a --step
 * pause. So a lease runs out exactly when the agent has waited long enough for it to, on every
 * machine, and the same seed prints the same trace.
 *
 * Use: start the tracker with `now: clock.now` (or a child tracker with `clockMs: clock.now()` and
 * `setClock`), and call `clock.advance(last, waitedMs)` from the agent's `beforeRetry`.
 */
import type { Attempt } from "../client/client.ts";

export interface PacedClock {
  /** The tracker's time, ms. */
  now(): number;
  /** Moves the clock by what the agent spent after attempt `last`; returns the new time. */
  advance(last: Attempt, waitedMs: number): number;
}

export function pacedClock(startMs = 0): PacedClock {
  let t = startMs;
  return {
    now: () => t,
    advance(last, waitedMs) {
      t += (last.outcome.kind === "timeout" ? last.outcome.limitMs : 0) + waitedMs;
      return t;
    },
  };
}
