// Tests for exercise 05b. Run them with `npm run check 05b`.
import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { loadExercise } from "../lib/runner/exercise-target.ts";
import { openFencingDb } from "../lib/tracker/fencing-schema.ts";

const { takeOver } = await loadExercise<typeof import("./05b-take-over.ts")>("05b-take-over");

const LEASE = 300;

/** A database where claims have used tokens up to `counter`, and `key` is held by `fence` until `leaseUntil`. */
function held(
  key: string,
  fence: number,
  leaseUntil: number,
  counter = fence,
  state = "in_progress",
): DatabaseSync {
  const db = openFencingDb();
  db.prepare("UPDATE fence_counter SET value = ?").run(counter);
  db.prepare(
    "INSERT INTO idempotency_keys (key, state, fence, lease_until) VALUES (?, ?, ?, ?)",
  ).run(key, state, fence, leaseUntil);
  return db;
}

interface KeyRow {
  state: string;
  fence: number;
  lease_until: number;
}
const row = (db: DatabaseSync, key: string): KeyRow => ({
  ...(db
    .prepare("SELECT state, fence, lease_until FROM idempotency_keys WHERE key = ?")
    .get(key) as unknown as KeyRow),
});
const counter = (db: DatabaseSync) =>
  Number((db.prepare("SELECT value FROM fence_counter").get() as { value: number }).value);

test("past its lease, the key is taken over with the next token and a fresh lease", () => {
  const db = held("k", 1, 1_300);
  const fence = takeOver(db, "k", 1_500, LEASE);
  assert.equal(fence, 2);
  assert.deepEqual(row(db, "k"), { state: "in_progress", fence: 2, lease_until: 1_800 });
  assert.equal(counter(db), 2, "the token was drawn from the counter");
  assert.equal(db.isTransaction, false, "committed, nothing left open");
});

test("the token is the counter's next value, not the old token plus one", () => {
  // Claims on other keys have used tokens 2 to 9 since this one was claimed with token 1.
  const db = held("k", 1, 1_300, 9);
  assert.equal(takeOver(db, "k", 2_000, LEASE), 10);
  assert.equal(row(db, "k").fence, 10);
  assert.equal(counter(db), 10);
});

test("from the moment the lease ends, not one millisecond before", () => {
  const db = held("k", 1, 1_300);
  assert.equal(takeOver(db, "k", 1_299, LEASE), undefined);
  assert.deepEqual(
    row(db, "k"),
    { state: "in_progress", fence: 1, lease_until: 1_300 },
    "nothing changed",
  );
  assert.equal(counter(db), 1, "no token was used up");
  assert.equal(takeOver(db, "k", 1_300, LEASE), 2);
});

test("a completed key or a missing one is not taken over, and nothing changes", () => {
  const done = held("k", 1, 1_300, 1, "completed");
  assert.equal(takeOver(done, "k", 5_000, LEASE), undefined);
  assert.deepEqual(row(done, "k"), { state: "completed", fence: 1, lease_until: 1_300 });
  assert.equal(counter(done), 1);
  assert.equal(takeOver(done, "nope", 5_000, LEASE), undefined);
  assert.equal(counter(done), 1);
  assert.equal(done.isTransaction, false, "no transaction left open when nothing was taken over");
});

test("every take-over gets a larger token: a second one, after the new lease ran out too", () => {
  const db = held("k", 1, 1_300);
  const second = takeOver(db, "k", 1_300, LEASE)!;
  assert.equal(
    takeOver(db, "k", 1_599, LEASE),
    undefined,
    "the new holder's lease runs until 1600",
  );
  const third = takeOver(db, "k", 1_600, LEASE)!;
  assert.ok(third > second && second > 1);
});

test("after a take-over, the old holder's fenced completion matches no row", () => {
  const db = held("k", 1, 1_300);
  takeOver(db, "k", 1_400, LEASE);
  const stale = db
    .prepare(
      "UPDATE idempotency_keys SET state = 'completed' WHERE key = ? AND state = 'in_progress' AND fence = ?",
    )
    .run("k", 1);
  assert.equal(Number(stale.changes), 0);
});
