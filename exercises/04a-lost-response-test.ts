/**
 * Exercise 04a · Write the test: a lost response, naive tracker against keyed
 *
 * Goal: the test the page asks for. Against the naive tracker, a retry after a lost response leaves 2
 * reports; against the keyed one, exactly 1. The agent is the same in both: it sends one
 * Idempotency-Key and reuses it (the naive tracker ignores it).
 *
 * Your test is tested in turn, the way a test should be: it must pass on the real trackers, and it
 * must fail, with an AssertionError, when the "fixed" tracker is not fixed or the "broken" one is not
 * broken. A test that cannot go red proves nothing.
 *
 * Constraints: a real tracker on 127.0.0.1 per run (`startTracker`, in memory is fine), the server-side
 * fault `lose-response` on request #1, no sleeps. Lesson 04, section 1, runs this case (run
 * `npm run lesson 4`). Check your answer with `npm run check 04a`.
 */
import assert from "node:assert/strict";
import { fileReport } from "../lib/client/client.ts";
import { seeded } from "../lib/core/random.ts";
import { Faults } from "../lib/tracker/faults.ts";
import { startTracker } from "../lib/tracker/service.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

/** Which tracker should fail the check (2 reports) and which should pass it (exactly 1). */
export interface Subjects {
  broken: VariantName;
  fixed: VariantName;
}

/**
 * Starts a tracker of `variant` that loses its answer to request #1, files one report through a
 * same-key agent that retries after its timeout, and returns how many reports the database holds.
 */
export async function reportsAfterLostResponse(variant: VariantName): Promise<number> {
  // TODO: start the tracker with the fault, file one report, count, and close the tracker.
  throw new Error("TODO: write reportsAfterLostResponse (exercise 04a)");
}

/** The test: 2 reports on `subjects.broken`, exactly 1 on `subjects.fixed`; an AssertionError if not. */
export async function lostResponseTest(
  subjects: Subjects = { broken: "naive", fixed: "keyed" },
): Promise<void> {
  // TODO: assert what reportsAfterLostResponse returns for each subject.
  throw new Error("TODO: write lostResponseTest (exercise 04a)");
}
