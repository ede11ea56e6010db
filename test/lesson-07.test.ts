// Lesson 07, run once: it prints what it measured, reports in the SQLite files and notifications at
// the notifier for each way of telling the maintainer, and it leaves no tracker or dispatcher process
// behind. The same seed's second run, and the runs at 80 and 120 columns, are in test/full/.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { runLesson, testRunsCleanly } from "./lesson-run.ts";
import { processesMarked, tableRow } from "./run-helpers.ts";

const LESSON = "lessons/07-outbox.ts";
const marker = `WORKBOOK_RUN_MARK=${randomUUID()}`;
const ran = await runLesson([LESSON, "--seed", "1"], {
  env: { WORKBOOK_RUN_MARK: marker.split("=")[1]! },
});
// Read as soon as the lesson has exited: a process of its own still running now outlived it.
const outlived = processesMarked(marker);

testRunsCleanly("lesson 07", ran);

test("lesson 07: inline notifications duplicate or vanish; the outbox with a key per row makes exactly one", () => {
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
  assert.match(
    ran.stdout,
    /the process is dead: the maintainer holds 1 notification\(s\), the database 0 report\(s\)/,
  );
  assert.match(
    ran.stdout,
    /dispatcher killed \(SIGKILL\) after the notifier accepted row 1, before marking it sent/,
  );
  assert.match(ran.stdout, /key outbox-row-1 seen before: .* NOT delivered again/);
  assert.deepEqual(outlived, [], "no tracker or dispatcher process outlives the lesson");
});
