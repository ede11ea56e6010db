// Progress is computed by running the tests: npm run progress, the lesson list's ✓/✗, and the help
// and error lines of every runner command.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Exercise, Lesson } from "../lib/runner/catalog.ts";
import type { ExerciseResult } from "../lib/runner/exercise-run.ts";
import { byLesson, checkAll } from "../lib/runner/status.ts";
import { runIn, tempProject } from "./temp-project.ts";

test("byLesson: lessons in order with their exercises; lessons without any; exercises of an unknown lesson last", () => {
  const lesson = (n: string): Lesson => ({
    number: n,
    slug: "s",
    file: `lessons/${n}-s.ts`,
    title: `L${n}`,
    summary: "",
    run: "",
  });
  const result = (id: string, passed: boolean): ExerciseResult => ({
    exercise: {
      id,
      lesson: id.slice(0, 2),
      name: `${id}-x`,
      title: id,
      goal: "",
      hintSteps: [],
      pure: true,
      file: "",
      test: "",
      solution: "",
    } satisfies Exercise,
    passed,
    timedOut: false,
    output: "",
    ms: 0,
  });
  const rows = byLesson(
    [lesson("01"), lesson("02"), lesson("03")],
    [result("01a", true), result("01b", true), result("03a", false), result("07a", true)],
  );
  assert.deepEqual(
    rows.map((r) => [r.number, r.lesson?.title, r.results.map((x) => x.exercise.id), r.done]),
    [
      ["01", "L01", ["01a", "01b"], true],
      ["02", "L02", [], false],
      ["03", "L03", ["03a"], false],
      ["07", undefined, ["07a"], true],
    ],
  );
});

test("npm run progress: ✓/✗ from running the tests now, a bar, what to do next, and the banner only when all pass", {
  timeout: 120_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const [a, b] = p.exercises as [Exercise, Exercise];

  const none = (await checkAll(p.exercises, { root: p.root, target: "exercises" })).results;
  assert.deepEqual(
    none.map((r) => r.passed),
    [false, false],
  );

  p.solve(a);
  const half = await runIn(p.root, "lib/runner/progress-cli.ts");
  assert.equal(half.code, 0, half.output);
  assert.match(half.output, /each exercise's tests were run just now, 2 at a time, in \d/);
  assert.match(half.output, new RegExp(`✓ ${a.id}  `));
  assert.match(half.output, new RegExp(`✗ ${b.id}  `));
  assert.match(
    half.output,
    new RegExp(`✗ ${a.lesson}  `),
    "a lesson is done only when all its exercises pass",
  );
  assert.match(half.output, /exercises passing: 1\/2/);
  assert.match(half.output, new RegExp(`Next: exercise ${b.id}, ${b.file.replace(/\./g, "\\.")}`));
  assert.doesNotMatch(half.output, /Finished/);

  p.solve(b);
  const all = await runIn(p.root, "lib/runner/progress-cli.ts");
  assert.match(all.output, new RegExp(`✓ ${a.lesson}  `));
  assert.match(all.output, /exercises passing: 2\/2/);
  assert.match(all.output, /★ Finished: all 2 exercises pass, checked just now/);
});

test("npm run lesson lists each lesson's exercises with ✓/✗ and says how long the check took", {
  timeout: 60_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const [a, b] = p.exercises as [Exercise, Exercise];
  p.solve(b);
  const r = await runIn(p.root, "lib/runner/lesson-cli.ts");
  assert.equal(r.code, 0, r.output);
  assert.match(
    r.output,
    new RegExp(`exercises: ✗ ${a.id} ✓ ${b.id} \\(npm run check ${Number(a.lesson)}\\)`),
  );
  assert.match(r.output, /run just now \(2 at a time, \d+(\.\d)? m?s\)/);
});

test("every runner command has --help, and a wrong argument is one line naming what is valid", {
  timeout: 60_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const commands = [
    "watch-cli",
    "progress-cli",
    "reset-cli",
    "lesson-cli",
    "check-cli",
    "hint-cli",
  ];
  const helps = await Promise.all(
    commands.map((c) => runIn(p.root, `lib/runner/${c}.ts`, ["--help"])),
  );
  helps.forEach((h, i) => {
    assert.equal(h.code, 0, `${commands[i]}`);
    assert.match(h.output, /^npm (start|run \w+)/, `${commands[i]}`);
  });
  for (const [command, args, valid] of [
    ["watch-cli", ["--bogus"], /unknown option '--bogus'/],
    ["watch-cli", ["01a"], /Unexpected argument|unexpected argument/i],
    ["progress-cli", ["--bogus"], /unknown option '--bogus'/],
    ["hint-cli", ["zz9"], /the exercises are /],
  ] as const) {
    const r = await runIn(p.root, `lib/runner/${command}.ts`, [...args]);
    assert.equal(r.code, 2, `${command} ${args.join(" ")}: ${r.output}`);
    assert.match(r.output, /^error: .*\(try --help\)\n$/);
    assert.match(r.output, valid);
  }
});
