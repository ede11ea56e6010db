// Tests for exercise 05b. Run them with `npm run check 05b`.
import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
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

/** fence_counter holds `value`; `why` says why. */
function counter(db: DatabaseSync, value: number, why: string): void {
  const now = Number(
    (db.prepare("SELECT value FROM fence_counter").get() as { value: number }).value,
  );
  assert.equal(now, value, t("fence_counter: {why}", { why }));
}

/** takeOver(db, key, now) must return `expected`; `why` says why. */
function takes(
  db: DatabaseSync,
  key: string,
  now: number,
  expected: number | undefined,
  why: string,
): void {
  assert.equal(
    takeOver(db, key, now, LEASE),
    expected,
    t('takeOver(db, "{key}", {now}, 300): {why}', { key, now: String(now), why }),
  );
}

test(t("past its lease, the key is taken over with the next token and a fresh lease"), () => {
  const db = held("k", 1, 1_300);
  takes(
    db,
    "k",
    1_500,
    2,
    t("the lease ran out at 1300, so the key is taken over with the counter's next token, 2"),
  );
  assert.deepEqual(
    row(db, "k"),
    { state: "in_progress", fence: 2, lease_until: 1_800 },
    t(
      "the row after the take-over: still in progress, the new token, and a fresh lease of now + leaseMs",
    ),
  );
  counter(db, 2, t("the token is drawn from the counter, which must now hold it"));
  assert.equal(
    db.isTransaction,
    false,
    t(
      "db.isTransaction is still true after the take-over: a transaction left open holds SQLite's write lock",
    ),
  );
});

test(t("the token is the counter's next value, not the old token plus one"), () => {
  // Claims on other keys have used tokens 2 to 9 since this one was claimed with token 1.
  const db = held("k", 1, 1_300, 9);
  takes(
    db,
    "k",
    2_000,
    10,
    t(
      "other keys' claims used tokens up to 9: the next token is 10, not the old token plus one (2 is taken)",
    ),
  );
  assert.equal(row(db, "k").fence, 10, t("the row must hold the new token, 10"));
  counter(db, 10, t("the counter must hold the token it gave out, 10"));
});

test(t("from the moment the lease ends, not one millisecond before"), () => {
  const db = held("k", 1, 1_300);
  takes(
    db,
    "k",
    1_299,
    undefined,
    t("at 1299 the lease still runs until 1300: the holder may still be working, so no take-over"),
  );
  assert.deepEqual(
    row(db, "k"),
    { state: "in_progress", fence: 1, lease_until: 1_300 },
    t("a refused take-over must change nothing in the row"),
  );
  counter(db, 1, t("a refused take-over must not use up a token"));
  takes(
    db,
    "k",
    1_300,
    2,
    t("at 1300 the lease has run out: from now >= lease_until on, the key may be taken over"),
  );
});

test(t("a completed key or a missing one is not taken over, and nothing changes"), () => {
  const done = held("k", 1, 1_300, 1, "completed");
  takes(
    done,
    "k",
    5_000,
    undefined,
    t("a completed key has its answer stored: there is nothing to take over"),
  );
  assert.deepEqual(
    row(done, "k"),
    { state: "completed", fence: 1, lease_until: 1_300 },
    t("a completed key's row must stay as it is"),
  );
  counter(done, 1, t("no take-over, so no token is used up"));
  takes(done, "nope", 5_000, undefined, t("a key that has no row has no holder to take over from"));
  counter(done, 1, t("no take-over, so no token is used up"));
  assert.equal(
    done.isTransaction,
    false,
    t(
      "db.isTransaction is still true after a refused take-over: roll back (or commit) before returning",
    ),
  );
});

test(
  t("every take-over gets a larger token: a second one, after the new lease ran out too"),
  () => {
    const db = held("k", 1, 1_300);
    const second = takeOver(db, "k", 1_300, LEASE);
    takes(db, "k", 1_599, undefined, t("the new holder's lease runs until 1600"));
    const third = takeOver(db, "k", 1_600, LEASE);
    assert.ok(
      second !== undefined && third !== undefined && third > second && second > 1,
      t(
        "two take-overs gave the tokens {second} and {third}: each must be larger than the one before, so a stale holder is always caught",
        {
          second: String(second),
          third: String(third),
        },
      ),
    );
  },
);

test(t("after a take-over, the old holder's fenced completion matches no row"), () => {
  const db = held("k", 1, 1_300);
  takeOver(db, "k", 1_400, LEASE);
  const stale = db
    .prepare(
      "UPDATE idempotency_keys SET state = 'completed' WHERE key = ? AND state = 'in_progress' AND fence = ?",
    )
    .run("k", 1);
  assert.equal(
    Number(stale.changes),
    0,
    t(
      "the old holder's completion with token 1 changed a row: after the take-over the row must hold the new token",
    ),
  );
});
