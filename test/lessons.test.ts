// The lessons as a set: numbered from 01 without gaps, each with its test file that runs it and
// checks what it measured (test/lesson-NN.test.ts, in npm test; lesson 10, which needs PostgreSQL,
// in test/full/), each with its kept output (lessons/output/, compared with a run in test/full/), and
// the command line they share.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { listLessons, ROOT } from "../lib/runner/catalog.ts";
import {
  maskOutput,
  OUTPUT_DIR,
  OUTPUT_LANGUAGES,
  outputDiff,
  outputFile,
  readKeptOutput,
} from "./lesson-output.ts";
import { runTs } from "./run-helpers.ts";

const lessons = listLessons();

test("there are lessons, numbered from 01 without gaps", () => {
  assert.ok(lessons.length >= 1);
  for (const [i, l] of lessons.entries()) assert.equal(Number(l.number), i + 1, l.file);
});

test("every lesson has a test file of its own that runs it", () => {
  for (const lesson of lessons) {
    const candidates = [
      join("test", `lesson-${lesson.number}.test.ts`),
      join("test", "full", `lesson-${lesson.number}.test.ts`),
    ];
    const found = candidates.filter((f) => existsSync(join(ROOT, f)));
    assert.ok(found.length > 0, `lesson ${lesson.number}: none of ${candidates.join(", ")} exists`);
    assert.ok(
      found.some((f) => readFileSync(join(ROOT, f), "utf8").includes(`"${lesson.file}"`)),
      `${found.join(", ")}: none runs ${lesson.file}`,
    );
  }
});

test("every lesson has its kept output in each language, masked, and each file there is a lesson's", () => {
  const expected = lessons.flatMap((lesson) =>
    OUTPUT_LANGUAGES.map((language) => ({ lesson, language, file: outputFile(lesson, language) })),
  );
  for (const { lesson, language, file } of expected) {
    const kept = readKeptOutput(lesson, language);
    assert.ok(
      kept !== undefined,
      `${file} is missing: write it with npm run snapshots -- ${Number(lesson.number)}`,
    );
    assert.ok(kept.split("\n").length > 20, `${file}: the lesson's whole output`);
    const unmasked = outputDiff(kept, maskOutput(lesson.number, kept));
    assert.ok(
      unmasked === undefined,
      `${file} holds what the masks hide (a hand edit?): write it with npm run snapshots -- ${Number(lesson.number)}. ${unmasked}`,
    );
  }
  const files = readdirSync(join(ROOT, OUTPUT_DIR)).map((f) => `${OUTPUT_DIR}/${f}`);
  assert.deepEqual(
    files.filter((f) => !expected.some((e) => e.file === f)),
    [],
    "files no lesson keeps (npm run snapshots removes them)",
  );
});

test("a kept output's diff shows each place that differs, with the lines of each side", () => {
  assert.equal(outputDiff("a\nb\nc", "a\nb\nc"), undefined);
  const diff = outputDiff(
    ["title", "x 1", "same", "same", "gone", "end"].join("\n"),
    ["title", "x 2", "same", "same", "end", "new"].join("\n"),
  );
  assert.equal(
    diff,
    [
      "3 line(s) differ in 3 place(s); - the file, + this run, each with its own line numbers:",
      "     1  title",
      "-    2  x 1",
      "+    2  x 2",
      "     3  same",
      "     4  same",
      "-    5  gone",
      "     6  end",
      "+    6  new",
    ].join("\n"),
  );
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
