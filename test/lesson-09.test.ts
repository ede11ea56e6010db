// Lesson 09, one library measured (--only undici): the lesson's whole path, from the faulty server to
// the closing advice, in a few seconds, in lines that fit 80 columns. The whole lesson, every library,
// runs in test/full/, as do the runs at 80 and 120 columns (another library) and the other libraries'
// end-to-end checks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runLesson, testFitsColumns, testRunsCleanly } from "./lesson-run.ts";
import { runTs, tableRow } from "./run-helpers.ts";

const LESSON = "lessons/09-your-http-client.ts";
// Piped at 80 columns with colour forced, as a narrow terminal shows it: what it measured reads the
// same there (colour removed), so this one run also checks that no line is wider than 80. The run at
// 120 columns is in test/full/lessons-width.test.ts.
const ran = await runLesson([LESSON, "--seed", "1", "--only", "undici"], { width: 80 });

testRunsCleanly("lesson 09 --only undici", ran);

testFitsColumns("lesson 09 --only undici", ran, 80);

test("lesson 09 --only undici measures undici alone: 6 attempts for a GET, 1 for a POST, no key of its own", () => {
  assert.deepEqual(tableRow(ran.stdout, "undici"), ["undici", "6", "6", "6", "1", "1", "1", "1"]);
  assert.doesNotMatch(
    ran.stdout,
    /^\s*(got|axios|fetch|stripe)\s+│/m,
    "only the chosen library is measured",
  );
  // Its rows in parts 1, 2 and 3 and in what follows: no key of its own, nothing changes on a retry,
  // and one report whether the answer was lost or timed out.
  const rows = ran.stdout
    .split("\n")
    .filter((l) => l.trim().startsWith("undici ") && l.includes("│"))
    .map((l) => l.split("│").map((c) => c.trim()));
  assert.equal(rows.length, 4, rows.map((r) => r.join(" | ")).join("\n"));
  assert.deepEqual(rows[2]!.slice(0, 3), ["undici", "none", "none"]);
  assert.deepEqual(rows[3], ["undici", "1", "1", "– (no key: 400)", "1 attempt"]);
  assert.match(ran.stdout, /Did not resend the POST: undici\./);
  assert.match(ran.stdout, /How to set each one up safely/);
});

test("lesson 09: a bad --only exits 2 with one line", async () => {
  const bad = await runTs([LESSON, "--only", "requests"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: --only takes one of fetch, undici/);
  assert.equal(bad.stderr.trim().split("\n").length, 1);
});
