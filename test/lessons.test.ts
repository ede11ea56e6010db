// Every lesson runs to the end, exits 0 by itself (no server or timer left behind), and prints what
// it measured. Lesson-specific checks read the numbers the lesson printed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { listLessons } from "../lib/runner/catalog.ts";
import { runTs, tableRow } from "./run-helpers.ts";

const lessons = listLessons();

test("there are lessons, numbered from 01 without gaps", () => {
  assert.ok(lessons.length >= 1);
  lessons.forEach((l, i) => assert.equal(Number(l.number), i + 1, l.file));
});

for (const lesson of lessons) {
  test(`lesson ${lesson.number} runs, exits 0 on its own, writes nothing to stderr`, async () => {
    const ran = await runTs([lesson.file, "--seed", "1"], { timeoutMs: 60_000 });
    assert.equal(ran.timedOut, false, `lesson ${lesson.number} did not exit within 60 s (a leaked server or timer?)`);
    assert.equal(ran.stderr, "");
    assert.equal(ran.code, 0);
    assert.ok(ran.stdout.length > 500);
  });
}

test("lesson 01 measures 1 / 2 / 2 for the three truths, 1 for PUT and 2 for POST", async () => {
  const ran = await runTs(["lessons/01-timeout-truths.ts"]);
  assert.equal(ran.code, 0, ran.stderr);
  const count = (label: string) => tableRow(ran.stdout, label)?.at(-1);
  assert.equal(count("1 never arrived"), "1");
  assert.equal(count("2 done, answer lost"), "2");
  assert.equal(count("3 still running"), "2");
  assert.equal(count("PUT, answer lost"), "1");
  assert.equal(count("POST, answer lost"), "2");
  assert.match(ran.stdout, /Identical in all three cases/);
});

test("lesson 01 prints the same trace for the same seed, times aside", async () => {
  const strip = (s: string) => s.replace(/^\s*\d+ ms/gm, "").replace(/\d+ ms\b/g, "N ms");
  const [a, b] = await Promise.all([runTs(["lessons/01-timeout-truths.ts", "--seed", "5"]), runTs(["lessons/01-timeout-truths.ts", "--seed", "5"])]);
  assert.equal(strip(a.stdout), strip(b.stdout));
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
