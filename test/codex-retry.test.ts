// Codex's two retry layers: the course's account and upstream's defaults, counted at a real server.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  COURSE_CODEX,
  type CodexRules,
  codexCall,
  isQuota429,
  UPSTREAM_CODEX,
} from "../lib/client/codex-retry.ts";
import { seeded } from "../lib/core/random.ts";
import { type Reply, startCountingServer } from "../lib/overload/counting-server.ts";

const NOW = Date.UTC(2026, 0, 15, 9, 0, 0);

async function run(rules: CodexRules, reply: (n: number) => Reply) {
  const s = await startCountingServer((r) => reply(r.n));
  const honoured: number[] = [];
  try {
    const result = await codexCall(rules, {
      url: s.url,
      body: {},
      timeoutMs: 5000,
      random: seeded(4),
      now: () => NOW,
      timeScale: 1 / 1000,
      onWait: (_layer, _s, _n, v) => {
        if (v.why.startsWith("Retry-After")) honoured.push(v.delayMs);
      },
    });
    return { count: s.count, sampling: result.results.length, honoured, result };
  } finally {
    await s.close();
  }
}

const always = (r: Reply) => () => r;

test("the course's rules: a 503 with Retry-After costs 3 × 3 = 9 requests", async () => {
  const r = await run(COURSE_CODEX, always({ status: 503, headers: { "retry-after": "1" } }));
  assert.equal(r.count, 9);
  assert.equal(r.sampling, 3);
  assert.deepEqual(r.honoured, Array(8).fill(1000));
});

test("the course's rules: without Retry-After only the sampling layer retries: 3", async () => {
  const r = await run(COURSE_CODEX, always({ status: 503 }));
  assert.equal(r.count, 3);
  assert.deepEqual(r.honoured, []);
});

test("upstream defaults: 5 HTTP attempts × 6 sampling attempts = 30, Retry-After ignored", async () => {
  const r = await run(UPSTREAM_CODEX, always({ status: 503, headers: { "retry-after": "1" } }));
  assert.equal(r.count, 30);
  assert.equal(r.sampling, 6);
  assert.deepEqual(r.honoured, []);
  // Upstream's waits are Codex's backoff: about 200, 400, 800, 1600 ms in the HTTP layer.
  const firstHttpWaits = r.result.results[0]!.waitsMs;
  assert.equal(firstHttpWaits.length, 4);
  for (const [i, w] of firstHttpWaits.entries())
    assert.ok(w >= 180 * 2 ** i && w < 220 * 2 ** i, `wait ${i + 1}: ${w}`);
});

test("upstream's HTTP layer does not retry 429 (retry_429: false)", async () => {
  const r = await run(UPSTREAM_CODEX, always({ status: 429, headers: { "retry-after": "1" } }));
  assert.equal(r.count, 1);
});

test("a quota 429 stops at once, under both sets of rules", async () => {
  const quota: Reply = { status: 429, body: { error: { type: "usage_limit_reached" } } };
  assert.equal((await run(COURSE_CODEX, always(quota))).count, 1);
  assert.equal((await run(UPSTREAM_CODEX, always(quota))).count, 1);
  assert.equal(
    isQuota429({
      kind: "response",
      status: 429,
      headers: {},
      body: { error: { code: "insufficient_quota" } },
    }),
    true,
  );
  assert.equal(
    isQuota429({
      kind: "response",
      status: 429,
      headers: {},
      body: { error: { type: "rate_limit_exceeded" } },
    }),
    false,
  );
});

test("the course's rules: a 429 with Retry-After waits that long; without it, it is not retried", async () => {
  const withRA = await run(COURSE_CODEX, (n) =>
    n === 1 ? { status: 429, headers: { "retry-after": "2" } } : { status: 201 },
  );
  assert.equal(withRA.count, 2);
  assert.deepEqual(withRA.honoured, [2000]);
  const bare = await run(COURSE_CODEX, (n) => (n === 1 ? { status: 429 } : { status: 201 }));
  assert.equal(bare.count, 1);
});

test("the course's rules: an HTTP-date Retry-After waits until then (pinned clock)", async () => {
  const r = await run(COURSE_CODEX, (n) =>
    n === 1
      ? { status: 503, headers: { "retry-after": "Thu, 15 Jan 2026 09:00:03 GMT" } }
      : { status: 201 },
  );
  assert.equal(r.count, 2);
  assert.deepEqual(r.honoured, [3000]);
});
