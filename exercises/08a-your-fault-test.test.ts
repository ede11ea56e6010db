// Tests for exercise 08a. Run them with `npm run check 08a`. They test your test: red on naive, green
// on fenced, for both faults, and its "slow" must really overlap the two requests.
import assert, { AssertionError } from "node:assert/strict";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";
import { Faults, type Stage } from "../lib/tracker/faults.ts";
import { ReportStore } from "../lib/tracker/store.ts";

const { exactlyOnce, reportsAfter } =
  await loadExercise<typeof import("./08a-your-fault-test.ts")>("08a-your-fault-test");

// An unlucky scheduler, so that your test cannot pass by luck. On a quiet machine request #1, once let
// go, finishes in a moment, and a test that counts the reports without waiting for it usually counts
// after it anyway. Here request #1, once let go, goes on only when your code says it waits for it
// (`faults.reached(1, …)` for a stage after the hold); if your code counts first, it counts without it.
// (Should nobody ever ask or read, it goes on after a while, so that your tracker can still close.)
const ASKING: readonly Stage[] = ["committed", "handled", "answered", "finished"];
const asked = new WeakSet<Faults>();
const heldBack = new Set<() => void>();
const hold = Faults.prototype.hold;
Faults.prototype.hold = function (this: Faults, requestNo: number) {
  const woken = hold.call(this, requestNo);
  if (requestNo !== 1) return woken;
  return woken.then(
    (wake) =>
      new Promise((resolve) => {
        if (asked.has(this)) return resolve(wake);
        const go = (): void => {
          heldBack.delete(go);
          clearTimeout(backstop);
          resolve(wake);
        };
        // The backstop decides no order that a verdict rests on: every read of the reports and every
        // wait for a later stage of request #1 lets it go first. Only a test that does neither, such
        // as one awaiting request #1's own answer, meets it, and is merely slower by it.
        const backstop = setTimeout(go, 2_000);
        heldBack.add(go);
      }),
  );
};
const reached = Faults.prototype.reached;
Faults.prototype.reached = function (this: Faults, requestNo: number, stage: Stage) {
  if (requestNo === 1 && ASKING.includes(stage)) {
    asked.add(this);
    for (const go of [...heldBack]) go();
  }
  return reached.call(this, requestNo, stage);
};
// Every way of reading the reports (the store's count, GET /reports and its pages, a title search)
// reads first, without request #1 if it is still held back, and only then lets it go.
for (const name of ["countReports", "listReports", "page", "findByTitle"] as const) {
  const read = ReportStore.prototype[name] as (this: ReportStore, ...args: unknown[]) => unknown;
  (ReportStore.prototype as unknown as Record<string, unknown>)[name] = function (
    this: ReportStore,
    ...args: unknown[]
  ) {
    const result = read.apply(this, args);
    for (const go of [...heldBack]) go();
    return result;
  };
}

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

for (const fault of ["lose-response", "slow"] as const) {
  test(
    t("under {fault}: your test goes red on naive (it fails with an AssertionError)", { fault }),
    async () => {
      await goesRed(
        exactlyOnce("naive", fault),
        t(
          'exactlyOnce("naive", "{fault}") passed: the naive tracker stores the retry as a second report, and a test that cannot see that proves nothing',
          { fault },
        ),
      );
    },
  );

  test(t("under {fault}: your test passes on fenced", { fault }), async () => {
    await exactlyOnce("fenced", fault);
  });

  test(
    t("under {fault}: your helper counts what the database holds (naive 2, fenced 1)", { fault }),
    async () => {
      assert.equal(
        await reportsAfter("naive", fault),
        2,
        t(
          'reportsAfter("naive", "{fault}"): the naive tracker stores the first request and the retry, and the count must see both',
          { fault },
        ),
      );
      assert.equal(
        await reportsAfter("fenced", fault),
        1,
        t('reportsAfter("fenced", "{fault}"): the fenced tracker keeps one report for one key', {
          fault,
        }),
      );
    },
  );
}

test(
  t("your lost response is survived by key-after (it recorded the key): your test passes it"),
  async () => {
    await exactlyOnce("key-after", "lose-response");
  },
);

test(
  t("your slow request really runs beside the retry: your test catches key-after (2 reports)"),
  async () => {
    assert.equal(
      await reportsAfter("key-after", "slow"),
      2,
      t(
        'reportsAfter("key-after", "slow") must be 2: if the first request finished before the retry arrived, key-after would replay; release #1 only after the retry was answered',
      ),
    );
    await goesRed(
      exactlyOnce("key-after", "slow"),
      t(
        'exactlyOnce("key-after", "slow") passed: key-after stores a second report when the retry arrives while the first request still runs, and your test must catch it',
      ),
    );
  },
);
