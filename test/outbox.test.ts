// Lesson 07's machinery: the tracker's side-effect hooks, the outbox row in the report's transaction,
// the dispatcher in a real child process killed with SIGKILL between "accepted" and "marked sent",
// and the notifier deduplicating the redelivery.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileReport } from "../lib/client/client.ts";
import { seeded } from "../lib/core/random.ts";
import { runCell } from "../lib/matrix/matrix.ts";
import { runDispatcher } from "../lib/outbox/dispatcher.ts";
import { type Notifier, startNotifier } from "../lib/outbox/notifier.ts";
import { type NotifyConfig, notifyEffects } from "../lib/outbox/notify-effects.ts";
import { outboxOf, outboxRowsIn } from "../lib/outbox/outbox.ts";
import { startTracker } from "../lib/tracker/service.ts";
import { ReportStore } from "../lib/tracker/store.ts";

const dir = mkdtempSync(join(tmpdir(), "outbox-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const dbPath = (name: string): string => join(dir, `${++files}-${name}`);

async function withNotifier<T>(fn: (n: Notifier) => Promise<T>): Promise<T> {
  const n = await startNotifier();
  try {
    return await fn(n);
  } finally {
    await n.close();
  }
}

test("a hook that throws inside the insert's transaction rolls the report back", () => {
  const store = new ReportStore(":memory:");
  store.onInsert(() => {
    throw new Error("the outbox is full");
  });
  assert.throws(
    () => store.transaction(() => store.insertReport({ title: "x" })),
    /outbox is full/,
  );
  assert.equal(store.countReports(), 0);
  store.close();
});

test("the outbox row is written in the report's transaction; a replayed retry writes none", () =>
  withNotifier(async (notifier) => {
    const db = dbPath("t.sqlite");
    const tracker = await startTracker({
      variant: "fenced",
      db,
      sideEffects: notifyEffects({ notifierUrl: notifier.url, outbox: true }),
    });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await fileReport({
          url: tracker.url,
          report: { title: "Login button does nothing" },
          policy: "same-key",
          timeoutMs: 5_000,
          random: seeded(1),
        });
        assert.equal(r.ok, true);
      }
      assert.equal(tracker.store.countReports(), 1);
      assert.deepEqual(
        outboxOf(tracker.store)
          .all()
          .map((r) => [r.reportId, r.state]),
        [[1, "to_send"]],
      );
      assert.equal(notifier.delivered().length, 0, "nothing is sent while the request runs");
    } finally {
      await tracker.close();
    }
  }));

test("the fence guards the row: a paused holder leaves 2 reports and 2 rows on keyed, 1 and 1 on fenced", () =>
  withNotifier(async (notifier) => {
    const notify: NotifyConfig = { notifierUrl: notifier.url, outbox: true };
    const keyed = await runCell("keyed", "pause-past-lease", { dbPath, notify });
    const fenced = await runCell("fenced", "pause-past-lease", { dbPath, notify });
    assert.deepEqual([keyed.reports, outboxRowsIn(keyed.db).length], [2, 2]);
    assert.deepEqual([fenced.reports, outboxRowsIn(fenced.db).length], [1, 1]);
  }));

for (const withKey of [false, true]) {
  test(`the dispatcher killed (SIGKILL) after the notifier accepted: redelivered ${withKey ? "with its key, deduplicated: one notification" : "without a key: two"}`, () =>
    withNotifier(async (notifier) => {
      const cell = await runCell("fenced", "lose-response", {
        dbPath,
        notify: { notifierUrl: notifier.url, outbox: true },
      });
      const killed = await runDispatcher({
        db: cell.db,
        notifierUrl: notifier.url,
        withKey,
        killAfterAccepted: true,
      });
      assert.deepEqual(killed.exit, { code: null, signal: "SIGKILL" });
      assert.equal(killed.killed, true);
      assert.equal(notifier.delivered().length, 1, "the notifier had accepted it");
      assert.deepEqual(
        outboxRowsIn(cell.db).map((r) => r.state),
        ["to_send"],
        "the kill came before the row was marked",
      );
      const again = await runDispatcher({ db: cell.db, notifierUrl: notifier.url, withKey });
      assert.deepEqual(again.exit, { code: 0, signal: null });
      assert.equal(again.delivered, 1);
      assert.deepEqual(
        outboxRowsIn(cell.db).map((r) => r.state),
        ["sent"],
      );
      assert.equal(notifier.delivered().length, withKey ? 1 : 2);
      assert.equal(notifier.deduplicated, withKey ? 1 : 0);
      assert.equal(notifier.delivered().filter((n) => n.duplicate).length, withKey ? 0 : 1);
    }));
}

test("inline, before the commit, killed in between: a notification for a report that does not exist, then a second", () =>
  withNotifier(async (notifier) => {
    let atCrash: [number, number] | undefined;
    const cell = await runCell("fenced", "crash-before-commit", {
      dbPath,
      leaseMs: 300,
      notify: { notifierUrl: notifier.url, inline: "before-commit" },
      atCrash: (db) => {
        const store = new ReportStore(db);
        atCrash = [notifier.delivered().length, store.countReports()];
        store.close();
      },
    });
    assert.deepEqual(atCrash, [1, 0], "at the crash: one notification, no report");
    assert.equal(cell.reports, 1);
    assert.equal(notifier.delivered().length, 2);
    assert.equal(notifier.delivered()[1]!.duplicate, true);
  }));

test("inline with the request's key passed downstream: the retry's call is deduplicated, one notification", () =>
  withNotifier(async (notifier) => {
    const cell = await runCell("fenced", "crash-before-commit", {
      dbPath,
      leaseMs: 300,
      notify: { notifierUrl: notifier.url, inline: "before-commit", passKey: true },
    });
    assert.equal(cell.reports, 1);
    assert.equal(notifier.delivered().length, 1);
    assert.equal(notifier.deduplicated, 1);
  }));

test("inline, after the commit, killed in between: the replayed retry notifies nobody", () =>
  withNotifier(async (notifier) => {
    const cell = await runCell("fenced", "crash-between-commits", {
      dbPath,
      notify: { notifierUrl: notifier.url, inline: "after-commit" },
    });
    assert.equal(cell.reports, 1);
    assert.equal(cell.calls[0]!.at(-1), "201 replayed");
    assert.equal(notifier.delivered().length, 0);
  }));

test("inline, after the commit, no crash: exactly one notification, naming the stored report", () =>
  withNotifier(async (notifier) => {
    const tracker = await startTracker({
      variant: "naive",
      sideEffects: notifyEffects({ notifierUrl: notifier.url, inline: "after-commit" }),
    });
    try {
      await fileReport({
        url: tracker.url,
        report: { title: "Logout hangs" },
        policy: "no-retry",
        timeoutMs: 5_000,
        random: seeded(1),
      });
      assert.deepEqual(
        notifier.delivered().map((n) => [n.subject, n.reportId]),
        [["New bug report: Logout hangs", 1]],
      );
    } finally {
      await tracker.close();
    }
  }));
