// Tests for exercise 04a. Run them with `npm run check 04a`. They test your test: it must pass on the
// real trackers and go red when a tracker does not behave as it claims.
import assert, { AssertionError } from "node:assert/strict";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { lostResponseTest, reportsAfterLostResponse } =
  await loadExercise<typeof import("./04a-lost-response-test.ts")>("04a-lost-response-test");

/**
 * Your test must fail with an AssertionError. Any other error (a TODO still there, a TypeError) is
 * passed on as it is: that is the thing to fix first.
 */
async function goesRed(run: Promise<void>, why: string): Promise<void> {
  try {
    await run;
  } catch (err) {
    if (err instanceof AssertionError) return;
    throw err;
  }
  assert.fail(why);
}

test(t("your test passes: naive is red (2 reports), keyed is green (exactly 1)"), async () => {
  await lostResponseTest();
  await lostResponseTest({ broken: "naive", fixed: "keyed" });
});

test(t("your helper counts what the database holds"), async () => {
  assert.equal(
    await reportsAfterLostResponse("naive"),
    2,
    t(
      'reportsAfterLostResponse("naive"): the naive tracker stores the retry as a second report, and the count must show it',
    ),
  );
  assert.equal(
    await reportsAfterLostResponse("keyed"),
    1,
    t(
      'reportsAfterLostResponse("keyed"): the keyed tracker replays the stored answer to the retry, so the database holds one report',
    ),
  );
});

test(t("your test goes red when the fix is missing (naive in place of keyed)"), async () => {
  await goesRed(
    lostResponseTest({ broken: "naive", fixed: "naive" }),
    t(
      "lostResponseTest passed with naive as the fixed tracker: a test that cannot go red on the broken tracker proves nothing",
    ),
  );
});

test(
  t("your test goes red when the broken tracker is not broken (keyed in place of naive)"),
  async () => {
    await goesRed(
      lostResponseTest({ broken: "keyed", fixed: "keyed" }),
      t(
        "lostResponseTest passed with keyed as the broken tracker: the test must also check that the broken one really leaves 2 reports",
      ),
    );
  },
);

test(
  t("a lost response alone does not break key-after: your test passes with it as the fix"),
  async () => {
    await lostResponseTest({ broken: "naive", fixed: "key-after" });
  },
);
