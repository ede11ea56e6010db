// Tests for exercise 02a. Run them with `npm run check 2`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { scripted, seeded } from "../lib/core/random.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { nominalBackoffMs, codexBackoff } =
  await loadExercise<typeof import("./02a-codex-backoff.ts")>("02a-codex-backoff");

/** Equal up to floating-point rounding. */
function near(actual: number, expected: number, what: string): void {
  assert.ok(
    Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
    `${what}: expected ${expected}, got ${actual}`,
  );
}

test("the page's question: the nominal wait before the 4th retry", () => {
  assert.equal(nominalBackoffMs(4), 1600);
});

test("the nominal wait starts at 200 ms and doubles with each retry", () => {
  assert.deepEqual([1, 2, 3, 4, 5].map(nominalBackoffMs), [200, 400, 800, 1600, 3200]);
});

test("attempt 0 waits like attempt 1 (Rust's saturating_sub)", () => {
  assert.equal(nominalBackoffMs(0), 200);
});

test("no cap: the 20th retry waits 200 × 2^19 ms, about 29 hours", () => {
  assert.equal(nominalBackoffMs(20), 104_857_600);
});

test("a draw of 0.5 is the middle of [0.9, 1.1): the nominal wait itself", () => {
  near(codexBackoff(4, scripted(0.5)), 1600, "retry 4");
  near(codexBackoff(1, scripted(0.5)), 200, "retry 1");
});

test("a draw of 0 gives 90 % of the nominal wait; a draw near 1 almost 110 %", () => {
  near(codexBackoff(1, scripted(0)), 180, "retry 1, draw 0");
  near(codexBackoff(4, scripted(0)), 1440, "retry 4, draw 0");
  const top = codexBackoff(4, scripted(0.999999));
  assert.ok(
    top < 1760 && top > 1759.99,
    `retry 4, draw 0.999999: expected just under 1760, got ${top}`,
  );
});

test("one draw per wait, from the random source given", () => {
  // scripted() throws if asked for a second draw; different draws must give different waits.
  assert.notEqual(codexBackoff(2, scripted(0.1)), codexBackoff(2, scripted(0.9)));
});

test("over many seeded draws every wait lies in [0.9, 1.1) × nominal, and the range is used", () => {
  const random = seeded(2026);
  for (let attempt = 1; attempt <= 8; attempt++) {
    const nominal = 200 * 2 ** (attempt - 1);
    const waits = Array.from({ length: 2000 }, () => codexBackoff(attempt, random));
    for (const w of waits)
      assert.ok(
        w >= 0.9 * nominal - 1e-9 && w < 1.1 * nominal,
        `retry ${attempt}: ${w} outside [${0.9 * nominal}, ${1.1 * nominal})`,
      );
    const mean = waits.reduce((a, b) => a + b, 0) / waits.length;
    assert.ok(
      Math.abs(mean - nominal) < 0.01 * nominal,
      `retry ${attempt}: mean ${mean}, expected about ${nominal}`,
    );
    assert.ok(
      Math.min(...waits) < 0.905 * nominal && Math.max(...waits) > 1.095 * nominal,
      `retry ${attempt}: the jitter does not reach the ends of ±10 %`,
    );
  }
});
