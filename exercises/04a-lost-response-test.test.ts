// Tests for exercise 04a. Run them with `npm run check 04a`. They test your test: it must pass on the
// real trackers and go red when a tracker does not behave as it claims.
import assert, { AssertionError } from "node:assert/strict";
import { test } from "node:test";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { lostResponseTest, reportsAfterLostResponse } =
  await loadExercise<typeof import("./04a-lost-response-test.ts")>("04a-lost-response-test");

test("your test passes: naive is red (2 reports), keyed is green (exactly 1)", async () => {
  await lostResponseTest();
  await lostResponseTest({ broken: "naive", fixed: "keyed" });
});

test("your helper counts what the database holds", async () => {
  assert.equal(await reportsAfterLostResponse("naive"), 2);
  assert.equal(await reportsAfterLostResponse("keyed"), 1);
});

test("your test goes red when the fix is missing (naive in place of keyed)", async () => {
  await assert.rejects(lostResponseTest({ broken: "naive", fixed: "naive" }), AssertionError);
});

test("your test goes red when the broken tracker is not broken (keyed in place of naive)", async () => {
  await assert.rejects(lostResponseTest({ broken: "keyed", fixed: "keyed" }), AssertionError);
});

test("a lost response alone does not break key-after: your test passes with it as the fix", async () => {
  await lostResponseTest({ broken: "naive", fixed: "key-after" });
});
