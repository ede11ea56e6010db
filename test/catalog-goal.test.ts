// The "Goal:" paragraph the watch mode shows: prose runs together, formula lines stay lines.
import assert from "node:assert/strict";
import { test } from "node:test";
import { headerParagraph, listExercises } from "../lib/runner/catalog.ts";
import { shippedProject, shippedText } from "./temp-project.ts";

test("a goal's indented formula lines stay lines; the prose around them is one paragraph", () => {
  const source = `/**
 * Title
 *
 * Goal: two strategies, with v_n = min(cap, base × 2^n)
 * for retry n:
 *   Full:  sleep = uniform(0, v_n)
 *   Decorrelated:  sleep = min(cap, uniform(base, 3 × prev))
 * Each client keeps its own
 * previous sleep.
 *
 * Constraints: none.
 */`;
  assert.equal(
    headerParagraph(source, "Goal"),
    "two strategies, with v_n = min(cap, base × 2^n) for retry n:\nFull:  sleep = uniform(0, v_n)\nDecorrelated:  sleep = min(cap, uniform(base, 3 × prev))\nEach client keeps its own previous sleep.",
  );
  assert.equal(headerParagraph(source, "Constraints"), "none.");
});

test("exercise 02b's goal shows its two formulas on lines of their own", (t) => {
  const p = shippedProject(); // the exercises as shipped, not the learner's copies
  t.after(() => p.remove());
  const goal = listExercises(p.root).find((e) => e.id === "02b")?.goal ?? "";
  const lines = goal.split("\n");
  assert.ok(
    lines.some((l) => l.startsWith("Full Jitter:")),
    goal,
  );
  assert.ok(
    lines.some((l) => l.startsWith("Decorrelated Jitter:")),
    goal,
  );
});

test("exercise 02a's test titles, which the runner shows, do not give its answer away", async () => {
  const tests = shippedText("exercises/02a-codex-backoff.test.ts");
  // The titles are t() messages: test(t("…"), …).
  const titles = [...tests.matchAll(/test\(\s*t\(\s*"([^"]*)"/g)].map((m) => m[1]!);
  assert.ok(titles.length >= 5);
  for (const t of titles) assert.doesNotMatch(t, /1600|1,600/, t);
});
