/**
 * Exercise 08a · Your own fault-injection test (reference answer)
 *
 * Goal: the test the course asks for, written once for any tracker. Inject a fault on the server for
 * request #1, let the agent make its one logical call with one key reused on every retry, and assert
 * that the database holds exactly one report.
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
  const faults = new Faults({ 1: fault });
  const tracker = await startTracker({ variant, faults, leaseMs: 300 });
  try {
    const call = fileReport({
      url: tracker.url,
      report: { title: "Login button does nothing" },
      policy: "same-key",
      maxAttempts: 4,
      timeoutMs: 100,
      random: seeded(1),
      // A retry after a 409 goes out once the first request is over.
      beforeRetry: async (retry) => {
        if (retry >= 2) await faults.reached(1, "handled");
      },
    });
    if (fault === "slow") {
      // The retry arrives while #1 is held; once it has its answer, #1 goes on.
      await faults.reached(2, "answered");
      faults.release(1);
    }
    await call;
    await faults.reached(1, "handled");
    return tracker.store.countReports();
  } finally {
    await tracker.close();
  }
}

/** The test: exactly one report after `fault`; an AssertionError if not. */
export async function exactlyOnce(variant: VariantName, fault: TestedFault): Promise<void> {
  assert.equal(
    await reportsAfter(variant, fault),
    1,
    `${variant} under ${fault}: one logical call must leave exactly one report`,
  );
}
