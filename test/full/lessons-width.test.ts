// Output fits the terminal: every lesson in the catalog, piped with $COLUMNS at 80 and at 120, colour
// forced, prints no line wider than that (colour codes aside). npm test checks 80 columns on the one
// run of the lessons whose measurements read the same when wrapped (test/lesson-01, -08, -09).
import assert from "node:assert/strict";
import { test } from "node:test";
import { type Lesson, listLessons } from "../../lib/runner/catalog.ts";
import { linesWiderThan, runLesson } from "../lesson-run.ts";

/** Lessons that take long measure less here: lesson 09 one library only. */
const EXTRA_ARGS: Record<string, string[]> = { "09": ["--only", "axios"] };

/** Runs a lesson piped at `width` columns, colour on, and returns the lines wider than that. */
async function wideLines(lesson: Lesson, width: number): Promise<string[]> {
  const ran = await runLesson([lesson.file, "--seed", "1", ...(EXTRA_ARGS[lesson.number] ?? [])], {
    timeoutMs: 120_000,
    width,
  });
  assert.equal(ran.timedOut, false, `lesson ${lesson.number} did not finish`);
  assert.equal(ran.code, 0, ran.stderr);
  assert.ok(ran.raw.split("\n").length > 20, "the lesson printed its trace");
  return linesWiderThan(ran.raw, width);
}

// Each lesson from the catalog, at both widths at once (two processes), one lesson after another.
for (const lesson of listLessons()) {
  test(`lesson ${lesson.number} fits in 80 and in 120 columns`, async () => {
    const [at80, at120] = await Promise.all([wideLines(lesson, 80), wideLines(lesson, 120)]);
    assert.deepEqual(at80.slice(0, 5), [], `${at80.length} line(s) wider than 80 columns`);
    assert.deepEqual(at120.slice(0, 5), [], `${at120.length} line(s) wider than 120 columns`);
  });
}
