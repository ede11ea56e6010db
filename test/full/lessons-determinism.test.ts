// The same seed prints the same trace, times aside: each lesson run twice with one seed, at once (two
// processes), and the two outputs compared. npm test runs each lesson once (test/lesson-NN.test.ts);
// lesson 10's pair, which needs PostgreSQL, is in test/full/lesson-10.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { listLessons } from "../../lib/runner/catalog.ts";
import { runLesson } from "../lesson-run.ts";

/** A trace's times left out: the elapsed time opening a line, and every "<n> ms" in it. */
const timesAside = (s: string): string => s.replace(/^\s*\d+ ms/gm, "").replace(/\d+ ms\b/g, "N ms");

interface Pair {
  /** The seed both runs get. */
  seed: string;
  /** What must be the same in both outputs. */
  same: (stdout: string) => string;
  /** A seed whose output must differ, where the seed draws something the lesson prints. */
  other?: { seed: string; why: string };
}

const LIVE = "The herd over real HTTP";

/** Per lesson, by number: the seed and what of its output the seed fixes. */
const PAIRS: Record<string, Pair> = {
  "01": { seed: "5", same: timesAside },
  // Lesson 02's live HTTP demo counts what the scheduler did; everything before it is the seed's.
  "02": {
    seed: "1",
    same: (s) => {
      assert.ok(s.includes(LIVE), "the live HTTP demo ran");
      return s.slice(0, s.indexOf(LIVE));
    },
  },
  "03": { seed: "1", same: (s) => s.replace(/^\s*\d+ ms/gm, "") },
  "04": { seed: "5", same: (s) => timesAside(s).replace(/retry-after-ms: \d+/g, "retry-after-ms: N") },
  "05": { seed: "7", same: (s) => s.replace(/^\s*-?\d+ ms/gm, "").replace(/\d+ ms\b/g, "N ms") },
  "06": { seed: "7", same: timesAside, other: { seed: "8", why: "another seed draws other run and tool_use ids" } },
  "07": { seed: "3", same: timesAside },
  "08": { seed: "2", same: timesAside },
};

/** Lessons with no pair here, and why. */
const ELSEWHERE: Record<string, string> = {
  "09": "measures real libraries' timing: its gaps and jitter vary from run to run, by design",
  "10": "needs PostgreSQL: test/full/lesson-10.test.ts runs its pair",
};

test("every lesson has its pair here, or a reason it has none", () => {
  for (const lesson of listLessons()) assert.ok(PAIRS[lesson.number] !== undefined || ELSEWHERE[lesson.number] !== undefined, `lesson ${lesson.number}`);
});

for (const lesson of listLessons()) {
  const pair = PAIRS[lesson.number];
  if (pair === undefined) continue;
  test(`lesson ${lesson.number} prints the same trace for the same seed, times aside`, async () => {
    const run = (seed: string) => runLesson([lesson.file, "--seed", seed]);
    const [a, b] = await Promise.all([run(pair.seed), run(pair.seed)]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.ok(a.stdout.length > 500);
    assert.equal(pair.same(b.stdout), pair.same(a.stdout));
    if (pair.other !== undefined) {
      const c = await run(pair.other.seed);
      assert.equal(c.code, 0, c.stderr);
      assert.notEqual(pair.same(c.stdout), pair.same(a.stdout), pair.other.why);
    }
  });
}

// Wrapping depends on nothing but the width: at 80 columns too, one seed prints one trace.
test("the same seed prints the same trace at a given width, times aside", async () => {
  const run = () => runLesson(["lessons/01-timeout-truths.ts", "--seed", "5"], { env: { COLUMNS: "80" } });
  const [a, b] = await Promise.all([run(), run()]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(timesAside(a.stdout), timesAside(b.stdout));
});
