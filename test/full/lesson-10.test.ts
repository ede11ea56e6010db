// Lesson 10 prints what it measured, on a real PostgreSQL and real tracker processes behind the
// balancer: each case's count, read from its closing table; its kept output (lessons/output/), twice
// with the same seed; and no tracker, dispatcher or PostgreSQL process outlives it.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import pg from "pg";
import { listLessons } from "../../lib/runner/catalog.ts";
import { assertKeptOutput, runForOutput } from "../lesson-output.ts";
import { processesMarked, runTs, tableRow } from "../run-helpers.ts";
import { testServerUrl } from "./postgres-helpers.ts";

const LESSON = "lessons/10-more-than-one-server.ts";
// Four clusters of three tracker processes, two dispatcher processes three times and a PostgreSQL start: on a loaded
// 2-core machine this takes far longer than the lesson's few seconds on a quiet one.
const LIMIT_MS = 180_000;

test("lesson 10 measures every case: own files 2, shared PostgreSQL 1, ON CONFLICT 201/409 vs check-then-insert 2, keyed 2 / fenced 1, each outbox row once", {
  timeout: LIMIT_MS + 10_000,
}, async () => {
  const marker = `WORKBOOK_RUN_MARK=${randomUUID()}`;
  const ran = await runTs([LESSON], {
    timeoutMs: LIMIT_MS,
    env: { WORKBOOK_RUN_MARK: marker.split("=")[1]! },
  });
  assert.equal(ran.timedOut, false, "the lesson did not finish");
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stderr, "");
  const counted = (label: string) => tableRow(ran.stdout, label)?.[1];
  assert.equal(counted("keys in each instance's own file"), "2 (per instance: 1, 1, 0)");
  assert.equal(counted("keys in the shared PostgreSQL"), "1 (timeout → 201 replayed)");
  assert.equal(
    counted("one key, two instances: unique constraint + ON CONFLICT"),
    "1 (201 and 409)",
  );
  assert.equal(
    counted("one key, two instances: check-then-insert, no constraint"),
    "2 (201 and 201)",
  );
  assert.equal(counted("the same at SERIALIZABLE"), "1 (201 and 40001)");
  // The constraint's loser at SERIALIZABLE: 40001, not an empty result; its rerun finds the key.
  assert.equal(
    counted("unique constraint + ON CONFLICT at SERIALIZABLE"),
    "1 (201 and 40001, rerun → 409)",
  );
  assert.equal(counted("paused past its lease on instance 1, keyed"), "2");
  assert.equal(counted("paused past its lease on instance 1, fenced"), "1");
  // Each row POSTed once while both ran; the killed one's delivered row once more, replayed by its key.
  assert.equal(
    counted("two dispatchers, plain SELECT (no lock)"),
    "✗ 12 POSTs: 6 sent twice, kept to 6 notifications only by the notifier's key",
  );
  assert.equal(counted("two dispatchers, SKIP LOCKED"), "6 notifications (6 POSTs, 0 duplicates)");
  assert.equal(
    counted("one dispatcher killed mid-batch"),
    "6 notifications (7 POSTs, 1 replayed by key)",
  );

  // The moments the lesson is about, as they happened.
  assert.match(
    ran.stdout,
    /balancer: POST \/reports → instance 2\n.*\[instance 2\] #1 POST \/reports arrived/,
  );
  assert.match(
    ran.stdout,
    /\[instance 2\] #1 key [0-9a-f]{8}…[0-9a-f]{4} completed before: replaying the stored 201/,
    "the replay was served by instance 2",
  );
  assert.match(
    ran.stdout,
    /Both ran at READ COMMITTED, the server's default, as read from the server on each connection/,
  );
  // What happened, as the lesson works it out from the run (the connections' answers, the instances'
  // events, the dispatchers' POSTs, the outbox's rows): each sentence below is built, not written.
  const happened = (label: string) => new RegExp(`what happened: +${label}`);
  assert.match(
    ran.stdout,
    /instance 1 filed report 1 and lost its answer; instance 2 found the key in no table it can see and filed it again \(reports per instance: 1, 1, 0\)/,
  );
  assert.match(
    ran.stdout,
    /instance 1 filed report 1 and lost its answer; instance 2, which did none of the work, replayed the stored 201/,
  );
  assert.match(
    ran.stdout,
    happened(
      "exactly one claim won; the other waited for it, got no row back and answered 409 \\(isolation: READ COMMITTED\\)",
    ),
  );
  assert.match(
    ran.stdout,
    happened(
      "both looked, both found nothing, both claimed: 2 key rows for one key \\(isolation: READ COMMITTED\\)",
    ),
  );
  assert.match(
    ran.stdout,
    happened(
      "both looked, both found nothing; instance 2's claim was refused with 40001, a serialization failure",
    ),
  );
  assert.match(
    ran.stdout,
    happened(
      "one claim won, as in 3a; the loser got 40001 instead of an empty result, and its rerun answered 409 \\(isolation: SERIALIZABLE\\)",
    ),
  );
  assert.match(ran.stdout, /returns no row \(3a's 409\); at/);
  assert.match(
    ran.stdout,
    happened(
      "instance 3 took the key over and filed report 1; instance 1 woke, completed the key whoever held it, and filed a second, report 2",
    ),
  );
  assert.match(
    ran.stdout,
    happened(
      "instance 3 took the key over and filed report 1; instance 1 woke with fence 1 while the key held fence 4: its UPDATE changed 0 rows, its transaction rolled back, report 2 included",
    ),
  );
  assert.match(
    ran.stdout,
    /6 reports filed, each with its outbox row in the same transaction: 6 rows to send/,
  );
  assert.match(
    ran.stdout,
    happened(
      "12 POSTs for 6 rows: every row sent by both; the notifier replayed 6 by key, so 6 notifications",
    ),
  );
  assert.match(
    ran.stdout,
    happened("6 POSTs to the notifier for 6 rows: no row taken twice; 6 rows sent, 0 to send"),
  );
  // 5c reads the outbox once the killed dispatcher's backend is gone: its rows free, instance 2's still held.
  assert.match(
    ran.stdout,
    /the server rolled back its transaction: row\(s\) 1, 2, 3 are to_send again, unlocked \(4, 5, 6 are to_send too, locked by instance 2's open batch\)/,
  );
  assert.match(
    ran.stdout,
    happened(
      "instance 1's batch came back to the outbox when its process died; instance 2 sent it again, row 1 with the same key: the notifier replayed it \\(1 replay\\), 6 notifications for 6 rows",
    ),
  );
  assert.match(
    ran.stdout,
    /\[connection of instance 2\] INSERT … ON CONFLICT \(caller, key\) DO NOTHING: waits/,
  );
  assert.match(
    ran.stdout,
    /\[connection of instance 2\] ERROR 40001: could not serialize access due to read\/write dependencies/,
  );
  assert.match(
    ran.stdout,
    /\[connection of instance 2\] … instance 1 committed: ERROR 40001: could not serialize access due to concurrent update/,
  );
  assert.match(
    ran.stdout,
    /\[connection of instance 2\] rerun: BEGIN ISOLATION LEVEL SERIALIZABLE · INSERT … ON CONFLICT \(caller, key\) DO NOTHING: 0 rows/,
  );
  // The claim the reviewers caught: the constraint decides the winner at every level, but the loser's
  // answer is not the same at every level.
  assert.doesNotMatch(ran.stdout, /at any isolation level/);
  assert.match(ran.stdout, /Exercise 10a: npm run check 10a\./);
  assert.match(
    ran.stdout,
    /PostgreSQL server: (your own, the one DATABASE_URL names|one that the workbook started for this lesson \(DATABASE_URL is not set\))\./,
  );
  // 4b's fence: the fences seen claimed are 1 and 4; the claims of instances 2 and 3 (a 409, and the
  // take-over's own INSERT) met instance 1's row and used up 2 and 3.
  assert.match(
    ran.stdout,
    /Fence 4, not 2: .* so the claims of instances 2 and 3 that met instance 1's row used up 2 and 3\s+before instance 3's take-over drew 4/s,
  );
  // Sections 3 and 5 have no agent: their knows-lines say who knows.
  assert.match(ran.stdout, /connections got: instance 1: 201, instance 2: 409/);
  assert.match(ran.stdout, /dispatchers saw: instance 1 read rows 1, 2, 3/);
  assert.match(ran.stdout, /\[instance 3\] #1 UPDATE key .* TAKEN OVER \(lease ran out\)/);
  assert.match(
    ran.stdout,
    /\[instance 1\] #1 BEGIN · INSERT report 2, UPDATE key .* WHERE fence = 1: 0 rows · ROLLBACK/,
  );
  assert.match(ran.stdout, /\[instance 2\] BEGIN · SELECT \(no lock\): read row\(s\) 1, 2, 3/);
  assert.match(
    ran.stdout,
    /\[instance 1\] BEGIN · SELECT … FOR UPDATE SKIP LOCKED: took row\(s\) 1, 2, 3/,
  );
  assert.match(
    ran.stdout,
    /\[instance 2\] BEGIN · SELECT … FOR UPDATE SKIP LOCKED: took row\(s\) 4, 5, 6/,
  );
  assert.match(
    ran.stdout,
    /\[instance 1\] dispatcher killed \(SIGKILL\) after the notifier accepted row 1/,
  );
  assert.match(ran.stdout, /key outbox-row-1 seen before: .* NOT delivered again/);
  assert.match(ran.stdout, /SQLSTATE 40001 \(serialization_failure\)/);
  assert.match(ran.stdout, /SQLSTATE 40003/);
  // Section 6, as a fact check left it: 40001 said of PostgreSQL, CockroachDB and YugabyteDB, Spanner's
  // ABORTED apart; on CockroachDB 3a's loser depends on timestamps; each with its source.
  const text = ran.stdout.replace(/\s+/g, " ");
  assert.doesNotMatch(
    text,
    /So on CockroachDB the losing claim of 3a does not get an empty result/,
  );
  assert.doesNotMatch(
    text,
    /\. At serializable or snapshot isolation, a transaction that loses a conflict fails/,
  );
  assert.match(
    text,
    /On PostgreSQL, CockroachDB and YugabyteDB, at serializable or snapshot isolation, a transaction that loses a conflict fails with SQLSTATE 40001/,
  );
  assert.match(
    text,
    /Spanner answers ABORTED, a gRPC status \(Spanner API reference, TransactionOptions\), and its client libraries run the transaction again themselves \(the Java client's TransactionRunner: "with retries for transaction aborts"\)/,
  );
  assert.match(
    text,
    /On CockroachDB what 3a's loser gets depends on timestamps: a read that meets the write intent of a transaction with a lower timestamp waits for it to finish \(CockroachDB, "Transaction Layer", Transaction conflicts\), so a loser that began after the winner then sees the winner's key: no row, a 409\. A loser whose timestamp is below the winner's commit \(it began first, say\) fails with 40001 instead/,
  );
  // 3b's 40001 of ON CONFLICT above READ COMMITTED, with what says it.
  assert.match(
    text,
    /The wait: PostgreSQL documentation, "Index Uniqueness Checks"; the 40001: PostgreSQL's source, nodeModifyTable\.c, ExecCheckTupleVisible\./,
  );
  assert.deepEqual(
    processesMarked(marker),
    [],
    "no tracker, dispatcher or PostgreSQL process outlives the lesson",
  );
});

test("lesson 10 prints its file's text at seed 1, twice", {
  timeout: 2 * LIMIT_MS + 10_000,
}, async () => {
  // One after the other: each run starts nine tracker processes, and its own PostgreSQL, as a
  // learner's run does (the file is what a learner without DATABASE_URL reads).
  const lesson = listLessons().find((l) => l.file === LESSON)!;
  const a = await runForOutput(lesson, { timeoutMs: LIMIT_MS });
  const b = await runForOutput(lesson, { timeoutMs: LIMIT_MS });
  for (const ran of [a, b]) assertKeptOutput(lesson, ran);
});

// A learner's own server may run another default level: there, the constraint's loser in 3a gets 40001
// and a rerun, not an empty result, and the lesson must say so rather than print READ COMMITTED's story.
test("lesson 10 on a server whose default is REPEATABLE READ says what its connections got there", {
  timeout: LIMIT_MS + 10_000,
}, async () => {
  const server = await testServerUrl();
  const name = `lesson10_rr_${randomUUID().replaceAll("-", "").slice(0, 10)}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.query(
      `ALTER DATABASE ${name} SET default_transaction_isolation = 'repeatable read'`,
    );
    const url = new URL(server);
    url.pathname = `/${name}`;
    const ran = await runTs([LESSON], {
      timeoutMs: LIMIT_MS,
      env: { DATABASE_URL: url.toString() },
    });
    assert.equal(ran.timedOut, false, "the lesson did not finish");
    assert.equal(ran.code, 0, ran.stderr);
    const counted = (label: string) => tableRow(ran.stdout, label)?.[1];
    assert.equal(
      counted("one key, two instances: unique constraint + ON CONFLICT"),
      "1 (201 and 40001, rerun → 409)",
    );
    assert.match(
      ran.stdout,
      /what happened: +exactly one claim won; the other waited for it, got 40001 instead of an empty result, and its rerun answered 409 \(isolation: REPEATABLE READ\)/,
    );
    assert.match(ran.stdout, /Both ran at REPEATABLE READ, the server's default/);
    assert.doesNotMatch(ran.stdout, /3a's 409/);
    assert.match(ran.stdout, /40001 instead \(3d, and 3a on this server: 40001, then 409\)/);
    // The outbox's transactions are READ COMMITTED whatever the default: 5a's second dispatcher marks its rows.
    assert.equal(
      counted("two dispatchers, plain SELECT (no lock)"),
      "✗ 12 POSTs: 6 sent twice, kept to 6 notifications only by the notifier's key",
    );
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
});
