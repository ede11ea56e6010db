// The agent's client: policies, attempts, keys.
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { fileReport, isRetryable, type PolicyName } from "../lib/client/client.ts";
import { sleep } from "../lib/core/clock.ts";
import { seeded } from "../lib/core/random.ts";

/** A server that answers each request with the next status in `statuses` and records the headers. */
async function scripted(statuses: number[]) {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    const status = statuses[Math.min(seen.length - 1, statuses.length - 1)]!;
    res
      .writeHead(status, { "content-type": "application/json" })
      .end(JSON.stringify({ id: seen.length }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const call = (url: string, policy: PolicyName, maxAttempts = 3) =>
  fileReport({
    url,
    report: { title: "t" },
    policy,
    maxAttempts,
    timeoutMs: 2000,
    random: seeded(3),
  });

test("retrying policies resend after 5xx until a 2xx, within maxAttempts", async () => {
  const s = await scripted([503, 500, 201]);
  try {
    const r = await call(s.url, "blind-retry", 5);
    assert.equal(r.ok, true);
    assert.equal(r.attempts.length, 3);
  } finally {
    await s.close();
  }
});

test("maxAttempts bounds the attempts; no-retry makes exactly one", async () => {
  const s = await scripted([503]);
  try {
    assert.equal((await call(s.url, "blind-retry", 4)).attempts.length, 4);
    assert.equal((await call(s.url, "no-retry", 4)).attempts.length, 1);
  } finally {
    await s.close();
  }
});

test("a 4xx that is not 408/409/429 is final", async () => {
  const s = await scripted([422, 201]);
  try {
    const r = await call(s.url, "blind-retry");
    assert.equal(r.attempts.length, 1);
    assert.equal(r.ok, false);
  } finally {
    await s.close();
  }
  assert.equal(isRetryable({ kind: "response", status: 429, headers: {}, body: undefined }), true);
  assert.equal(isRetryable({ kind: "response", status: 400, headers: {}, body: undefined }), false);
  assert.equal(isRetryable({ kind: "timeout", limitMs: 1 }), true);
});

test("blind-retry sends no key; fresh-key a new key per attempt; same-key one key reused", async () => {
  const s = await scripted([503, 503, 201]);
  try {
    await call(s.url, "blind-retry");
    assert.deepEqual(
      s.seen.map((h) => h["idempotency-key"]),
      [undefined, undefined, undefined],
    );
    s.seen.length = 0;
    await call(s.url, "fresh-key");
    const fresh = s.seen.map((h) => h["idempotency-key"]);
    assert.equal(new Set(fresh).size, 3);
    s.seen.length = 0;
    await call(s.url, "same-key");
    const same = s.seen.map((h) => h["idempotency-key"]);
    assert.equal(new Set(same).size, 1);
    assert.match(
      String(same[0]),
      /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/,
    );
  } finally {
    await s.close();
  }
});

test("a connection refused is an error outcome, not an exception", async () => {
  const s = await scripted([201]);
  await s.close();
  const r = await call(s.url, "no-retry");
  assert.equal(r.final.kind, "error");
  assert.equal((r.final as { code: string }).code, "ECONNREFUSED");
});

// A busy machine, played with a gate: the server answers each request only when the test lets it,
// later than the agent's timeout. On a timer the agent gives up and sends again (two requests for one
// report); given a `giveUp` gate that nothing opens (no fault struck it: Faults.noAnswer, as the
// lessons use it), it waits for the late answer. The order is decided by the agent's own timeout
// event, or, for the patient agent, by a release well after its timeout would have passed.
for (const patient of [false, true]) {
  test(`an answer later than the timeout, struck by no fault: ${patient ? "waited for, with a giveUp gate" : "given up on a timer, then sent again"}`, async () => {
    let release!: () => void;
    const answer = new Promise<void>((resolve) => {
      release = resolve;
    });
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      void answer.then(() =>
        res.writeHead(201, { "content-type": "application/json" }).end('{"id":1}'),
      );
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const result = fileReport({
        url,
        report: { title: "late" },
        policy: "blind-retry",
        maxAttempts: 2,
        timeoutMs: 100,
        ...(patient ? { giveUp: () => new Promise<void>(() => {}) } : {}),
        random: seeded(1),
        onAttempt: (e) => {
          if (e.phase === "end" && e.attempt.outcome.kind === "timeout") release();
        },
      });
      if (patient) {
        await sleep(300);
        release();
      }
      const done = await result;
      assert.equal(done.attempts.length, patient ? 1 : 2, "attempts");
      assert.equal(requests, patient ? 1 : 2, "requests the server received");
      assert.equal(done.attempts[0]!.outcome.kind, patient ? "response" : "timeout");
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
}
