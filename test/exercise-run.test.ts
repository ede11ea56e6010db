// Running one exercise's tests: what the learner is told about a failure, and that a run which
// hangs or is cancelled really stops.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { firstFailure, runExerciseTests, testCounts } from "../lib/runner/exercise-run.ts";
import { tempProject } from "./temp-project.ts";

test("firstFailure reads block errors (assertion message and comparison) and unquotes one-line ones", () => {
  const tap = [
    "not ok 1 - methods",
    "  ---",
    "  error: |-",
    "    HEAD",
    "    ",
    "    false !== true",
    "    ",
    "  code: 'ERR_ASSERTION'",
    "  ...",
    "not ok 2 - other",
    "  ---",
    "  error: 'it''s not done'",
    "  ...",
  ].join("\n");
  assert.deepEqual(firstFailure(tap), { test: "methods", error: "HEAD\n\nfalse !== true" });
  assert.deepEqual(firstFailure(tap.split("\n").slice(9).join("\n")), { test: "other", error: "it's not done" });
  assert.deepEqual(firstFailure('not ok 1 - x\n  ---\n  error: "a\\nb"\n  ...'), { test: "x", error: "a\nb" });
  assert.deepEqual(testCounts("# tests 7\n# suites 0\n# pass 2\n# fail 5\n"), { tests: 7, pass: 2, fail: 5 });
  assert.equal(testCounts("ok 1 - a\n"), undefined);
});

test("a syntax error in the learner's file is reported with its place, relative to the project", { timeout: 60_000 }, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  writeFileSync(join(p.root, e.file), `${readFileSync(join(p.root, e.file), "utf8")}\nconst broken = ;\n`);
  const r = await runExerciseTests(e, "exercises", 60_000, { root: p.root });
  assert.equal(r.passed, false);
  assert.match(r.firstFailure?.error ?? "", new RegExp(`${e.file.replace(/\./g, "\\.")}:\\d+:\\d+: ERROR`));
  assert.doesNotMatch(r.firstFailure?.error ?? "", new RegExp(p.root));
});

test("an endless loop is stopped at the time limit, and a cancelled run stops at once", { timeout: 60_000 }, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  writeFileSync(join(p.root, e.file), readFileSync(join(p.root, e.file), "utf8").replace(/throw new Error\("TODO: [^"]*"\);/, "for (;;) {}"));
  const hung = await runExerciseTests(e, "exercises", 1_500, { root: p.root });
  assert.equal(hung.timedOut, true);
  assert.equal(hung.passed, false);
  assert.match(hung.firstFailure?.error ?? "", /no result within 1500 ms/);

  const abort = new AbortController();
  const running = runExerciseTests(e, "exercises", 60_000, { root: p.root, signal: abort.signal });
  abort.abort();
  const cancelled = await running;
  assert.equal(cancelled.passed, false);
  assert.equal(cancelled.timedOut, false);
});
