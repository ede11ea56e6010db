// Tests for exercise 07a. Run them with `npm run check 07a`. Your dispatcher runs against a real
// notifier over loopback and a real SQLite outbox; a crash is a throw from `afterAccepted`.
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { t } from "../lib/core/i18n.ts";
import { type Notifier, startNotifier } from "../lib/outbox/notifier.ts";
import { type OutboxRow, outboxOf } from "../lib/outbox/outbox.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";
import { ReportStore } from "../lib/tracker/store.ts";

const { dispatch, rowKey } =
  await loadExercise<typeof import("./07a-outbox-dispatcher.ts")>("07a-outbox-dispatcher");

// A fresh notifier for each test: every test's database numbers its rows from 1 again, and a
// notifier remembers the keys it has seen.
let notifier: Notifier;
beforeEach(async () => {
  notifier = await startNotifier();
});
afterEach(() => notifier.close());

/** A fresh tracker database holding `titles.length` reports, each with its outbox row. */
function outboxWith(...titles: string[]): ReportStore {
  const store = new ReportStore(":memory:");
  for (const title of titles)
    store.transaction(() => outboxOf(store).add(store.insertReport({ title })));
  return store;
}
/** One pass of your dispatcher over `store`'s outbox. */
const pass = (
  store: ReportStore,
  notifierUrl = notifier.url,
  afterAccepted?: (row: OutboxRow) => void,
) =>
  dispatch({
    store,
    outbox: outboxOf(store),
    notifierUrl,
    ...(afterAccepted ? { afterAccepted } : {}),
  });
/** The rows' states must be `expected`; `why` says why. */
function states(store: ReportStore, expected: string[], why: string): void {
  assert.deepEqual(
    outboxOf(store)
      .all()
      .map((r) => r.state),
    expected,
    t("the outbox rows' states: {why}", { why }),
  );
}
/** Notifications delivered since `from`, by subject. */
const deliveredSince = (from: number) =>
  notifier
    .delivered()
    .slice(from)
    .map((n) => n.subject);

test(t("rowKey names the row: the same on every pass, different for different rows"), () => {
  const store = outboxWith("a", "b");
  const [a, b] = outboxOf(store).all() as [OutboxRow, OutboxRow];
  assert.equal(
    typeof rowKey(a),
    "string",
    t("rowKey must return a string: it goes in the Idempotency-Key header"),
  );
  assert.equal(
    rowKey(a),
    rowKey({ ...a }),
    t(
      "rowKey gave two keys for one row: a redelivery must carry the same key, or the notifier sees a new notification",
    ),
  );
  assert.notEqual(
    rowKey(a),
    rowKey(b),
    t(
      "two rows got one key: the notifier would take the second row for a redelivery of the first and drop it",
    ),
  );
  assert.ok(
    rowKey(a).length >= 1 && rowKey(a).length <= 255 && /^[\x21-\x7e]+$/.test(rowKey(a)),
    t(
      "rowKey gave {key}: a key the notifier accepts is 1-255 printable characters, with no spaces",
      { key: JSON.stringify(rowKey(a)) },
    ),
  );
  store.close();
});

test(t("every row is delivered once and marked sent; a second pass sends nothing"), async () => {
  const store = outboxWith("Login button does nothing", "Logout hangs", "Search ignores accents");
  const from = notifier.delivered().length;
  assert.equal(
    await pass(store),
    3,
    t("dispatch must return how many rows this pass marked sent: all 3"),
  );
  assert.deepEqual(
    deliveredSince(from),
    [
      "New bug report: Login button does nothing",
      "New bug report: Logout hangs",
      "New bug report: Search ignores accents",
    ],
    t("the maintainer must receive each row's notification once, oldest first"),
  );
  states(store, ["sent", "sent", "sent"], t("every row the notifier accepted is marked sent"));
  assert.equal(
    await pass(store),
    0,
    t("a second pass must find nothing to send: every row is sent"),
  );
  assert.equal(notifier.delivered().length, from + 3, t("a second pass must deliver nothing more"));
  store.close();
});

test(t("a row is marked sent only after the notifier accepted it"), async () => {
  const store = outboxWith("Crash on save");
  const seen: string[] = [];
  await pass(store, notifier.url, (row) => {
    seen.push(
      outboxOf(store)
        .all()
        .find((r) => r.id === row.id)!.state,
    );
    assert.ok(
      notifier.delivered().some((n) => n.reportId === row.reportId),
      t(
        "afterAccepted was called before the notifier delivered the row: call it only once the notifier answered 2xx",
      ),
    );
  });
  assert.deepEqual(
    seen,
    ["to_send"],
    t("the row must still be 'to_send' when afterAccepted runs: mark it sent after, not before"),
  );
  states(store, ["sent"], t("after afterAccepted, the row is marked sent"));
  store.close();
});

test(
  t(
    "killed after the notifier accepted a row: the next pass sends it again, and the maintainer reads it once",
  ),
  async () => {
    const store = outboxWith("Upload fails over 10 MB", "Dark mode flickers");
    const from = notifier.delivered().length;
    const replaysBefore = notifier.deduplicated;
    await assert.rejects(
      pass(store, notifier.url, () => {
        throw new Error("killed (SIGKILL) before marking the row sent");
      }),
      /killed/,
      t(
        "the crash thrown from afterAccepted must reach dispatch's caller, as a SIGKILL would stop the dispatcher",
      ),
    );
    states(
      store,
      ["to_send", "to_send"],
      t("the crash came before the row was marked, so both rows are still to send"),
    );
    assert.equal(
      await pass(store),
      2,
      t("the next pass must send both rows, the one already accepted included"),
    );
    states(store, ["sent", "sent"], t("after the next pass both rows are sent"));
    assert.deepEqual(
      deliveredSince(from),
      ["New bug report: Upload fails over 10 MB", "New bug report: Dark mode flickers"],
      t(
        "the first row was delivered twice: the redelivery must carry the same key, so the notifier answers it from its store",
      ),
    );
    assert.equal(
      notifier.deduplicated,
      replaysBefore + 1,
      t("the notifier must have answered one redelivery from its key"),
    );
    store.close();
  },
);

test(t("a row the notifier did not accept stays 'to_send' for the next pass"), async () => {
  const gone = await startNotifier();
  const deadUrl = gone.url;
  await gone.close(); // nothing listens there any more: connection refused
  const store = outboxWith("Printer icon missing");
  assert.equal(
    await pass(store, deadUrl),
    0,
    t("no notifier answered, so this pass marked nothing sent"),
  );
  states(store, ["to_send"], t("a row nobody accepted stays 'to_send', for the next pass"));
  const from = notifier.delivered().length;
  assert.equal(await pass(store), 1, t("the next pass, with the notifier up, sends the row"));
  assert.deepEqual(
    deliveredSince(from),
    ["New bug report: Printer icon missing"],
    t("the maintainer receives the row that waited"),
  );
  store.close();
});
