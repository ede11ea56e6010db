// The exercise machinery, both ways, like rustlings' dev check: every reference solution passes its
// exercise's tests, and every exercise as shipped fails them, fast and with a clear TODO message.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { listExercises, listLessons, ROOT } from "../lib/catalog.ts";
import { runExerciseTests } from "../lib/runner/exercise-run.ts";

const exercises = listExercises();
const lessons = listLessons();

test("every exercise has a lesson, a hint, a test, a solution, and a TODO", () => {
  assert.ok(exercises.length >= 1);
  for (const e of exercises) {
    assert.ok(lessons.some((l) => l.number === e.lesson), `${e.file}: @lesson ${e.lesson} names no lesson`);
    assert.ok(e.hint.length > 20, `${e.file}: no @hint`);
    assert.ok(e.title.length > 0, `${e.file}: no title line`);
    assert.ok(existsSync(join(ROOT, e.test)), `${e.test} is missing`);
    assert.ok(existsSync(join(ROOT, e.solution)), `${e.solution} is missing`);
    const source = readFileSync(join(ROOT, e.file), "utf8");
    assert.match(source, /\/\/ TODO:/, `${e.file} has no "// TODO:" to guide the learner`);
    assert.match(source, new RegExp(`throw new Error\\("TODO: .*\\(exercise ${e.id}\\)"\\)`), `${e.file} must throw a TODO error naming exercise ${e.id}`);
    assert.doesNotMatch(readFileSync(join(ROOT, e.solution), "utf8"), /TODO/, `${e.solution} still has a TODO`);
  }
});

for (const e of exercises) {
  test(`exercise ${e.id}: the solution passes every test`, async () => {
    const r = await runExerciseTests(e, "solutions");
    assert.equal(r.passed, true, `${e.solution} fails: ${JSON.stringify(r.firstFailure)}\n${r.output.slice(-2000)}`);
  });

  test(`exercise ${e.id}: as shipped, it fails fast with its TODO message`, async () => {
    const r = await runExerciseTests(e, "exercises", 30_000);
    assert.equal(r.passed, false, `${e.file} passes as shipped: its tests cannot tell a stub from an answer`);
    assert.equal(r.timedOut, false, `${e.file} hangs as shipped`);
    assert.match(r.firstFailure?.error ?? "", new RegExp(`TODO: .*\\(exercise ${e.id}\\)`), `first failure: ${JSON.stringify(r.firstFailure)}`);
  });
}
