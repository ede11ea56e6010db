// Lesson 07 prints what it measured: reports in the SQLite files and notifications at the notifier,
// for each way of telling the maintainer; and it leaves no tracker or dispatcher process behind.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { processesMarked, runTs, tableRow } from "./run-helpers.ts";

const LESSON = "lessons/07-outbox.ts";

test("lesson 07: inline notifications duplicate or vanish; the outbox with a key per row makes exactly one", async () => {
  const marker = `WORKBOOK_RUN_MARK=${randomUUID()}`;
  const ran = await runTs([LESSON], { env: { WORKBOOK_RUN_MARK: marker.split("=")[1]! } });
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stderr, "");
  const row = (label: string) => tableRow(ran.stdout, label)?.slice(1, 4);
  // [reports, notifications, told before its report existed]
  assert.deepEqual(row("inline: notify, then commit"), ["1", "2", "1"]);
  assert.deepEqual(row("inline: commit, then notify"), ["1", "0", "0"]);
  assert.deepEqual(row("inline: key passed on"), ["1", "1", "1"]);
  assert.deepEqual(row("outbox: no key"), ["1", "2", "–"]);
  // What the agent knows is its own call, not the server's outbox.
  assert.doesNotMatch(ran.stdout, /the agent knows: outbox rows/);
  assert.match(ran.stdout, /the agent knows: its call: timeout → 201 replayed/);
  assert.deepEqual(row("outbox: a key per row"), ["1", "1", "–"]);
  assert.deepEqual(row("outbox: paused holder, keyed"), ["2", "2", "–"]);
  assert.deepEqual(row("outbox: paused holder, fenced"), ["1", "1", "–"]);
  // The moments the lesson is about, as they happened.
  assert.match(ran.stdout, /the process is dead: the maintainer holds 1 notification\(s\), the database 0 report\(s\)/);
  assert.match(ran.stdout, /dispatcher killed \(SIGKILL\) after the notifier accepted row 1, before marking it sent/);
  assert.match(ran.stdout, /key outbox-row-1 seen before: .* NOT delivered again/);
  assert.deepEqual(processesMarked(marker), [], "no tracker or dispatcher process outlives the lesson");
});

test("lesson 07 prints the same trace for the same seed, times aside", async () => {
  const strip = (s: string) => s.replace(/^\s*\d+ ms/gm, "").replace(/\d+ ms\b/g, "N ms");
  const [a, b] = await Promise.all([runTs([LESSON, "--seed", "3"]), runTs([LESSON, "--seed", "3"])]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(strip(a.stdout), strip(b.stdout));
});
