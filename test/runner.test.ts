// The learner's commands: lesson list and lookup, check, hint; bad arguments give one clear line.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseHeader } from "../lib/core/header.ts";
import { displayWidth } from "../lib/core/text.ts";
import { type Exercise, findExercises, findLesson, listLessons } from "../lib/runner/catalog.ts";
import { firstFailure } from "../lib/runner/exercise-run.ts";
import { runTs } from "./run-helpers.ts";
import { runIn, shippedExercises, shippedProject, tempProject } from "./temp-project.ts";

test("parseHeader reads the first line and multi-line tags", () => {
  const { first, tags } = parseHeader(
    "/**\n * Exercise 09z · Title here\n * @lesson 09\n * @hint one\n *   two\n *\n * Body text\n */",
  );
  assert.equal(first, "Exercise 09z · Title here");
  assert.deepEqual(tags.get("lesson"), ["09"]);
  assert.deepEqual(tags.get("hint"), ["one two"]);
});

test("lessons are found by number, padded number, full name or slug", () => {
  const lessons = listLessons();
  for (const q of ["1", "01", "01-timeout-truths", "timeout-truths"])
    assert.equal(findLesson(q, lessons)?.number, "01", q);
  assert.equal(findLesson("99", lessons), undefined);
});

test("exercises are found by id or by lesson number", () => {
  const all = shippedExercises();
  assert.deepEqual(
    findExercises("01a", all).map((e) => e.id),
    ["01a"],
  );
  assert.ok(findExercises("1", all).every((e) => e.lesson === "01"));
  assert.deepEqual(findExercises("zz", all), []);
});

test("firstFailure reads node:test's TAP output", () => {
  const tap =
    "TAP version 13\n# Subtest: a\nok 1 - a\n# Subtest: b\nnot ok 2 - b\n  ---\n  error: 'TODO: write b (exercise 01a)'\n  ...\n";
  assert.deepEqual(firstFailure(tap), { test: "b", error: "TODO: write b (exercise 01a)" });
  assert.equal(firstFailure("ok 1 - a\n"), undefined);
});

test("npm run lesson with no argument lists the lessons with their titles", {
  timeout: 60_000,
}, async (t) => {
  const p = tempProject(); // the list checks the exercises: in a copy, so that the learner's own do not count
  t.after(() => p.remove());
  const r = await runIn(p.root, "lib/runner/lesson-cli.ts", [], "", { COLUMNS: "60" });
  assert.equal(r.code, 0, r.output);
  // At 60 columns every line fits, and the text is cut only between words.
  const lines = r.output.replace(/\x1b\[[0-9;]*m/g, "").split("\n");
  for (const line of lines) assert.ok([...line].length <= 60, `wider than 60 columns: "${line}"`);
  const joined = lines.map((l) => l.trim()).join(" ");
  for (const l of listLessons()) {
    assert.ok(
      joined.includes(`${l.number} ${l.title}`) || joined.includes(`${l.number}  ${l.title}`),
      l.title,
    );
    assert.ok(joined.includes(l.summary), `the summary of lesson ${l.number}, words whole`);
  }
});

test("npm run lesson <unknown> says which lessons exist, exit 2, no stack trace", async () => {
  const r = await runTs(["lib/runner/lesson-cli.ts", "42"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error: there is no lesson "42"; the lessons are 1/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test("npm run check names the file to edit and the hint for an unsolved exercise (the shipped one, in a copy of the workbook)", {
  timeout: 60_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  const r = await runIn(p.root, "lib/runner/check-cli.ts", [e.id]);
  assert.equal(r.code, 1, r.output);
  assert.match(r.output, new RegExp(`✗ ${e.id}`));
  assert.match(r.output, new RegExp(`edit: +${e.file.replace(/\./g, "\\.")}`));
  assert.match(r.output, new RegExp(`hint: +npm run hint ${e.id}`));
  assert.match(r.output, new RegExp(`TODO: .*\\(exercise ${e.id}\\)`));
});

test("npm run check passes against the solutions and points at them only after a pass", {
  timeout: 60_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  const r = await runIn(p.root, "lib/runner/check-cli.ts", [e.id], "", {
    WORKBOOK_TARGET: "solutions",
  });
  assert.equal(r.code, 0, r.output);
  assert.match(
    r.output,
    new RegExp(`✓ ${e.id} .*compare with ${e.solution.replace(/\./g, "\\.")}`),
  );
});

test("npm run hint prints the hint; a bad id lists the valid ones", async (t) => {
  const p = shippedProject(); // the hints of the exercises as shipped, not of the learner's copies
  t.after(() => p.remove());
  const ok = await runIn(p.root, "lib/runner/hint-cli.ts", ["01a"]);
  assert.equal(ok.code, 0);
  const first = shippedExercises().find((e) => e.id === "01a")!.hintSteps[0]!;
  assert.ok(ok.output.replace(/\s+/g, " ").includes(first.replace(/\s+/g, " ")), ok.output);
  const bad = await runIn(p.root, "lib/runner/hint-cli.ts", ["nope"]);
  assert.equal(bad.code, 2);
  assert.match(bad.output, /the exercises are 01a/);
});

test("npm run hint at 80 columns wraps its header, so the file to edit is shown whole", async (t) => {
  const p = shippedProject();
  t.after(() => p.remove());
  const ran = await runIn(p.root, "lib/runner/hint-cli.ts", ["02a"], "", { COLUMNS: "80" });
  assert.equal(ran.code, 0, ran.output);
  const lines = ran.output.split("\n");
  assert.ok(
    lines.every((l) => [...l].length <= 80),
    lines.join("\n"),
  );
  assert.doesNotMatch(ran.output, /…/);
  assert.match(ran.output.replace(/\s+/g, " "), /file exercises\/02a-codex-backoff\.ts\)/);
});

test("a negative number after an option is that option's value, not an unknown option", async () => {
  const { parseCommand } = await import("../lib/core/cli.ts");
  const spec = {
    usage: "x",
    description: "x",
    options: { ops: { type: "string" }, step: { type: "boolean" } },
    optionHelp: {},
  } as const;
  assert.equal(parseCommand(spec, ["--ops", "-1"]).values.ops, "-1");
  assert.equal(parseCommand(spec, ["--ops=-2", "--step"]).values.ops, "-2");
  assert.throws(() => parseCommand(spec, ["--step", "-1"]), /unknown option|Unknown option|-1/);
});

test("a lesson piped into a reader that stops early exits quietly, without an EPIPE trace", async () => {
  const { spawn } = await import("node:child_process");
  const { childEnv } = await import("../lib/runner/exercise-run.ts");
  const { ROOT } = await import("../lib/runner/catalog.ts");
  const child = spawn(process.execPath, ["--import", "tsx", "lessons/01-timeout-truths.ts"], {
    cwd: ROOT,
    env: childEnv({ NO_COLOR: "1" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  child.stdout.once("data", () => child.stdout.destroy()); // the reader goes away after the first chunk
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  assert.equal(stderr, "");
  assert.equal(code, 0);
});

test("a bare npm run hint shows the current exercise's hint: the first that does not pass yet", {
  timeout: 90_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const [a, b] = p.exercises as [Exercise, Exercise];
  const first = await runIn(p.root, "lib/runner/hint-cli.ts");
  assert.equal(first.code, 0, first.output);
  assert.match(first.output, new RegExp(`^Exercise ${a.id} · `));
  assert.ok(first.output.replace(/\s+/g, " ").includes(a.hintSteps[0]!.slice(0, 60)), first.output);
  p.solve(a);
  const second = await runIn(p.root, "lib/runner/hint-cli.ts");
  assert.match(second.output, new RegExp(`^Exercise ${b.id} · `), second.output);
  p.solve(b);
  assert.match((await runIn(p.root, "lib/runner/hint-cli.ts")).output, /^Every exercise passes\./);
});

test("flags given before -- (npm keeps them as npm_config_*) are noticed: 'put flags after --', exit 2", async (t) => {
  const { parseCommand, flagsNpmKept } = await import("../lib/core/cli.ts");
  const spec = {
    usage: "x",
    description: "x",
    options: { manual: { type: "boolean" }, seed: { type: "string" }, yes: { type: "boolean" } },
    optionHelp: {},
  } as const;
  const npm = { npm_lifecycle_event: "start", npm_config_manual: "true", npm_config_yes: "" };
  assert.throws(
    () => parseCommand(spec, [], npm),
    /^Error: npm kept --manual for itself; put flags after --: npm start -- --manual$/,
  );
  assert.deepEqual(
    flagsNpmKept(spec.options, {
      ...npm,
      npm_config_manual: undefined,
      npm_config_seed: "true",
      npm_config_yes: "true",
    }),
    ["--seed <value>"],
    "npm's own settings (yes) may come from .npmrc",
  );
  assert.deepEqual(
    flagsNpmKept(spec.options, { npm_config_manual: "true" }),
    [],
    "not run by npm: nothing to say",
  );

  const p = tempProject();
  t.after(() => p.remove());
  const r = await runIn(p.root, "lib/runner/lesson-cli.ts", ["1"], "", {
    npm_lifecycle_event: "lesson",
    npm_config_step: "true",
  });
  assert.equal(r.code, 2, r.output);
  assert.equal(
    r.output,
    "error: npm kept --step for itself; put flags after --: npm run lesson 1 -- --step (try --help)\n",
  );
});

test("firstFailure keeps the two values an assertion compared, on one line each", () => {
  const tap = (fields: string): string =>
    `not ok 1 - t\n  ---\n  error: |-\n    Expected values to be strictly deep-equal:\n    + actual - expected\n  code: 'ERR_ASSERTION'\n${fields}  stack: |-\n    at x (y.ts:1:1)\n  ...\n`;
  const scalar = firstFailure(tap("  expected: 1600\n  actual: 3200\n  operator: 'strictEqual'\n"));
  assert.equal(scalar?.actual, "3200");
  assert.equal(scalar?.expected, "1600");
  const deep = firstFailure(
    tap(
      "  expected:\n    0: 200\n    1: 400\n  actual:\n    0: 400\n    1:\n      state: 'done'\n      fence: 2\n  operator: 'deepStrictEqual'\n",
    ),
  );
  assert.equal(deep?.expected, "[200, 400]");
  assert.equal(deep?.actual, "[400, { state: 'done', fence: 2 }]");
  const text = firstFailure(
    tap("  expected: |-\n    two\n    lines\n  actual: 'one'\n  operator: 'strictEqual'\n"),
  );
  assert.equal(text?.expected, JSON.stringify("two\nlines"));
  // assert.ok(false): its "false" against "true" says nothing the message does not.
  const ok = firstFailure(tap("  expected: true\n  actual: false\n  operator: '=='\n"));
  assert.equal(ok?.actual, undefined);
  assert.equal(ok?.expected, undefined);
});

/** The temporary project's manifest rewritten: the first exercise's hint in three steps, and its Chinese. */
function hintInSteps(p: ReturnType<typeof tempProject>): string[] {
  const [a, b] = p.exercises as [Exercise, Exercise];
  const steps = [
    "Which idea: the one lesson 01 ends with.",
    "The order: the method first, then the failure.",
    "The answer, nearly: return true for PUT.",
  ];
  const entry = (e: Exercise, order: number, hint: string[], zh: boolean): string =>
    `[[exercises]]\nid = "${e.id}"\nlesson = ${Number(e.lesson)}\norder = ${order}\npure = true\ntitle = "${e.title.replace(/"/g, "'")}"\ngoal = '''\n${e.goal}\n'''\nhint = [${hint.map((h) => `'''${h}'''`).join(", ")}]\n${
      zh
        ? `\n[exercises.zh]\ntitle = "客户端可以自己重试吗？"\ngoal = '''\n把 RFC 9110 §9.2.2 的重试规则写成两个函数。\n'''\nhint = ['''先想第 01 课最后讲的那个道理。''', '''顺序：先看方法，再看失败。''', '''差不多就是答案了：PUT 返回 true。''']\n`
        : ""
    }`;
  writeFileSync(
    join(p.root, "exercises/info.toml"),
    `${entry(a, 10, steps, true)}\n${entry(b, 20, ["One step only."], false)}`,
  );
  return steps;
}

test("npm run hint gives the first step; asking again the next, up to the last; --all and --step say it at once", async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const steps = hintInSteps(p);
  const id = p.exercises[0]!.id;
  const ask = async (...args: string[]): Promise<string> => {
    const r = await runIn(p.root, "lib/runner/hint-cli.ts", [id, ...args]);
    assert.equal(r.code, 0, r.output);
    return r.output.replace(/\s+/g, " ");
  };
  const first = await ask();
  assert.ok(first.includes(`Step 1 of 3 ${steps[0]}`), first);
  assert.ok(!first.includes(steps[1]!) && !first.includes(steps[2]!), "only the first step");
  assert.match(first, new RegExp(`Ask again for step 2 of 3: npm run hint ${id}`));
  const second = await ask();
  assert.ok(second.includes(steps[0]!) && second.includes(`Step 2 of 3 ${steps[1]}`), second);
  assert.ok(!second.includes(steps[2]!), "not yet the last");
  const third = await ask();
  assert.ok(third.includes(`Step 3 of 3 ${steps[2]}`), third);
  assert.doesNotMatch(third, /Ask again/);
  assert.ok((await ask()).includes(steps[2]!), "asking after the last gives it again");

  // Another project: nothing read yet.
  const q = tempProject();
  t.after(() => q.remove());
  hintInSteps(q);
  const all = await runIn(q.root, "lib/runner/hint-cli.ts", [id, "--all"]);
  for (const s of steps) assert.ok(all.output.replace(/\s+/g, " ").includes(s), all.output);
  const upTo = await runIn(q.root, "lib/runner/hint-cli.ts", [p.exercises[1]!.id, "--step", "2"]);
  assert.equal(upTo.code, 0, upTo.output);
  assert.match(upTo.output, /One step only\./, "a hint of one step: --step past it shows that one");
  assert.doesNotMatch(upTo.output, /Step 1 of/, "one step has no step numbers");
  const zh = await runIn(q.root, "lib/runner/hint-cli.ts", [id, "--lang", "zh", "--step", "1"]);
  assert.match(zh.output, /练习 \d\d[a-z] · 客户端可以自己重试吗？（第 \d\d 课，文件 exercises\//);
  assert.match(zh.output, /第 1 步（共 3 步）\n {2}先想第 01 课最后讲的那个道理。/);
  assert.match(
    zh.output.replace(/\s+/g, " "),
    /还是卡住了？再运行一次 npm run hint \d\d[a-z]，看第 2 步（共 3 步）。/,
  );
});

test("piped npm run check wraps between words, the path to compare with whole", {
  timeout: 60_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  const r = await runIn(p.root, "lib/runner/check-cli.ts", [e.id], "", {
    WORKBOOK_TARGET: "solutions",
    COLUMNS: "50",
  });
  assert.equal(r.code, 0, r.output);
  const lines = r.output.split("\n");
  for (const line of lines) assert.ok(displayWidth(line) <= 50, `wider than 50: ${line}`);
  assert.doesNotMatch(r.output, /…/, "nothing cut");
  assert.ok(
    lines.some((l) => l.includes(e.solution)),
    `the solution's path whole on one line:\n${r.output}`,
  );
});
