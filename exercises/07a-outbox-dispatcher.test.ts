// Tests for exercise 07a. Run them with `npm run check 07a`. Your dispatcher runs against a real
// notifier over loopback and a real SQLite outbox; a crash is a throw from `afterAccepted`.
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
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
const states = (store: ReportStore) =>
  outboxOf(store)
    .all()
    .map((r) => r.state);
/** Notifications delivered since `from`, by subject. */
const deliveredSince = (from: number) =>
  notifier
    .delivered()
    .slice(from)
    .map((n) => n.subject);

test("rowKey names the row: the same on every pass, different for different rows", () => {
  const store = outboxWith("a", "b");
  const [a, b] = outboxOf(store).all() as [OutboxRow, OutboxRow];
  assert.equal(typeof rowKey(a), "string");
  assert.equal(rowKey(a), rowKey({ ...a }));
  assert.notEqual(rowKey(a), rowKey(b));
  assert.ok(
    rowKey(a).length >= 1 && rowKey(a).length <= 255 && /^[\x21-\x7e]+$/.test(rowKey(a)),
    "a key the notifier accepts: 1-255 printable characters, no spaces",
  );
  store.close();
});

test("every row is delivered once and marked sent; a second pass sends nothing", async () => {
  const store = outboxWith("Login button does nothing", "Logout hangs", "Search ignores accents");
  const from = notifier.delivered().length;
  assert.equal(await dispatch({ store, notifierUrl: notifier.url }), 3);
  assert.deepEqual(deliveredSince(from), [
    "New bug report: Login button does nothing",
    "New bug report: Logout hangs",
    "New bug report: Search ignores accents",
  ]);
  assert.deepEqual(states(store), ["sent", "sent", "sent"]);
  assert.equal(await dispatch({ store, notifierUrl: notifier.url }), 0);
  assert.equal(notifier.delivered().length, from + 3);
  store.close();
});

test("a row is marked sent only after the notifier accepted it", async () => {
  const store = outboxWith("Crash on save");
  const seen: string[] = [];
  await dispatch({
    store,
    notifierUrl: notifier.url,
    afterAccepted: (row) => {
      seen.push(
        outboxOf(store)
          .all()
          .find((r) => r.id === row.id)!.state,
      );
      assert.ok(
        notifier.delivered().some((n) => n.reportId === row.reportId),
        "afterAccepted comes after the notifier delivered",
      );
    },
  });
  assert.deepEqual(seen, ["to_send"]);
  assert.deepEqual(states(store), ["sent"]);
  store.close();
});

test("killed after the notifier accepted a row: the next pass sends it again, and the maintainer reads it once", async () => {
  const store = outboxWith("Upload fails over 10 MB", "Dark mode flickers");
  const from = notifier.delivered().length;
  const replaysBefore = notifier.deduplicated;
  await assert.rejects(
    dispatch({
      store,
      notifierUrl: notifier.url,
      afterAccepted: () => {
        throw new Error("killed (SIGKILL) before marking the row sent");
      },
    }),
    /killed/,
  );
  assert.deepEqual(
    states(store),
    ["to_send", "to_send"],
    "the crash came before the row was marked",
  );
  assert.equal(await dispatch({ store, notifierUrl: notifier.url }), 2);
  assert.deepEqual(states(store), ["sent", "sent"]);
  assert.deepEqual(
    deliveredSince(from),
    ["New bug report: Upload fails over 10 MB", "New bug report: Dark mode flickers"],
    "the redelivery of the first row was not delivered again",
  );
  assert.equal(
    notifier.deduplicated,
    replaysBefore + 1,
    "the notifier answered the redelivery from its key",
  );
  store.close();
});

test("a row the notifier did not accept stays 'to_send' for the next pass", async () => {
  const gone = await startNotifier();
  const deadUrl = gone.url;
  await gone.close(); // nothing listens there any more: connection refused
  const store = outboxWith("Printer icon missing");
  assert.equal(await dispatch({ store, notifierUrl: deadUrl }), 0);
  assert.deepEqual(states(store), ["to_send"]);
  const from = notifier.delivered().length;
  assert.equal(await dispatch({ store, notifierUrl: notifier.url }), 1);
  assert.deepEqual(deliveredSince(from), ["New bug report: Printer icon missing"]);
  store.close();
});
