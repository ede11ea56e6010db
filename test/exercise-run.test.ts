// Running one exercise's tests: what the learner is told about a failure, and that a run which
// hangs or is cancelled really stops.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  checkLimitMs,
  firstFailure,
  runExerciseTests,
  stillOpenGraceMs,
  testCounts,
} from "../lib/runner/exercise-run.ts";
import { runIn, shippedExercises, tempProject } from "./temp-project.ts";

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
  assert.deepEqual(firstFailure(tap.split("\n").slice(9).join("\n")), {
    test: "other",
    error: "it's not done",
  });
  assert.deepEqual(firstFailure('not ok 1 - x\n  ---\n  error: "a\\nb"\n  ...'), {
    test: "x",
    error: "a\nb",
  });
  assert.deepEqual(testCounts("# tests 7\n# suites 0\n# pass 2\n# fail 5\n"), {
    tests: 7,
    pass: 2,
    fail: 5,
  });
  assert.equal(testCounts("ok 1 - a\n"), undefined);
});

test('a syntax error reads "syntax error at file:line:col: message", not esbuild\'s "Transform failed"', {
  timeout: 60_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  const source = readFileSync(join(p.root, e.file), "utf8");
  writeFileSync(join(p.root, e.file), `${source}\nconst broken = (1;\n`);
  const line = source.split("\n").length + 1;
  const r = await runExerciseTests(e, "exercises", 60_000, { root: p.root });
  assert.equal(r.passed, false);
  assert.equal(r.verdict, `syntax error at ${e.file}:${line}:18: Expected ")" but found ";"`);
  assert.equal(r.firstFailure?.error, r.verdict);
  assert.doesNotMatch(JSON.stringify(r.firstFailure), /Transform failed|TransformError/);
  assert.doesNotMatch(r.firstFailure?.error ?? "", new RegExp(p.root));
});

test("a type error fails the check and reads file:line:col message (tsc), though every test passes", {
  timeout: 60_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  const solution = readFileSync(join(p.root, e.solution), "utf8");
  writeFileSync(join(p.root, e.file), `${solution}\nconst unused: number = "oops";\n`);
  const line = solution.split("\n").length + 1;
  const without = await runExerciseTests(e, "exercises", 60_000, { root: p.root });
  assert.equal(without.passed, true, "the tests alone do not see it");
  const r = await runExerciseTests(e, "exercises", 60_000, { root: p.root, typeCheck: true });
  assert.equal(r.passed, false);
  assert.equal(
    r.typeError,
    `${e.file}:${line}:7 Type 'string' is not assignable to type 'number'.`,
  );
  assert.equal(r.verdict, `type error at ${r.typeError}`);
  p.solve(e);
  assert.equal(
    (await runExerciseTests(e, "exercises", 60_000, { root: p.root, typeCheck: true })).passed,
    true,
    "a clean answer still passes",
  );
});

test("every test passes but the file never ends: said so, soon after the last test, not at the time limit", {
  timeout: 60_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  writeFileSync(
    join(p.root, e.test),
    [
      'import { createServer } from "node:http";',
      'import { test } from "node:test";',
      'test("first", () => {});',
      'test("opens a server and forgets it", async () => {',
      "  const server = createServer();",
      '  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));',
      "});",
      'test("third", () => {});',
    ].join("\n"),
  );
  const limit = 50_000;
  const r = await runExerciseTests(e, "exercises", limit, { root: p.root, stillOpenMs: 1_000 });
  assert.equal(r.passed, false);
  assert.equal(r.timedOut, true);
  assert.equal(
    r.verdict,
    "all 3 tests pass, but the test file never ended: something is still open (a server not closed? a timer?)",
  );
  assert.deepEqual(r.counts, { tests: 3, pass: 3, fail: 0 });
  assert.ok(r.ms < limit, `it waited for the whole limit (${r.ms} ms)`);
});

test("the grace before a run counts as left open grows with the time the run took to start (a busy machine)", () => {
  assert.equal(stillOpenGraceMs(5_000, 800), 5_000, "an idle machine: the least");
  assert.equal(stillOpenGraceMs(5_000, undefined), 5_000, "no test started yet");
  assert.equal(stillOpenGraceMs(5_000, 4_000), 12_000, "a start that took 4 s: three times that");
});

test("pure-function exercises get a much shorter time limit than those that start servers", () => {
  const all = shippedExercises();
  const pure = all.find((e) => e.id === "01a")!;
  const server = all.find((e) => e.id === "04a")!;
  assert.deepEqual([pure.pure, server.pure], [true, false], "the manifest says which is which");
  assert.ok(checkLimitMs(pure) <= 15_000, String(checkLimitMs(pure)));
  assert.ok(checkLimitMs(server) >= 4 * checkLimitMs(pure));
});

test("npm run check keeps the indentation of a failure's continuation lines", {
  timeout: 60_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  writeFileSync(
    join(p.root, e.test),
    [
      'import { test } from "node:test";',
      'test("explains", () => { throw new Error("first line\\n  second line, indented\\nthird"); });',
    ].join("\n"),
  );
  const r = await runIn(p.root, "lib/runner/check-cli.ts", [e.id]);
  assert.match(
    r.output,
    /\n {4}failing: +explains\n( +)first line\n\1 {2}second line, indented\n\1third\n/,
    r.output,
  );
});

test("an endless loop is stopped at the time limit, and a cancelled run stops at once", {
  timeout: 60_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  writeFileSync(
    join(p.root, e.file),
    readFileSync(join(p.root, e.file), "utf8").replace(
      /throw new Error\("TODO: [^"]*"\);/,
      "for (;;) {}",
    ),
  );
  const hung = await runExerciseTests(e, "exercises", 1_500, { root: p.root });
  assert.equal(hung.timedOut, true);
  assert.equal(hung.passed, false);
  assert.match(hung.verdict ?? "", /without ending and was stopped|no test started within 1\.5 s/);

  const abort = new AbortController();
  const running = runExerciseTests(e, "exercises", 60_000, { root: p.root, signal: abort.signal });
  abort.abort();
  const cancelled = await running;
  assert.equal(cancelled.passed, false);
  assert.equal(cancelled.timedOut, false);
});
