// Tests for exercise 02b. Run them with `npm run check 2`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
import { scripted, seeded } from "../lib/core/random.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { fullJitter, decorrelatedJitter, decorrelatedClient } = await loadExercise<
  typeof import("./02b-full-and-decorrelated.ts")
>("02b-full-and-decorrelated");

/** The blog simulator's values. */
const P = { baseMs: 5, capMs: 2000 };

/** Equal up to floating-point rounding; `what` names the call and says why that value. */
function near(actual: number, expected: number, what: string): void {
  assert.ok(
    Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
    t("{what}: expected {expected} ms, got {actual} ms", {
      what,
      expected: String(expected),
      actual: String(actual),
    }),
  );
}

test(t("full jitter with fixed draws: draw × v_n"), () => {
  near(
    fullJitter(1, P, scripted(0.5)),
    5,
    t("fullJitter(1) with a draw of 0.5: v_1 = 10 ms, times 0.5"),
  );
  near(
    fullJitter(3, P, scripted(0.25)),
    10,
    t("fullJitter(3) with a draw of 0.25: v_3 = 40 ms, times 0.25"),
  );
  near(
    fullJitter(4, P, scripted(0)),
    0,
    t("fullJitter(4) with a draw of 0: full jitter may retry at once"),
  );
});

test(t("full jitter stops growing at the cap"), () => {
  near(
    fullJitter(9, P, scripted(0.5)),
    1000,
    t("fullJitter(9) with a draw of 0.5: 5 × 2^9 = 2560 ms is capped to 2000 ms, times 0.5"),
  );
  near(
    fullJitter(30, P, scripted(0.5)),
    1000,
    t("fullJitter(30) with a draw of 0.5: far past the cap, still 2000 ms times 0.5"),
  );
});

test(
  t("full jitter: over many seeded draws, in [0, v_n), spread over all of it, mean about v_n / 2"),
  () => {
    const random = seeded(2015);
    for (let attempt = 1; attempt <= 12; attempt++) {
      const v = Math.min(2000, 5 * 2 ** attempt);
      const waits = Array.from({ length: 4000 }, () => fullJitter(attempt, P, random));
      // The first wait out of range, if any (one assertion, not 4000).
      const outside = waits.find((wait) => !(wait >= 0 && wait < v));
      assert.equal(
        outside,
        undefined,
        t(
          "fullJitter({attempt}) gave {wait} ms, outside [0, {v}): the wait is a draw between 0 and v_n",
          { attempt, wait: String(outside), v },
        ),
      );
      const mean = waits.reduce((a, b) => a + b, 0) / waits.length;
      assert.ok(
        Math.abs(mean - v / 2) < 0.05 * v,
        t(
          "fullJitter({attempt}): the mean of 4000 waits is {mean} ms, but a uniform draw from [0, {v}) averages to about half of it",
          { attempt, mean: String(mean), v },
        ),
      );
      assert.ok(
        Math.min(...waits) < 0.02 * v && Math.max(...waits) > 0.98 * v,
        t(
          "fullJitter({attempt}): 4000 waits never came near 0 or {v} ms: full jitter spreads the herd over the whole range",
          { attempt, v },
        ),
      );
    }
  },
);

test(t("decorrelated jitter with fixed draws: base + draw × (3 × prev − base)"), () => {
  near(
    decorrelatedJitter(5, P, scripted(0)),
    5,
    t("decorrelatedJitter(5) with a draw of 0: never below base"),
  );
  near(
    decorrelatedJitter(5, P, scripted(0.5)),
    10,
    t("decorrelatedJitter(5) with a draw of 0.5: the middle of [5, 15)"),
  );
  near(
    decorrelatedJitter(100, P, scripted(0.5)),
    152.5,
    t("decorrelatedJitter(100) with a draw of 0.5: the middle of [5, 300)"),
  );
});

test(t("decorrelated jitter is capped"), () => {
  near(
    decorrelatedJitter(1000, P, scripted(0.9)),
    2000,
    t("decorrelatedJitter(1000) with a draw of 0.9: 2700.5 ms is capped to 2000 ms"),
  );
  near(
    decorrelatedJitter(2000, P, scripted(0)),
    5,
    t("decorrelatedJitter(2000) with a draw of 0: from the cap, a draw of 0 falls back to base"),
  );
});

test(t("decorrelated jitter: over many seeded draws, always in [base, min(cap, 3 × prev))"), () => {
  const random = seeded(7);
  // The chain's steps, [previous wait, next wait]; then the first step out of bounds, if any.
  const steps: [number, number][] = [];
  let prev = P.baseMs;
  for (let i = 0; i < 20_000; i++) {
    const next = decorrelatedJitter(prev, P, random);
    steps.push([prev, next]);
    prev = next;
  }
  const outside = steps.find(([, next]) => !(next >= P.baseMs && next <= P.capMs));
  assert.equal(
    outside,
    undefined,
    t(
      "decorrelatedJitter({prev}) gave {next} ms: every wait lies between base (5 ms) and the cap (2000 ms)",
      { prev: String(outside?.[0]), next: String(outside?.[1]) },
    ),
  );
  const tooLong = steps.find(([before, next]) => 3 * before < P.capMs && !(next < 3 * before));
  assert.equal(
    tooLong,
    undefined,
    t(
      "decorrelatedJitter({prev}) gave {next} ms: below the cap, the wait stays under 3 × the previous one",
      { prev: String(tooLong?.[0]), next: String(tooLong?.[1]) },
    ),
  );
  const hitCap = steps.some(([, next]) => next === P.capMs);
  assert.ok(
    hitCap,
    t(
      "in 20,000 steps the chain never reached the cap: the cap must be applied with min(cap, …), and the draw must be able to grow the wait",
    ),
  );
});

test(t("a decorrelated client starts from base and remembers its previous wait"), () => {
  const next = decorrelatedClient(P, scripted(0.5, 0.5, 0.5));
  near(
    next(),
    10,
    t("the client's 1st wait, a draw of 0.5: prev starts at base, so uniform(5, 15)"),
  );
  near(next(), 17.5, t("the client's 2nd wait, a draw of 0.5: prev is now 10, so uniform(5, 30)"));
  near(
    next(),
    28.75,
    t("the client's 3rd wait, a draw of 0.5: prev is now 17.5, so uniform(5, 52.5)"),
  );
});

test(t("each decorrelated client keeps its own previous wait"), () => {
  const a = decorrelatedClient(P, scripted(0.9, 0.9));
  const b = decorrelatedClient(P, scripted(0.5));
  near(a(), 14, t("client a's 1st wait, a draw of 0.9"));
  near(b(), 10, t("client b's 1st wait: it starts from base, not from client a's wait"));
  near(a(), 5 + 0.9 * (42 - 5), t("client a's 2nd wait: from its own previous wait, 14 ms"));
});
