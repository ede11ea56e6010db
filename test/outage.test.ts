// The outage in rounds: the backend's rule, and what a retry budget changes, counted at the backend.
import assert from "node:assert/strict";
import { test } from "node:test";
import { httpCall } from "../lib/client/client.ts";
import { RetryQuota } from "../lib/client/token-bucket.ts";
import { seeded } from "../lib/core/random.ts";
import { playOutage, startOverloadedBackend } from "../lib/overload/outage.ts";

const post = async (url: string) => {
  const o = await httpCall({ method: "POST", url, body: {}, timeoutMs: 5000 });
  return o.kind === "response" ? o.status : o.kind;
};

test("the backend fails while the cause is present, and after the fix serves only after a light round", async () => {
  const b = await startOverloadedBackend(2);
  try {
    assert.equal(await post(b.url), 503);
    assert.equal(await post(b.url), 503);
    assert.equal(await post(b.url), 503);
    assert.deepEqual(b.endRound(), { arrivals: 3, served: false });
    b.fixCause();
    assert.equal(b.serving, false, "the last round brought 3 > 2");
    assert.equal(await post(b.url), 503);
    assert.deepEqual(b.endRound(), { arrivals: 1, served: false });
    assert.equal(b.serving, true, "the last round brought 1 ≤ 2");
    assert.equal(await post(b.url), 201);
    assert.equal(b.count, 5);
  } finally {
    await b.close();
  }
});

const outage = {
  capacity: 30,
  callsPerRound: 20,
  outageRounds: 5,
  afterRounds: 5,
  timeScale: 1 / 1000,
};

test("without a budget: 3 requests per call in every round, and the backend never comes back", async () => {
  const rounds = await playOutage({ ...outage, random: seeded(1) });
  assert.deepEqual(
    rounds.map((r) => r.arrivals),
    Array(10).fill(60),
  );
  assert.deepEqual(
    rounds.map((r) => r.served),
    Array(10).fill(false),
  );
  assert.equal(
    rounds.reduce((a, r) => a + r.callsOk, 0),
    0,
  );
});

// A 503 is a transient error in the AWS SDK for JavaScript v3: each retry costs 10 of the 500 tokens.
test("with the token bucket: each 503 retry costs 10, retries stop when it is empty, and the backend recovers after the fix", async () => {
  const quota = new RetryQuota();
  const rounds = await playOutage({ ...outage, quota, random: seeded(1) });
  assert.deepEqual(
    rounds.map((r) => r.arrivals),
    [60, 30, 20, 20, 20, 20, 20, 20, 20, 20],
  );
  assert.deepEqual(
    rounds.map((r) => r.tokensLeft),
    [100, 0, 0, 0, 0, 20, 40, 60, 80, 100],
  );
  assert.deepEqual(
    rounds.map((r) => r.served),
    [false, false, false, false, false, true, true, true, true, true],
  );
  assert.deepEqual(
    rounds.map((r) => r.callsOk),
    [0, 0, 0, 0, 0, 20, 20, 20, 20, 20],
  );
  assert.equal(quota.granted, 50, "500 tokens at 10 a retry");
});
