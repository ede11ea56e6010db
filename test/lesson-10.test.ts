// Lesson 10 prints what it measured, on a real PostgreSQL and real tracker processes behind the
// balancer: each case's count, read from its closing table; the same trace for the same seed; and no
// tracker, dispatcher or PostgreSQL process outlives it.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { processesMarked, runTs, tableRow } from "./run-helpers.ts";

const LESSON = "lessons/10-more-than-one-server.ts";
// Three clusters of three processes, two dispatchers twice and a PostgreSQL start: on a loaded
// 2-core machine this takes far longer than the lesson's few seconds on a quiet one.
const LIMIT_MS = 180_000;

test("lesson 10 measures every case: own files 2, shared PostgreSQL 1, ON CONFLICT 201/409 vs check-then-insert 2, keyed 2 / fenced 1, each outbox row once", { timeout: LIMIT_MS + 10_000 }, async () => {
  const marker = `WORKBOOK_RUN_MARK=${randomUUID()}`;
  const ran = await runTs([LESSON], { timeoutMs: LIMIT_MS, env: { WORKBOOK_RUN_MARK: marker.split("=")[1]! } });
  assert.equal(ran.timedOut, false, "the lesson did not finish");
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stderr, "");
  const counted = (label: string) => tableRow(ran.stdout, label)?.[1];
  assert.equal(counted("keys in each instance's own file"), "2 (per instance: 1, 1, 0)");
  assert.equal(counted("keys in the shared PostgreSQL"), "1 (timeout → 201 replayed)");
  assert.equal(counted("one key, two instances: unique constraint + ON CONFLICT"), "1 (201 and 409)");
  assert.equal(counted("one key, two instances: check-then-insert, no constraint"), "2 (201 and 201)");
  assert.equal(counted("the same at SERIALIZABLE"), "1 (201 and 40001)");
  assert.equal(counted("paused past its lease on instance 1, keyed"), "2");
  assert.equal(counted("paused past its lease on instance 1, fenced"), "1");
  assert.equal(counted("two dispatchers, SKIP LOCKED"), "6 notifications for 6 rows, 0 duplicates");
  assert.equal(counted("one dispatcher killed mid-batch"), "6 notifications for 6 rows, 1 replayed by key");

  // The moments the lesson is about, as they happened.
  assert.match(ran.stdout, /balancer: POST \/reports → instance 2\n.*\[instance 2\] #1 POST \/reports arrived/);
  assert.match(ran.stdout, /\[instance 2\] #1 key [0-9a-f]{8}…[0-9a-f]{4} completed before: replaying the stored 201/, "the replay was served by instance 2");
  assert.match(ran.stdout, /Both ran at READ COMMITTED, PostgreSQL's default, as read from the server/);
  assert.match(ran.stdout, /\[instance 2\] INSERT … ON CONFLICT \(caller, key\) DO NOTHING: waits/);
  assert.match(ran.stdout, /\[instance 2\] ERROR 40001: could not serialize access/);
  assert.match(ran.stdout, /\[instance 3\] #1 UPDATE key .* TAKEN OVER \(lease ran out\)/);
  assert.match(ran.stdout, /\[instance 1\] #1 BEGIN · INSERT report 2, UPDATE key .* WHERE fence = 1: 0 rows · ROLLBACK/);
  assert.match(ran.stdout, /\[instance 1\] BEGIN · SELECT … FOR UPDATE SKIP LOCKED: took row\(s\) 1, 2, 3/);
  assert.match(ran.stdout, /\[instance 2\] BEGIN · SELECT … FOR UPDATE SKIP LOCKED: took row\(s\) 4, 5, 6/);
  assert.match(ran.stdout, /\[instance 1\] dispatcher killed \(SIGKILL\) after the notifier accepted row 1/);
  assert.match(ran.stdout, /key outbox-row-1 seen before: .* NOT delivered again/);
  assert.match(ran.stdout, /SQLSTATE 40001 \(serialization_failure\)/);
  assert.match(ran.stdout, /SQLSTATE 40003/);
  assert.deepEqual(processesMarked(marker), [], "no tracker, dispatcher or PostgreSQL process outlives the lesson");
});

test("lesson 10 prints the same trace for the same seed, times aside", { timeout: 2 * LIMIT_MS + 10_000 }, async () => {
  const strip = (s: string) => s.replace(/^\s*\d+ ms/gm, "").replace(/\d+ ms\b/g, "N ms");
  // One after the other: each run starts its own PostgreSQL and nine tracker processes.
  const a = await runTs([LESSON, "--seed", "4"], { timeoutMs: LIMIT_MS });
  const b = await runTs([LESSON, "--seed", "4"], { timeoutMs: LIMIT_MS });
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(strip(a.stdout), strip(b.stdout));
});
