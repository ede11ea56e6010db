/**
 * Exercise 04a · Write the test: a lost response, naive tracker against keyed (reference answer)
 *
 * Goal: the test the page asks for. Against the naive tracker, a retry after a lost response leaves 2
 * reports; against the keyed one, exactly 1.
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
  const tracker = await startTracker({ variant, faults: new Faults({ 1: "lose-response" }) });
  try {
    await fileReport({
      url: tracker.url,
      report: { title: "Login button does nothing" },
      policy: "same-key",
      maxAttempts: 2,
      timeoutMs: 100,
      random: seeded(1),
    });
    return tracker.store.countReports();
  } finally {
    await tracker.close();
  }
}

/** The test: 2 reports on `subjects.broken`, exactly 1 on `subjects.fixed`; an AssertionError if not. */
export async function lostResponseTest(
  subjects: Subjects = { broken: "naive", fixed: "keyed" },
): Promise<void> {
  assert.equal(
    await reportsAfterLostResponse(subjects.broken),
    2,
    `${subjects.broken}: a retry after a lost response should store a second report`,
  );
  assert.equal(
    await reportsAfterLostResponse(subjects.fixed),
    1,
    `${subjects.fixed}: a retry after a lost response should replay, not store again`,
  );
}
