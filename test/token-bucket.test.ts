// The retry quota's arithmetic, with the AWS standard-mode constants and with others.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AWS_RETRIES_2026, AWS_STANDARD_QUOTA, RetryQuota } from "../lib/token-bucket.ts";

test("the standard-mode constants: 500 tokens, 5 per retry, 10 per timeout retry, 1 back", () => {
  assert.deepEqual({ ...AWS_STANDARD_QUOTA }, { capacity: 500, retryCost: 5, timeoutRetryCost: 10, noRetryIncrement: 1 });
  assert.deepEqual({ ...AWS_RETRIES_2026 }, { baseDelayMs: 50, throttlingBaseDelayMs: 1000, retryCost: 14, throttlingRetryCost: 5 });
});

test("acquire takes 5 for an error, 10 for a timeout, and says what it took", () => {
  const q = new RetryQuota();
  assert.equal(q.acquire("error"), 5);
  assert.equal(q.acquire("timeout"), 10);
  assert.equal(q.tokens, 485);
  assert.equal(q.granted, 2);
  assert.equal(q.refused, 0);
});

test("a drained bucket refuses, unchanged, and counts the refusals", () => {
  const q = new RetryQuota();
  for (let i = 0; i < 50; i++) q.acquire("timeout");
  assert.equal(q.tokens, 0);
  assert.equal(q.acquire("error"), undefined);
  assert.equal(q.acquire("timeout"), undefined);
  assert.equal(q.tokens, 0);
  assert.equal(q.granted, 50);
  assert.equal(q.refused, 2);
});

test("with 5 tokens left an error retry passes and a timeout retry does not", () => {
  const q = new RetryQuota();
  for (let i = 0; i < 99; i++) q.acquire("error");
  assert.equal(q.acquire("timeout"), undefined);
  assert.equal(q.acquire("error"), 5);
  assert.equal(q.tokens, 0);
});

test("recordSuccess refunds the last retry's cost, or 1, up to the capacity", () => {
  const q = new RetryQuota();
  const cost = q.acquire("timeout");
  q.acquire("error");
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
  while (q.acquire("error") !== undefined) n++;
  assert.equal(n, 35); // 35 × 14 = 490, then 10 tokens are not enough
  assert.equal(q.tokens, 10);
});
