// Tests for exercise 03a. Run them with `npm run check 3`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { RetryQuota } = await loadExercise<typeof import("./03a-retry-quota.ts")>("03a-retry-quota");

test("a new bucket is full: 500 tokens", () => {
  assert.equal(new RetryQuota().available, 500);
});

test("a retry after a transient error (a 503, a timeout) costs 10 tokens, after a throttling error 5", () => {
  const q = new RetryQuota();
  assert.equal(q.acquire("throttling"), 5);
  assert.equal(q.available, 495);
  assert.equal(q.acquire("transient"), 10);
  assert.equal(q.available, 485);
});

test("each bucket is its own: two quotas do not share tokens", () => {
  const a = new RetryQuota();
  const b = new RetryQuota();
  a.acquire("transient");
  assert.equal(a.available, 490);
  assert.equal(b.available, 500);
});

test("100 throttling retries drain the bucket; the 101st is refused", () => {
  const q = new RetryQuota();
  for (let i = 0; i < 100; i++) assert.equal(q.acquire("throttling"), 5, `retry ${i + 1}`);
  assert.equal(q.available, 0);
  assert.equal(q.acquire("throttling"), undefined);
  assert.equal(q.available, 0);
});

test("a refusal leaves the bucket unchanged; a cheaper retry may still pass", () => {
  const q = new RetryQuota();
  for (let i = 0; i < 99; i++) q.acquire("throttling");
  assert.equal(q.available, 5);
  assert.equal(q.acquire("transient"), undefined, "10 tokens needed, 5 left");
  assert.equal(q.available, 5);
  assert.equal(q.acquire("throttling"), 5);
  assert.equal(q.available, 0);
});

test("a success at the first attempt pays back 1 token", () => {
  const q = new RetryQuota();
  q.acquire("transient");
  q.acquire("transient");
  q.recordSuccess();
  assert.equal(q.available, 481);
});

test("a success after a retry pays back that retry's cost", () => {
  const q = new RetryQuota();
  const first = q.acquire("throttling");
  const second = q.acquire("transient");
  assert.equal(q.available, 485);
  q.recordSuccess(second);
  assert.equal(q.available, 495);
  q.recordSuccess(first);
  assert.equal(q.available, 500);
});

test("the bucket never fills past its capacity", () => {
  const q = new RetryQuota();
  q.recordSuccess();
  q.recordSuccess(10);
  assert.equal(q.available, 500);
  q.acquire("throttling");
  q.recordSuccess(10);
  assert.equal(q.available, 500);
});

test("an empty bucket refills one token per plain success, and a retry needs five of them", () => {
  const q = new RetryQuota();
  for (let i = 0; i < 50; i++) q.acquire("transient");
  assert.equal(q.available, 0);
  for (let i = 1; i <= 4; i++) {
    q.recordSuccess();
    assert.equal(q.available, i);
    assert.equal(q.acquire("throttling"), undefined, `${i} tokens are not enough`);
  }
  q.recordSuccess();
  assert.equal(q.acquire("throttling"), 5);
  assert.equal(q.available, 0);
});

test("once drained, a 503 retry (transient) needs ten plain successes", () => {
  const q = new RetryQuota();
  for (let i = 0; i < 50; i++) q.acquire("transient");
  for (let i = 1; i <= 9; i++) {
    q.recordSuccess();
    assert.equal(q.acquire("transient"), undefined, `${i} tokens are not enough`);
  }
  q.recordSuccess();
  assert.equal(q.acquire("transient"), 10);
  assert.equal(q.available, 0);
});
