// Tests for exercise 05a. Run them with `npm run check 05a`.
import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { loadExercise } from "../lib/runner/exercise-target.ts";
import { openFencingDb } from "../lib/tracker/fencing-schema.ts";

const { completeFenced } =
  await loadExercise<typeof import("./05a-fenced-completion.ts")>("05a-fenced-completion");

interface KeyRow {
  state: string;
  fence: number;
  report_id: number | null;
}

/** A database where `key` is in progress under token `fence` (as a claim or a take-over left it). */
function claimed(key: string, fence: number): DatabaseSync {
  const db = openFencingDb();
  db.prepare("UPDATE fence_counter SET value = ?").run(fence);
  db.prepare(
    "INSERT INTO idempotency_keys (key, state, fence, lease_until) VALUES (?, 'in_progress', ?, 1000)",
  ).run(key, fence);
  return db;
}

const row = (db: DatabaseSync, key: string) =>
  db
    .prepare("SELECT state, fence, report_id FROM idempotency_keys WHERE key = ?")
    .get(key) as unknown as KeyRow | undefined;
const reports = (db: DatabaseSync) =>
  Number((db.prepare("SELECT count(*) AS n FROM reports").get() as { n: number }).n);

test("the holder of the current token files the report and completes the key with it, in one commit", () => {
  const db = claimed("k", 3);
  const id = completeFenced(db, "k", 3, "Login button does nothing");
  assert.equal(typeof id, "number");
  assert.equal(reports(db), 1);
  assert.deepEqual({ ...row(db, "k") }, { state: "completed", fence: 3, report_id: id });
  assert.equal(db.isTransaction, false, "committed, nothing left open");
});

test("a stale token (the key was taken over) changes nothing: the report is rolled back with the update", () => {
  const db = claimed("k", 4); // token 4 took the key over from token 3
  const id = completeFenced(db, "k", 3, "Login button does nothing");
  assert.equal(id, undefined);
  assert.equal(reports(db), 0, "the report inserted in the transaction must be gone");
  assert.deepEqual(
    { ...row(db, "k") },
    { state: "in_progress", fence: 4, report_id: null },
    "the new holder's claim is untouched",
  );
  assert.equal(db.isTransaction, false, "rolled back, nothing left open");
});

test("the new holder can still complete after the stale one was turned away; ids are not wasted", () => {
  const db = claimed("k", 4);
  assert.equal(completeFenced(db, "k", 3, "stale"), undefined);
  const id = completeFenced(db, "k", 4, "current");
  assert.equal(id, 1, "the rolled-back insert left no trace, not even its id");
  assert.equal(reports(db), 1);
  assert.equal(row(db, "k")?.report_id, 1);
});

test("a key that is already completed is not completed again, even with its own token", () => {
  const db = claimed("k", 2);
  const first = completeFenced(db, "k", 2, "once");
  assert.equal(completeFenced(db, "k", 2, "twice"), undefined, "state must still be in_progress");
  assert.equal(reports(db), 1);
  assert.equal(row(db, "k")?.report_id, first);
});

test("the token is checked for this key only: an unknown key files nothing", () => {
  const db = claimed("k", 5);
  assert.equal(completeFenced(db, "other", 5, "nope"), undefined);
  assert.equal(reports(db), 0);
  assert.equal(row(db, "k")?.state, "in_progress");
});

test("a statement that throws leaves no transaction open, and the error goes to the caller", () => {
  const db = claimed("k", 1);
  assert.throws(() => completeFenced(db, "k", 1, null as unknown as string), /NOT NULL/);
  assert.equal(db.isTransaction, false);
  assert.equal(reports(db), 0);
  assert.equal(row(db, "k")?.state, "in_progress");
});
