// Tests for exercise 08a. Run them with `npm run check 08a`. They test your test: red on naive, green
// on fenced, for both faults, and its "slow" must really overlap the two requests.
import assert, { AssertionError } from "node:assert/strict";
import { test } from "node:test";
import { loadExercise } from "../lib/exercise-target.ts";

const { exactlyOnce, reportsAfter } = await loadExercise<typeof import("./08a-your-fault-test.ts")>("08a-your-fault-test");

for (const fault of ["lose-response", "slow"] as const) {
  test(`under ${fault}: your test goes red on naive (it fails with an AssertionError)`, async () => {
    await assert.rejects(exactlyOnce("naive", fault), AssertionError);
  });

  test(`under ${fault}: your test passes on fenced`, async () => {
    await exactlyOnce("fenced", fault);
  });

  test(`under ${fault}: your helper counts what the database holds (naive 2, fenced 1)`, async () => {
    assert.equal(await reportsAfter("naive", fault), 2);
    assert.equal(await reportsAfter("fenced", fault), 1);
  });
}

test("your lost response is survived by key-after (it recorded the key): your test passes it", async () => {
  await exactlyOnce("key-after", "lose-response");
});

test("your slow request really runs beside the retry: your test catches key-after (2 reports)", async () => {
  assert.equal(await reportsAfter("key-after", "slow"), 2, "if the first request finished before the retry arrived, key-after would replay: release #1 only after the retry was answered");
  await assert.rejects(exactlyOnce("key-after", "slow"), AssertionError);
});
