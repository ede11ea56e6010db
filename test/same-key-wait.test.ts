// The agent's side of 409: retryAfterMs (lib/client/retry-after.ts underneath), the same-key policy's
// wait, and the beforeRetry gate lessons use to order a retry after a server restart.
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { fileReport, type Outcome, type PolicyName, retryAfterMs } from "../lib/client/client.ts";
import { nowMs } from "../lib/core/clock.ts";
import { seeded } from "../lib/core/random.ts";

const answer = (headers: Record<string, string>): Extract<Outcome, { kind: "response" }> => ({
  kind: "response",
  status: 409,
  headers,
  body: undefined,
});

test("retryAfterMs: retry-after-ms first, then Retry-After as seconds or an HTTP-date", () => {
  assert.equal(retryAfterMs(answer({ "retry-after-ms": "250", "retry-after": "1" })), 250);
  assert.equal(retryAfterMs(answer({ "retry-after-ms": "12.5" })), 12.5);
  assert.equal(retryAfterMs(answer({ "retry-after": "3" })), 3_000);
  const now = Date.parse("Sun, 06 Nov 1994 08:49:37 GMT");
  assert.equal(
    retryAfterMs(answer({ "retry-after": "Sun, 06 Nov 1994 08:49:40 GMT" }), now),
    3_000,
  );
  assert.equal(
    retryAfterMs(answer({ "retry-after": "Sun, 06 Nov 1994 08:49:00 GMT" }), now),
    0,
    "a date in the past means now",
  );
  assert.equal(
    retryAfterMs(answer({ "retry-after-ms": "soon", "retry-after": "2" })),
    2_000,
    "a bad retry-after-ms is ignored",
  );
  assert.equal(retryAfterMs(answer({ "retry-after": "-1" })), undefined);
  assert.equal(retryAfterMs(answer({})), undefined);
});

/** A server answering each request with the next [status, headers]; records when each arrived. */
async function scripted(script: Array<[number, OutgoingHttpHeaders]>) {
  const seen: Array<{ at: number; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    seen.push({ at: nowMs(), headers: req.headers });
    req.resume();
    const [status, headers] = script[Math.min(seen.length - 1, script.length - 1)]!;
    res
      .writeHead(status, { "content-type": "application/json", ...headers })
      .end(JSON.stringify({ id: seen.length }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const call = (
  url: string,
  policy: PolicyName,
  extra: Partial<Parameters<typeof fileReport>[0]> = {},
) =>
  fileReport({
    url,
    report: { title: "t" },
    policy,
    maxAttempts: 3,
    timeoutMs: 5_000,
    random: seeded(9),
    backoffMs: () => 0,
    ...extra,
  });

test("same-key waits as long as a 409 asks (retry-after-ms), then retries with the same key", async () => {
  const s = await scripted([
    [409, { "retry-after-ms": "120", "retry-after": "1" }],
    [201, {}],
  ]);
  try {
    const r = await call(s.url, "same-key");
    assert.equal(r.ok, true);
    assert.equal(s.seen.length, 2);
    assert.ok(s.seen[1]!.at - s.seen[0]!.at >= 115, `waited ${s.seen[1]!.at - s.seen[0]!.at} ms`);
    assert.equal(s.seen[0]!.headers["idempotency-key"], s.seen[1]!.headers["idempotency-key"]);
  } finally {
    await s.close();
  }
});

test("the asked wait is capped by maxRetryAfterMs", async () => {
  const s = await scripted([
    [409, { "retry-after": "3600" }],
    [201, {}],
  ]);
  try {
    const started = nowMs();
    const r = await call(s.url, "same-key", { maxRetryAfterMs: 20 });
    assert.equal(r.ok, true);
    assert.ok(nowMs() - started < 3_000);
  } finally {
    await s.close();
  }
});

test("beforeRetry is awaited before each retry, with the attempt that failed", async () => {
  const s = await scripted([
    [503, {}],
    [503, {}],
    [201, {}],
  ]);
  try {
    const gates: Array<[number, number]> = [];
    const r = await call(s.url, "blind-retry", {
      beforeRetry: async (retry, last) => {
        assert.equal(s.seen.length, retry, "no retry is sent before the gate opens");
        gates.push([retry, last.outcome.kind === "response" ? last.outcome.status : 0]);
      },
    });
    assert.equal(r.ok, true);
    assert.deepEqual(gates, [
      [1, 503],
      [2, 503],
    ]);
  } finally {
    await s.close();
  }
});
