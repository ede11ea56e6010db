// The retry quota's arithmetic, with the AWS standard-mode constants and with others.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Outcome } from "../lib/client/client.ts";
import {
  AWS_RETRIES_2026,
  AWS_STANDARD_QUOTA,
  RetryQuota,
  retryKindOf,
} from "../lib/client/token-bucket.ts";

test("the standard-mode constants: 500 tokens, 5 per throttling retry, 10 per transient retry, 1 back", () => {
  assert.deepEqual(
    { ...AWS_STANDARD_QUOTA },
    { capacity: 500, retryCost: 5, transientRetryCost: 10, noRetryIncrement: 1 },
  );
  assert.deepEqual(
    { ...AWS_RETRIES_2026 },
    { baseDelayMs: 50, throttlingBaseDelayMs: 1000, retryCost: 14, throttlingRetryCost: 5 },
  );
});

test("acquire takes 5 for a throttling error, 10 for a transient one, and says what it took", () => {
  const q = new RetryQuota();
  assert.equal(q.acquire("throttling"), 5);
  assert.equal(q.acquire("transient"), 10);
  assert.equal(q.tokens, 485);
  assert.equal(q.granted, 2);
  assert.equal(q.refused, 0);
});

test("a drained bucket refuses, unchanged, and counts the refusals", () => {
  const q = new RetryQuota();
  for (let i = 0; i < 50; i++) q.acquire("transient");
  assert.equal(q.tokens, 0);
  assert.equal(q.acquire("throttling"), undefined);
  assert.equal(q.acquire("transient"), undefined);
  assert.equal(q.tokens, 0);
  assert.equal(q.granted, 50);
  assert.equal(q.refused, 2);
});

test("with 5 tokens left a throttling retry passes and a transient retry does not", () => {
  const q = new RetryQuota();
  for (let i = 0; i < 99; i++) q.acquire("throttling");
  assert.equal(q.acquire("transient"), undefined);
  assert.equal(q.acquire("throttling"), 5);
  assert.equal(q.tokens, 0);
});

test("recordSuccess refunds the last retry's cost, or 1, up to the capacity", () => {
  const q = new RetryQuota();
  const cost = q.acquire("transient");
  q.acquire("throttling");
  assert.equal(q.tokens, 485);
  q.recordSuccess(cost);
  assert.equal(q.tokens, 495);
  q.recordSuccess();
  assert.equal(q.tokens, 496);
  q.recordSuccess(10);
  assert.equal(q.tokens, 500);
});

test("other parameters: the 2026 retry cost of 14", () => {
  const q = new RetryQuota({ ...AWS_STANDARD_QUOTA, retryCost: AWS_RETRIES_2026.retryCost });
  let n = 0;
  while (q.acquire("throttling") !== undefined) n++;
  assert.equal(n, 35); // 35 × 14 = 490, then 10 tokens are not enough
  assert.equal(q.tokens, 10);
});

test("as the JS SDK classifies them: a 503 (and 500, 502, 504, a timeout, a reset) is transient and costs 10; a 429 costs 5", () => {
  const answer = (status: number): Outcome => ({
    kind: "response",
    status,
    headers: {},
    body: undefined,
  });
  for (const status of [500, 502, 503, 504])
    assert.equal(retryKindOf(answer(status)), "transient", String(status));
  assert.equal(retryKindOf({ kind: "timeout", limitMs: 100 }), "transient");
  assert.equal(retryKindOf({ kind: "error", code: "ECONNRESET", message: "reset" }), "transient");
  assert.equal(retryKindOf(answer(429)), "throttling");
  assert.equal(retryKindOf(answer(501)), "other");
  const q = new RetryQuota();
  assert.equal(q.acquire(retryKindOf(answer(503))), 10);
  assert.equal(q.acquire(retryKindOf(answer(429))), 5);
  assert.equal(q.acquire(retryKindOf(answer(501))), 5);
  assert.equal(q.tokens, 480);
});
