// The SDK-like retry layer and the harness loop around it, against real servers that count.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Outcome } from "../lib/client/client.ts";
import {
  harnessOverSdk,
  SDK_MAX_RETRIES,
  sdkCall,
  sdkRetryDelay,
  sdkShouldRetry,
  sdkVerdict,
} from "../lib/client/sdk-retry.ts";
import { scripted, seeded } from "../lib/core/random.ts";
import { type Reply, startCountingServer } from "../lib/overload/counting-server.ts";

const answer = (status: number, headers: Record<string, string> = {}): Outcome => ({
  kind: "response",
  status,
  headers,
  body: undefined,
});
const NOW = Date.UTC(2026, 0, 15, 9, 0, 0);
const SCALE = 1 / 1000;

test("sdkShouldRetry: connection errors, timeouts, 408, 409, 429, 5xx; not other 4xx", () => {
  assert.equal(sdkShouldRetry({ kind: "error", code: "ECONNREFUSED", message: "" }), true);
  assert.equal(sdkShouldRetry({ kind: "timeout", limitMs: 1 }), true);
  for (const s of [408, 409, 429, 500, 503, 529])
    assert.equal(sdkShouldRetry(answer(s)), true, String(s));
  for (const s of [400, 401, 403, 404, 422])
    assert.equal(sdkShouldRetry(answer(s)), false, String(s));
});

test("sdkShouldRetry: x-should-retry overrides the status both ways; other values do not", () => {
  assert.equal(sdkShouldRetry(answer(400, { "x-should-retry": "true" })), true);
  assert.equal(sdkShouldRetry(answer(503, { "x-should-retry": "false" })), false);
  assert.equal(sdkShouldRetry(answer(400, { "x-should-retry": "1" })), false);
  assert.equal(sdkShouldRetry(answer(503, { "x-should-retry": "0" })), true);
});

test("sdkRetryDelay: the backoff when the server says nothing", () => {
  assert.deepEqual(sdkRetryDelay(0, {}, scripted(0), NOW), { ms: 500, source: "backoff" });
  assert.deepEqual(sdkRetryDelay(1, {}, scripted(0.5), NOW), { ms: 875, source: "backoff" });
  assert.deepEqual(sdkRetryDelay(7, {}, scripted(0), NOW), { ms: 8000, source: "backoff" });
});

test("sdkRetryDelay: every Retry-After form", () => {
  const r = seeded(1);
  assert.deepEqual(sdkRetryDelay(0, { "retry-after": "3" }, r, NOW), {
    ms: 3000,
    source: "retry-after",
  });
  assert.deepEqual(sdkRetryDelay(0, { "retry-after-ms": "1500" }, r, NOW), {
    ms: 1500,
    source: "retry-after-ms",
  });
  assert.deepEqual(sdkRetryDelay(0, { "retry-after": "Thu, 15 Jan 2026 09:00:05 GMT" }, r, NOW), {
    ms: 5000,
    source: "retry-after",
  });
  assert.deepEqual(sdkRetryDelay(0, { "retry-after": "60" }, r, NOW), {
    ms: 60_000,
    source: "retry-after",
  });
});

test("sdkRetryDelay: past dates, zero, invalid and over-60-s values fall back to the backoff, and say why", () => {
  const past = sdkRetryDelay(
    0,
    { "retry-after": "Thu, 15 Jan 2026 08:59:55 GMT" },
    scripted(0),
    NOW,
  );
  assert.deepEqual(past, { ms: 500, source: "backoff", ignored: "retry-after not in the future" });
  assert.equal(sdkRetryDelay(0, { "retry-after": "0" }, scripted(0), NOW).ms, 500);
  assert.deepEqual(sdkRetryDelay(0, { "retry-after": "soon" }, scripted(0), NOW), {
    ms: 500,
    source: "backoff",
  });
  assert.deepEqual(sdkRetryDelay(0, { "retry-after": "61" }, scripted(0), NOW), {
    ms: 500,
    source: "backoff",
    ignored: "retry-after over 60 s",
  });
  assert.deepEqual(sdkRetryDelay(0, { "retry-after-ms": "60001" }, scripted(0), NOW), {
    ms: 500,
    source: "backoff",
    ignored: "retry-after-ms over 60 s",
  });
});

test("sdkVerdict: stops on success, on a final status, and after maxRetries", () => {
  const r = seeded(1);
  assert.equal(sdkVerdict(answer(201), 0, 2, r, NOW).retry, false);
  assert.equal(sdkVerdict(answer(400), 0, 2, r, NOW).retry, false);
  assert.equal(sdkVerdict(answer(503), 1, 2, r, NOW).retry, true);
  assert.equal(sdkVerdict(answer(503), 2, 2, r, NOW).retry, false);
});

async function server(reply: (n: number) => Reply) {
  return startCountingServer((r) => reply(r.n));
}

test("sdkCall: a persistent 503 costs 1 + 2 retries = 3 POSTs, counted at the server, with no Idempotency-Key", async () => {
  const s = await server(() => ({ status: 503 }));
  try {
    const r = await sdkCall({
      url: `${s.url}/v1/messages`,
      body: {},
      timeoutMs: 5000,
      random: seeded(2),
      timeScale: SCALE,
    });
    assert.equal(s.count, 1 + SDK_MAX_RETRIES);
    assert.equal(r.results.length, 3);
    assert.deepEqual(
      s.received.map((q) => q.method),
      ["POST", "POST", "POST"],
    );
    assert.deepEqual(
      s.received.map((q) => q.headers["x-stainless-retry-count"]),
      ["0", "1", "2"],
    );
    assert.ok(s.received.every((q) => q.headers["idempotency-key"] === undefined));
    assert.equal(r.waitsMs.length, 2);
    assert.ok(r.waitsMs[0]! > 375 && r.waitsMs[0]! <= 500, String(r.waitsMs[0]));
    assert.ok(r.waitsMs[1]! > 750 && r.waitsMs[1]! <= 1000, String(r.waitsMs[1]));
  } finally {
    await s.close();
  }
});

test("sdkCall: a 400 is final; x-should-retry: false stops a 503; x-should-retry: true retries a 400", async () => {
  const cases: [Reply, number][] = [
    [{ status: 400 }, 1],
    [{ status: 503, headers: { "x-should-retry": "false" } }, 1],
    [{ status: 400, headers: { "x-should-retry": "true" } }, 3],
  ];
  for (const [reply, expected] of cases) {
    const s = await server(() => reply);
    try {
      await sdkCall({ url: s.url, body: {}, timeoutMs: 5000, random: seeded(2), timeScale: SCALE });
      assert.equal(s.count, expected, JSON.stringify(reply));
    } finally {
      await s.close();
    }
  }
});

test("sdkCall: honours retry-after-ms and retry-after as the server sent them", async () => {
  const replies: Reply[] = [
    { status: 429, headers: { "retry-after-ms": "700" } },
    { status: 503, headers: { "retry-after": "2" } },
    { status: 201 },
  ];
  const s = await server((n) => replies[n - 1] ?? { status: 201 });
  try {
    const r = await sdkCall({
      url: s.url,
      body: {},
      timeoutMs: 5000,
      random: seeded(2),
      timeScale: SCALE,
    });
    assert.equal(s.count, 3);
    assert.deepEqual(r.waitsMs, [700, 2000]);
    assert.equal(r.final.kind === "response" && r.final.status, 201);
  } finally {
    await s.close();
  }
});

test("sdkCall: an HTTP-date is read against the injected clock", async () => {
  const s = await server((n) =>
    n === 1
      ? { status: 503, headers: { "retry-after": "Thu, 15 Jan 2026 09:00:04 GMT" } }
      : { status: 201 },
  );
  try {
    const r = await sdkCall({
      url: s.url,
      body: {},
      timeoutMs: 5000,
      random: seeded(2),
      now: () => NOW,
      timeScale: SCALE,
    });
    assert.deepEqual(r.waitsMs, [4000]);
  } finally {
    await s.close();
  }
});

test("harness 4 × SDK 3: twelve requests at the server for one logical call", async () => {
  const s = await server(() => ({ status: 503 }));
  try {
    const r = await harnessOverSdk(
      { attempts: 4, pauseMs: 1000 },
      { url: s.url, body: {}, timeoutMs: 5000, random: seeded(2), timeScale: SCALE },
    );
    assert.equal(s.count, 12);
    assert.equal(r.results.length, 4);
    assert.deepEqual(r.waitsMs, [1000, 1000, 1000]);
  } finally {
    await s.close();
  }
});

test("the harness stops at the first SDK call that succeeds", async () => {
  const s = await server((n) => (n <= 4 ? { status: 503 } : { status: 201 }));
  try {
    const r = await harnessOverSdk(
      { attempts: 4, pauseMs: 1000 },
      { url: s.url, body: {}, timeoutMs: 5000, random: seeded(2), timeScale: SCALE },
    );
    assert.equal(s.count, 5);
    assert.equal(r.results.length, 2);
    assert.equal(r.why, "success");
  } finally {
    await s.close();
  }
});
