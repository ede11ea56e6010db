// Tests for exercise 05a. Run them with `npm run check 05a`.
import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
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

/** The database holds `n` reports; `why` says why. */
function reports(db: DatabaseSync, n: number, why: string): void {
  const count = Number((db.prepare("SELECT count(*) AS n FROM reports").get() as { n: number }).n);
  assert.equal(count, n, t("the reports in the database: {why}", { why }));
}

/** No transaction is left open; `why` says what the function just did. */
function closed(db: DatabaseSync, why: string): void {
  assert.equal(
    db.isTransaction,
    false,
    t(
      "db.isTransaction is still true {why}: a transaction left open holds SQLite's write lock, and every other request on this database waits for it",
      { why },
    ),
  );
}

test(
  t(
    "the holder of the current token files the report and completes the key with it, in one commit",
  ),
  () => {
    const db = claimed("k", 3);
    const id = completeFenced(db, "k", 3, "Login button does nothing");
    assert.equal(
      typeof id,
      "number",
      t(
        "completeFenced must return the new report's id, a number, when its claim still holds the key",
      ),
    );
    reports(db, 1, t("the current holder's report is stored"));
    assert.deepEqual(
      { ...row(db, "k") },
      { state: "completed", fence: 3, report_id: id },
      t("the key's row: completed, with its token unchanged and the id of the report it filed"),
    );
    closed(db, t("after the commit"));
  },
);

test(
  t(
    "a stale token (the key was taken over) changes nothing: the report is rolled back with the update",
  ),
  () => {
    const db = claimed("k", 4); // token 4 took the key over from token 3
    const id = completeFenced(db, "k", 3, "Login button does nothing");
    assert.equal(
      id,
      undefined,
      t("completeFenced with the stale token 3 must return undefined: token 4 holds the key now"),
    );
    reports(
      db,
      0,
      t(
        "the report inserted with the stale token must be rolled back, or the key's holder and the stale request file two",
      ),
    );
    assert.deepEqual(
      { ...row(db, "k") },
      { state: "in_progress", fence: 4, report_id: null },
      t("the new holder's claim must be untouched: it is still working on it"),
    );
    closed(db, t("after the stale completion was turned away"));
  },
);

test(
  t("the new holder can still complete after the stale one was turned away; ids are not wasted"),
  () => {
    const db = claimed("k", 4);
    assert.equal(
      completeFenced(db, "k", 3, "stale"),
      undefined,
      t("completeFenced with the stale token 3 must return undefined: token 4 holds the key now"),
    );
    const id = completeFenced(db, "k", 4, "current");
    assert.equal(
      id,
      1,
      t(
        "the new holder's report must get id 1: a rolled-back insert leaves no trace, not even its id",
      ),
    );
    reports(db, 1, t("only the current holder's report is stored"));
    assert.equal(
      row(db, "k")?.report_id,
      1,
      t("the key must point at the current holder's report"),
    );
  },
);

test(t("a key that is already completed is not completed again, even with its own token"), () => {
  const db = claimed("k", 2);
  const first = completeFenced(db, "k", 2, "once");
  assert.equal(
    completeFenced(db, "k", 2, "twice"),
    undefined,
    t(
      "completing a completed key must return undefined: the update must also require state = 'in_progress'",
    ),
  );
  reports(db, 1, t("the second completion's report must be rolled back"));
  assert.equal(row(db, "k")?.report_id, first, t("the key must still point at the first report"));
});

test(t("the token is checked for this key only: an unknown key files nothing"), () => {
  const db = claimed("k", 5);
  assert.equal(
    completeFenced(db, "other", 5, "nope"),
    undefined,
    t("completing a key that has no row must return undefined: the update matched no row"),
  );
  reports(db, 0, t("the report for a key that has no row must be rolled back"));
  assert.equal(
    row(db, "k")?.state,
    "in_progress",
    t("another key's row must be left alone: the update names its key"),
  );
});

test(
  t("a statement that throws leaves no transaction open, and the error goes to the caller"),
  () => {
    const db = claimed("k", 1);
    assert.throws(
      () => completeFenced(db, "k", 1, null as unknown as string),
      /NOT NULL/,
      t(
        "completeFenced with a null title must throw SQLite's NOT NULL error to its caller, not swallow it",
      ),
    );
    closed(
      db,
      t("after a statement threw (roll back in a catch block, then throw the error again)"),
    );
    reports(db, 0, t("nothing may stay behind after the error"));
    assert.equal(
      row(db, "k")?.state,
      "in_progress",
      t("the key must still be in progress after the error"),
    );
  },
);
