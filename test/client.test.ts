// The agent's client: policies, attempts, keys.
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { fileReport, isRetryable, type PolicyName } from "../lib/client/client.ts";
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
