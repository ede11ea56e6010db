import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  anthropicSdkDelayMs,
  codexBackoffMs,
  codexCappedMs,
  decorrelatedJitterMs,
  delayBounds,
  equalJitterMs,
  exponentialMs,
  fullJitterMs,
  HERD_PARAMS,
  isStrategyName,
  makeBackoff,
  noBackoffMs,
  STRATEGY_NAMES,
  schedule,
} from "../lib/client/backoff.ts";
import { scripted, seeded } from "../lib/core/random.ts";

const P = HERD_PARAMS; // base 5 ms, cap 2000 ms

describe("strategy names", () => {
  test("are the fixed ones", () => {
    assert.deepEqual([...STRATEGY_NAMES].sort(), [
      "anthropic-sdk",
      "codex",
      "codex-capped",
      "decorrelated",
      "equal",
      "exponential",
      "full",
      "no-backoff",
    ]);
    assert.equal(isStrategyName("full"), true);
    assert.equal(isStrategyName("Full"), false);
  });

  test("makeBackoff builds every one of them", () => {
    for (const name of STRATEGY_NAMES) {
      const b = makeBackoff(name, P, seeded(1));
      assert.equal(b.name, name);
      assert.ok(Number.isFinite(b.nextDelayMs(1)));
    }
  });
});

describe("the AWS strategies (n = 1 on the first failure)", () => {
  test("no backoff is always 0", () => {
    assert.equal(noBackoffMs(), 0);
    assert.equal(makeBackoff("no-backoff", P, scripted()).nextDelayMs(7), 0);
  });

  test("exponential doubles from 2 * base and stops at the cap", () => {
    const seq = Array.from({ length: 11 }, (_, i) => exponentialMs(i + 1, P));
    assert.deepEqual(seq, [10, 20, 40, 80, 160, 320, 640, 1280, 2000, 2000, 2000]);
    assert.equal(exponentialMs(5000, P), 2000); // 2^5000 overflows to Infinity; the cap still holds
  });

  test("full jitter: uniform(0, v_n)", () => {
    assert.equal(fullJitterMs(3, P, scripted(0.5)), 20); // v_3 = 40
    assert.equal(fullJitterMs(3, P, scripted(0)), 0);
    assert.equal(fullJitterMs(20, P, scripted(0.25)), 500); // capped: v = 2000
  });

  test("equal jitter: v_n/2 + uniform(0, v_n/2)", () => {
    assert.equal(equalJitterMs(3, P, scripted(0)), 20);
    assert.equal(equalJitterMs(3, P, scripted(0.5)), 30);
    assert.equal(equalJitterMs(20, P, scripted(0.5)), 1500);
  });

  test("decorrelated jitter: min(cap, uniform(base, 3 * prev)), prev starting at base", () => {
    const b = makeBackoff("decorrelated", P, scripted(0.5, 0.5, 0, 0.999));
    assert.equal(b.nextDelayMs(1), 10); // uniform(5, 15)
    assert.equal(b.nextDelayMs(2), 17.5); // uniform(5, 30)
    assert.equal(b.nextDelayMs(3), 5); // uniform(5, 52.5) at its low end
    assert.equal(b.nextDelayMs(4), 5 + 10 * 0.999); // back to uniform(5, 15): the state is the last sleep
  });

  test("decorrelated jitter ignores the attempt and caps the state too", () => {
    assert.equal(decorrelatedJitterMs(1000, P, scripted(0.9)), 2000); // 5 + 2995 * 0.9 > 2000
    const b = makeBackoff("decorrelated", P, scripted(0.5, 0.5));
    assert.equal(b.nextDelayMs(99), 10);
    assert.equal(b.nextDelayMs(1), 17.5);
  });

  test("each decorrelated client keeps its own state", () => {
    const random = scripted(0.5, 0.5, 0.5);
    const a = makeBackoff("decorrelated", P, random);
    const b = makeBackoff("decorrelated", P, random);
    assert.equal(a.nextDelayMs(1), 10);
    assert.equal(b.nextDelayMs(1), 10); // b starts from base, not from a's 10
    assert.equal(a.nextDelayMs(2), 17.5);
  });
});

describe("Codex: 200 ms * 2^(n-1) * uniform[0.9, 1.1), no cap", () => {
  test("the nominal wait before the 4th retry is 1600 ms", () => {
    assert.equal(delayBounds("codex", 4, P).nominalMs, 1600);
    assert.equal(codexBackoffMs(4, scripted(0.5)), 1600);
  });

  test("the jitter is ±10 %, truncated to whole milliseconds like the Rust code", () => {
    assert.equal(codexBackoffMs(4, scripted(0)), 1440);
    assert.equal(codexBackoffMs(4, scripted(0.9999999)), 1759);
    assert.equal(codexBackoffMs(1, scripted(0.5)), 200);
    assert.equal(codexBackoffMs(0, scripted(0.5)), 200); // saturating_sub: attempt 0 acts as 1
  });

  test("no cap: the 20th retry waits about 29 hours", () => {
    assert.equal(codexBackoffMs(20, scripted(0.5)), 200 * 2 ** 19);
  });

  test("makeBackoff numbers retries the same way", () => {
    const b = makeBackoff("codex", P, scripted(0.5, 0.5, 0.5, 0.5, 0.5));
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => b.nextDelayMs(n)),
      [200, 400, 800, 1600, 3200],
    );
  });
});

describe("Anthropic SDK: min(0.5 s * 2^k, 8 s) * (1 - 0.25 r), k = retries so far", () => {
  test("first retry (k = 0) waits between 0.375 s and 0.5 s", () => {
    assert.equal(anthropicSdkDelayMs(0, scripted(0)), 500);
    const low = anthropicSdkDelayMs(0, scripted(0.9999999));
    assert.ok(low > 375 && low < 375.001, `got ${low}`);
  });

  test("doubles to the 8 s ceiling", () => {
    const waits = [0, 1, 2, 3, 4, 5, 1000, 5000].map((k) => anthropicSdkDelayMs(k, scripted(0)));
    assert.deepEqual(waits, [500, 1000, 2000, 4000, 8000, 8000, 8000, 8000]);
    assert.equal(anthropicSdkDelayMs(1, scripted(0.5)), 875);
  });

  test("makeBackoff's attempt n is k + 1", () => {
    const b = makeBackoff("anthropic-sdk", P, scripted(0, 0));
    assert.equal(b.nextDelayMs(1), 500);
    assert.equal(b.nextDelayMs(2), 1000);
  });
});

describe("codex-capped: the capped exponential times uniform(0.9, 1.1)", () => {
  test("values", () => {
    assert.equal(codexCappedMs(1, P, scripted(0.5)), 10);
    assert.equal(codexCappedMs(3, P, scripted(0)), 36);
    assert.equal(codexCappedMs(10, P, scripted(0.5)), 2000);
    assert.equal(codexCappedMs(10, P, scripted(0)), 1800);
  });
});

describe("bounds", () => {
  test("every seeded draw falls inside delayBounds", () => {
    const random = seeded(42);
    for (const name of STRATEGY_NAMES) {
      for (let client = 0; client < 200; client++) {
        const b = makeBackoff(name, P, random); // a fresh client: n counts from 1
        for (let n = 1; n <= 14; n++) {
          const d = b.nextDelayMs(n);
          const { lowMs, highMs } = delayBounds(name, n, P);
          assert.ok(
            d >= lowMs && d <= highMs,
            `${name} n=${n}: ${d} outside [${lowMs}, ${highMs}]`,
          );
        }
      }
    }
  });

  test("decorrelated never exceeds 3 * prev or the cap, and never goes below base", () => {
    const random = seeded(7);
    let prev = P.baseMs;
    for (let i = 0; i < 10_000; i++) {
      const d = decorrelatedJitterMs(prev, P, random);
      assert.ok(d >= P.baseMs && d <= Math.min(P.capMs, 3 * prev), `${d} after ${prev}`);
      prev = d;
    }
  });

  test("jitter spreads: full jitter's mean is about v_n / 2", () => {
    const random = seeded(3);
    let sum = 0;
    for (let i = 0; i < 20_000; i++) sum += fullJitterMs(6, P, random);
    assert.ok(Math.abs(sum / 20_000 - 160) < 3, `mean ${sum / 20_000}`); // v_6 = 320, sd of the mean ≈ 0.65
  });

  test("nominal values for printing schedules", () => {
    assert.deepEqual(delayBounds("exponential", 1, P), { lowMs: 10, highMs: 10, nominalMs: 10 });
    assert.deepEqual(delayBounds("equal", 2, P), { lowMs: 10, highMs: 20, nominalMs: 20 });
    assert.deepEqual(delayBounds("full", 9, P), { lowMs: 0, highMs: 2000, nominalMs: 2000 });
    assert.deepEqual(delayBounds("decorrelated", 2, P), { lowMs: 5, highMs: 45, nominalMs: null });
    assert.deepEqual(delayBounds("anthropic-sdk", 1, P), {
      lowMs: 375,
      highMs: 500,
      nominalMs: 500,
    });
    assert.deepEqual(delayBounds("codex", 1, P), { lowMs: 180, highMs: 220, nominalMs: 200 });
  });

  test("schedules without jitter", () => {
    assert.deepEqual(
      schedule("codex", 5, P).map((b) => b.nominalMs),
      [200, 400, 800, 1600, 3200],
    );
    assert.deepEqual(
      schedule("anthropic-sdk", 6, P).map((b) => b.nominalMs),
      [500, 1000, 2000, 4000, 8000, 8000],
    );
  });

  test("the same seed gives the same waits", () => {
    const a = makeBackoff("full", P, seeded(9));
    const b = makeBackoff("full", P, seeded(9));
    for (let n = 1; n < 20; n++) assert.equal(a.nextDelayMs(n), b.nextDelayMs(n));
  });
});
