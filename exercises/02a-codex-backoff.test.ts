// Tests for exercise 02a. Run them with `npm run check 2`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
import { scripted, seeded } from "../lib/core/random.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { nominalBackoffMs, codexBackoff } =
  await loadExercise<typeof import("./02a-codex-backoff.ts")>("02a-codex-backoff");

/** Equal up to floating-point rounding; `what` names the call. */
function near(actual: number, expected: number, what: string): void {
  assert.ok(
    Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
    t("{what} gave {actual} ms; Codex waits {expected} ms there", {
      what,
      actual: String(actual),
      expected: String(expected),
    }),
  );
}

test(t("the page's question: the nominal wait before the 4th retry"), () => {
  assert.equal(
    nominalBackoffMs(4),
    1600,
    t(
      "nominalBackoffMs(4): the nominal wait before the 4th retry is 200 × 2^3 ms, the course page's answer",
    ),
  );
});

test(t("the nominal wait starts at 200 ms and doubles with each retry"), () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5].map(nominalBackoffMs),
    [200, 400, 800, 1600, 3200],
    t(
      "nominalBackoffMs(1) to (5): the first retry waits 200 ms, and each retry after it waits twice as long as the one before",
    ),
  );
});

test(t("attempt 0 waits like attempt 1 (Rust's saturating_sub)"), () => {
  assert.equal(
    nominalBackoffMs(0),
    200,
    t(
      "nominalBackoffMs(0): Codex subtracts 1 without going below 0, so attempt 0 waits the first retry's 200 ms, not 100",
    ),
  );
});

test(t("no cap: the 20th retry waits 200 × 2^19 ms, about 29 hours"), () => {
  assert.equal(
    nominalBackoffMs(20),
    104_857_600,
    t("nominalBackoffMs(20): Codex's sampling layer has no cap, so the wait keeps doubling"),
  );
});

test(t("a draw of 0.5 is the middle of [0.9, 1.1): the nominal wait itself"), () => {
  near(codexBackoff(4, scripted(0.5)), 1600, t("codexBackoff(4) with a draw of 0.5"));
  near(codexBackoff(1, scripted(0.5)), 200, t("codexBackoff(1) with a draw of 0.5"));
});

test(t("a draw of 0 gives 90 % of the nominal wait; a draw near 1 almost 110 %"), () => {
  near(codexBackoff(1, scripted(0)), 180, t("codexBackoff(1) with a draw of 0"));
  near(codexBackoff(4, scripted(0)), 1440, t("codexBackoff(4) with a draw of 0"));
  const top = codexBackoff(4, scripted(0.999999));
  assert.ok(
    top < 1760 && top > 1759.99,
    t(
      "codexBackoff(4) with a draw of 0.999999 gave {top} ms; the factor must come just under 1.1, so the wait just under 1760 ms",
      { top: String(top) },
    ),
  );
});

test(t("one draw per wait, from the random source given"), () => {
  // scripted() throws if asked for a second draw; different draws must give different waits.
  assert.notEqual(
    codexBackoff(2, scripted(0.1)),
    codexBackoff(2, scripted(0.9)),
    t(
      "codexBackoff(2) gave the same wait for the draws 0.1 and 0.9: the jitter must come from the random source passed in, or the tests cannot steer it",
    ),
  );
});

test(
  t("over many seeded draws every wait lies in [0.9, 1.1) × nominal, and the range is used"),
  () => {
    const random = seeded(2026);
    for (let attempt = 1; attempt <= 8; attempt++) {
      const nominal = 200 * 2 ** (attempt - 1);
      const low = 0.9 * nominal;
      const high = 1.1 * nominal;
      const waits = Array.from({ length: 2000 }, () => codexBackoff(attempt, random));
      // The first wait out of range, if any (one assertion, not 2000).
      const outside = waits.find((wait) => !(wait >= low - 1e-9 && wait < high));
      assert.equal(
        outside,
        undefined,
        t(
          "codexBackoff({attempt}) gave {wait} ms, outside [{low}, {high}): the jitter is ±10 % of the nominal wait",
          { attempt, wait: String(outside), low: String(low), high: String(high) },
        ),
      );
      const mean = waits.reduce((a, b) => a + b, 0) / waits.length;
      assert.ok(
        Math.abs(mean - nominal) < 0.01 * nominal,
        t(
          "codexBackoff({attempt}): the mean of 2000 waits is {mean} ms, but a factor uniform in [0.9, 1.1) averages to the nominal {nominal} ms",
          { attempt, mean: String(mean), nominal },
        ),
      );
      assert.ok(
        Math.min(...waits) < 0.905 * nominal && Math.max(...waits) > 1.095 * nominal,
        t(
          "codexBackoff({attempt}): 2000 waits never came near {low} or {high} ms: the draw must be spread over the whole of [0.9, 1.1)",
          { attempt, low: String(low), high: String(high) },
        ),
      );
    }
  },
);
