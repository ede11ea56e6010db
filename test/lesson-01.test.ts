// Lesson 01, run once: it exits 0 by itself (no server or timer left behind) and prints what it
// measured for the three truths and for PUT against POST, in lines that fit 80 columns. The same
// seed's second run is in test/full/.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runLesson, testFitsColumns, testRunsCleanly } from "./lesson-run.ts";
import { tableRow } from "./run-helpers.ts";

const LESSON = "lessons/01-timeout-truths.ts";
// Piped at 80 columns with colour forced, as a narrow terminal shows it: what it measured reads the
// same there (colour removed), so this one run also checks that no line is wider than 80. The run at
// 120 columns is in test/full/lessons-width.test.ts.
const ran = await runLesson([LESSON, "--seed", "1"], { width: 80 });

testRunsCleanly("lesson 01", ran);

testFitsColumns("lesson 01", ran, 80);

test("lesson 01 measures 1 / 2 / 2 for the three truths, 1 for PUT and 2 for POST", () => {
  const count = (label: string) => tableRow(ran.stdout, label)?.at(-1);
  assert.equal(count("1 never arrived"), "1");
  assert.equal(count("2 done, answer lost"), "2");
  assert.equal(count("3 still running"), "2");
  assert.equal(count("PUT, answer lost"), "1");
  assert.equal(count("POST, answer lost"), "2");
  assert.match(ran.stdout, /Identical in all three cases/);
});
