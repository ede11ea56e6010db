/**
 * Exercise 08a · Your own fault-injection test
 *
 * Goal: the test the course asks for, written once for any tracker. Inject a fault on the server for
 * request #1, let the agent make its one logical call with one key reused on every retry, and assert
 * that the database holds exactly one report. Two faults: "lose-response" (committed, the answer
 * lost) and "slow" (the first request still runs when the retry arrives).
 *
 * Your test is tested the way the matrix of lesson 08 is read: it must go red on naive and green on
 * fenced, for both faults. And its "slow" must really run the two requests side by side: key-after
 * survives a lost response but not a retry that arrives while the first request is still working, so
 * your test must catch key-after under "slow" and let it pass under "lose-response".
 *
 * Constraints: a real tracker on 127.0.0.1 per run (`startTracker`, in memory is fine); order events
 * with the fault's gates (`faults.reached`, `faults.release`), never with sleeps; node:assert, whose
 * failures are AssertionErrors. Lesson 08 runs these cells (npm run lesson 8 -- --fault slow). Check
 * your answer with `npm run check 08a`.
 */
import assert from "node:assert/strict";
import { fileReport } from "../lib/client/client.ts";
import { seeded } from "../lib/core/random.ts";
import { Faults } from "../lib/tracker/faults.ts";
import { startTracker } from "../lib/tracker/service.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

export type TestedFault = "lose-response" | "slow";

/**
 * Starts a tracker of `variant` with `fault` on request #1, runs the agent's same-key call to its end
 * (for "slow", lets request #1 go on once the retry has been answered), waits until request #1 is
 * over, and returns how many reports the database holds.
 */
export async function reportsAfter(variant: VariantName, fault: TestedFault): Promise<number> {
  // TODO: start the tracker with the fault, run the call, steer "slow" with the gates, count, close.
  throw new Error("TODO: write reportsAfter (exercise 08a)");
}

/** The test: exactly one report after `fault`; an AssertionError if not. */
export async function exactlyOnce(variant: VariantName, fault: TestedFault): Promise<void> {
  // TODO: assert that reportsAfter gives exactly 1.
  throw new Error("TODO: write exactlyOnce (exercise 08a)");
}
