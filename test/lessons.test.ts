// The lessons as a set: numbered from 01 without gaps, each with its test file that runs it and
// checks what it measured (test/lesson-NN.test.ts, in npm test; lesson 10, which needs PostgreSQL,
// in test/full/), and the command line they share.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { listLessons, ROOT } from "../lib/runner/catalog.ts";
import { runTs } from "./run-helpers.ts";

const lessons = listLessons();

test("there are lessons, numbered from 01 without gaps", () => {
  assert.ok(lessons.length >= 1);
  for (const [i, l] of lessons.entries()) assert.equal(Number(l.number), i + 1, l.file);
});

test("every lesson has a test file of its own that runs it", () => {
  for (const lesson of lessons) {
    const candidates = [join("test", `lesson-${lesson.number}.test.ts`), join("test", "full", `lesson-${lesson.number}.test.ts`)];
    const found = candidates.filter((f) => existsSync(join(ROOT, f)));
    assert.ok(found.length > 0, `lesson ${lesson.number}: none of ${candidates.join(", ")} exists`);
    assert.ok(
      found.some((f) => readFileSync(join(ROOT, f), "utf8").includes(`"${lesson.file}"`)),
      `${found.join(", ")}: none runs ${lesson.file}`,
    );
  }
});

test("a lesson's --help exits 0 and a bad flag exits 2 with one line", async () => {
  const help = await runTs(["lessons/01-timeout-truths.ts", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--seed/);
  const bad = await runTs(["lessons/01-timeout-truths.ts", "--seed", "abc"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: --seed takes a whole number/);
  assert.equal(bad.stderr.trim().split("\n").length, 1);
});
