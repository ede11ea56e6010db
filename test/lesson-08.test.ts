// Lesson 08, run once: it prints the fault matrix it measured (the fenced row all ones), the client's
// half, the wrong answers next to their cells, in lines that fit 80 columns, and no tracker process
// outlives it. Smaller runs: one cell with its full trace on request, one column; bad flags exit 2. The
// same seed's second run is in test/full/.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { runLesson, testFitsColumns, testRunsCleanly } from "./lesson-run.ts";
import { processesMarked, runTs, tableRow } from "./run-helpers.ts";

const LESSON = "lessons/08-fault-matrix.ts";
const marker = randomUUID();
// Piped at 80 columns with colour forced, as a narrow terminal shows it: what it measured reads the
// same there (colour removed), so this one run also checks that no line is wider than 80. The run at
// 120 columns is in test/full/lessons-width.test.ts.
const ran = await runLesson([LESSON, "--seed", "1"], {
  width: 80,
  env: { WORKBOOK_RUN_MARK: marker },
});
// Read as soon as the lesson has exited: a process of its own still running now outlived it.
const outlived = processesMarked(`WORKBOOK_RUN_MARK=${marker}`);

testRunsCleanly("lesson 08", ran);

testFitsColumns("lesson 08", ran, 80);

test("lesson 08: the matrix as measured, the fenced row all ones; no process left behind", () => {
  const cells = (variant: string) => tableRow(ran.stdout, variant)?.slice(2);
  assert.deepEqual(cells("naive"), ["2 ✗", "2 ✗", "2 ✗", "2 ✗", "1 –", "2 ✗"]);
  assert.deepEqual(cells("key-after"), ["1 ✓", "2 ✗", "2 ✗", "2 ✗", "1 –", "2 ✗"]);
  assert.deepEqual(cells("keyed"), ["1 ✓", "1 ✓", "1 ✓", "1 ✓", "1 ✓", "2 ✗"]);
  assert.deepEqual(cells("fenced"), ["1 ✓", "1 ✓", "1 ✓", "1 ✓", "1 ✓", "1 ✓"]);
  assert.match(ran.stdout, /fenced {5}one report in every cell/);
  // The client's half: fenced under each policy.
  assert.deepEqual(tableRow(ran.stdout, "blind-retry  │  timeout")?.slice(1, 3), [
    "timeout → 400",
    "0",
  ]);
  assert.deepEqual(tableRow(ran.stdout, "fresh-key")?.slice(1, 3), ["timeout → 201", "2"]);
  assert.deepEqual(tableRow(ran.stdout, "same-key  ")?.slice(1, 3), [
    "timeout → 201 replayed",
    "1",
  ]);
  // Each wrong answer is next to the run that disproves it (prose is wrapped: match it flattened).
  const flat = ran.stdout.replace(/\s+/g, " ");
  const herd = /exponential backoff without jitter needs (\d+) write calls, full jitter (\d+)/.exec(
    flat,
  );
  assert.ok(herd, "the herd figures are printed");
  assert.ok(
    Number(herd[1]) > Number(herd[2]),
    `exponential ${herd[1]} should need more calls than full jitter ${herd[2]}`,
  );
  assert.match(flat, /Cell fenced × lose-response with fresh-key, above: 2 reports/);
  assert.match(flat, /Cell key-after × crash-between-commits: 2 reports/);
  assert.match(ran.stdout, /INSERT report 2 · COMMIT \(first commit\)/);
  assert.match(flat, /Cell keyed × pause-past-lease: 2 reports/);
  assert.match(flat, /fenced × pause-past-lease: 1\./);
  assert.deepEqual(outlived, [], "no tracker process outlives the lesson");
});

// The cell's trace is kept as it ran and printed later: a long event goes on under its text (column
// 20, after the time and the actor), as in a live trace, not under the time, whose width varies.
test("lesson 08: the key-after cell's trace, printed in full, wraps a long event under its text", () => {
  const lines = ran.stdout.split("\n");
  const from = lines.findIndex((l) => l.includes("Its trace, as it ran:"));
  const to = lines.findIndex(
    (l, i) => i > from && l.includes("The report was committed, the key was not"),
  );
  const trace = lines.slice(from + 1, to);
  assert.ok(
    trace.length > 5 && trace.some((l) => !/^ *\d+ ms {2}\S/.test(l)),
    "the trace has a wrapped event at 80 columns",
  );
  for (const l of trace)
    assert.match(l, /^(?: *\d+ ms {2}\S| {20}\S)/, "an event, or an event going on in column 20");
});

test("lesson 08 --variant --fault runs one cell with its whole trace", async () => {
  const ran = await runTs([LESSON, "--variant", "keyed", "--fault", "pause-past-lease"]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /keyed × pause-past-lease \(the agent: same-key\)/);
  assert.match(ran.stdout, /TAKE OVER \(lease ran out\)/);
  assert.match(ran.stdout, /handler wakes up and carries on, unaware that its key was taken over/);
  assert.match(ran.stdout, /reports in the database: 2 {2}✗ DUPLICATE \(1 extra\)/);
  assert.doesNotMatch(ran.stdout, /The matrix:/);
});

test("lesson 08 --fault alone runs that column, each cell traced, then its small matrix", async () => {
  const ran = await runTs([LESSON, "--fault", "crash-after-claim"]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /process killed \(SIGKILL\) at "after-claim"/);
  assert.deepEqual(tableRow(ran.stdout, "naive")?.slice(2), ["1 –"]);
  assert.deepEqual(tableRow(ran.stdout, "fenced")?.slice(2), ["1 ✓"]);
});

test("lesson 08: an unknown variant or fault is one line on stderr and exit 2", async () => {
  for (const args of [
    ["--variant", "quick"],
    ["--fault", "internal-error"],
    ["--policy", "sometimes"],
    ["--variant"],
  ]) {
    const ran = await runTs([LESSON, ...args]);
    assert.equal(ran.code, 2, args.join(" "));
    assert.match(ran.stderr, /^error: .* \(try --help\)\n$/);
  }
});
