// Tests for exercise 02b. Run them with `npm run check 2`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { scripted, seeded } from "../lib/core/random.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { fullJitter, decorrelatedJitter, decorrelatedClient } = await loadExercise<
  typeof import("./02b-full-and-decorrelated.ts")
>("02b-full-and-decorrelated");

/** The blog simulator's values. */
const P = { baseMs: 5, capMs: 2000 };

/** Equal up to floating-point rounding. */
function near(actual: number, expected: number, what: string): void {
  assert.ok(
    Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
    `${what}: expected ${expected}, got ${actual}`,
  );
}

test("full jitter with fixed draws: draw × v_n", () => {
  near(fullJitter(1, P, scripted(0.5)), 5, "retry 1 (v_1 = 10), draw 0.5");
  near(fullJitter(3, P, scripted(0.25)), 10, "retry 3 (v_3 = 40), draw 0.25");
  near(fullJitter(4, P, scripted(0)), 0, "retry 4, draw 0: full jitter may retry at once");
});

test("full jitter stops growing at the cap", () => {
  near(fullJitter(9, P, scripted(0.5)), 1000, "retry 9 (5 × 2^9 = 2560, capped to 2000), draw 0.5");
  near(fullJitter(30, P, scripted(0.5)), 1000, "retry 30, draw 0.5");
});

test("full jitter: over many seeded draws, in [0, v_n), spread over all of it, mean about v_n / 2", () => {
  const random = seeded(2015);
  for (let attempt = 1; attempt <= 12; attempt++) {
    const v = Math.min(2000, 5 * 2 ** attempt);
    const waits = Array.from({ length: 4000 }, () => fullJitter(attempt, P, random));
    for (const w of waits) assert.ok(w >= 0 && w < v, `retry ${attempt}: ${w} outside [0, ${v})`);
    const mean = waits.reduce((a, b) => a + b, 0) / waits.length;
    assert.ok(
      Math.abs(mean - v / 2) < 0.05 * v,
      `retry ${attempt}: mean ${mean}, expected about ${v / 2}`,
    );
    assert.ok(
      Math.min(...waits) < 0.02 * v && Math.max(...waits) > 0.98 * v,
      `retry ${attempt}: does not use the whole range`,
    );
  }
});

test("decorrelated jitter with fixed draws: base + draw × (3 × prev − base)", () => {
  near(decorrelatedJitter(5, P, scripted(0)), 5, "prev 5, draw 0: never below base");
  near(decorrelatedJitter(5, P, scripted(0.5)), 10, "prev 5, draw 0.5: uniform(5, 15)");
  near(decorrelatedJitter(100, P, scripted(0.5)), 152.5, "prev 100, draw 0.5: uniform(5, 300)");
});

test("decorrelated jitter is capped", () => {
  near(
    decorrelatedJitter(1000, P, scripted(0.9)),
    2000,
    "prev 1000, draw 0.9: 2700.5 capped to 2000",
  );
  near(decorrelatedJitter(2000, P, scripted(0)), 5, "from the cap, a draw of 0 falls back to base");
});

test("decorrelated jitter: over many seeded draws, always in [base, min(cap, 3 × prev))", () => {
  const random = seeded(7);
  let prev = P.baseMs;
  let hitCap = false;
  for (let i = 0; i < 20_000; i++) {
    const next = decorrelatedJitter(prev, P, random);
    assert.ok(next >= P.baseMs, `${next} below base`);
    assert.ok(next <= P.capMs, `${next} above the cap`);
    if (3 * prev < P.capMs) assert.ok(next < 3 * prev, `${next} not below 3 × ${prev}`);
    if (next === P.capMs) hitCap = true;
    prev = next;
  }
  assert.ok(hitCap, "in 20,000 steps the chain should reach the cap at least once");
});

test("a decorrelated client starts from base and remembers its previous wait", () => {
  const next = decorrelatedClient(P, scripted(0.5, 0.5, 0.5));
  near(next(), 10, "1st wait: uniform(5, 15) at 0.5");
  near(next(), 17.5, "2nd wait: uniform(5, 30) at 0.5");
  near(next(), 28.75, "3rd wait: uniform(5, 52.5) at 0.5");
});

test("each decorrelated client keeps its own previous wait", () => {
  const a = decorrelatedClient(P, scripted(0.9, 0.9));
  const b = decorrelatedClient(P, scripted(0.5));
  near(a(), 14, "client a, 1st wait");
  near(b(), 10, "client b, 1st wait: starts from base, not from a's wait");
  near(a(), 5 + 0.9 * (42 - 5), "client a, 2nd wait");
});
