// Tests for exercise 03b. Run them with `npm run check 3`.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Outcome } from "../lib/client/client.ts";
import { scripted, seeded } from "../lib/core/random.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { shouldRetry, retryDelay } =
  await loadExercise<typeof import("./03b-sdk-retry-rules.ts")>("03b-sdk-retry-rules");

const answer = (status: number, headers: Record<string, string> = {}): Outcome => ({
  kind: "response",
  status,
  headers,
  body: undefined,
});
const NOW = Date.UTC(2026, 0, 15, 9, 0, 0); // Thu, 15 Jan 2026 09:00:00 GMT

test("connection errors and timeouts are retried", () => {
  assert.equal(shouldRetry({ kind: "error", code: "ECONNREFUSED", message: "refused" }), true);
  assert.equal(shouldRetry({ kind: "error", code: "ECONNRESET", message: "reset" }), true);
  assert.equal(shouldRetry({ kind: "timeout", limitMs: 100 }), true);
});

test("408, 409, 429 and every 5xx are retried", () => {
  for (const s of [408, 409, 429, 500, 502, 503, 504, 529, 599])
    assert.equal(shouldRetry(answer(s)), true, String(s));
});

test("other 4xx are not", () => {
  for (const s of [400, 401, 403, 404, 405, 410, 413, 422, 425, 428])
    assert.equal(shouldRetry(answer(s)), false, String(s));
});

test("x-should-retry overrides the status, both ways", () => {
  assert.equal(shouldRetry(answer(400, { "x-should-retry": "true" })), true);
  assert.equal(shouldRetry(answer(422, { "x-should-retry": "true" })), true);
  assert.equal(shouldRetry(answer(503, { "x-should-retry": "false" })), false);
  assert.equal(shouldRetry(answer(429, { "x-should-retry": "false" })), false);
});

test("x-should-retry counts only as exactly true or false", () => {
  assert.equal(shouldRetry(answer(400, { "x-should-retry": "yes" })), false);
  assert.equal(shouldRetry(answer(503, { "x-should-retry": "no" })), true);
});

test("without a server delay: min(0.5 s × 2^k, 8 s) × (1 − 0.25 r)", () => {
  assert.equal(retryDelay(0, {}, scripted(0), NOW), 500);
  assert.equal(retryDelay(1, {}, scripted(0), NOW), 1000);
  assert.equal(retryDelay(1, {}, scripted(0.5), NOW), 875);
  assert.equal(retryDelay(4, {}, scripted(0), NOW), 8000);
  assert.equal(retryDelay(9, {}, scripted(0), NOW), 8000);
});

test("retry-after in seconds is honoured", () => {
  assert.equal(retryDelay(0, { "retry-after": "3" }, seeded(1), NOW), 3000);
  assert.equal(retryDelay(1, { "retry-after": "20" }, seeded(1), NOW), 20_000);
});

test("retry-after-ms is read first, in milliseconds", () => {
  assert.equal(retryDelay(0, { "retry-after-ms": "1500" }, seeded(1), NOW), 1500);
  assert.equal(retryDelay(0, { "retry-after-ms": "250", "retry-after": "9" }, seeded(1), NOW), 250);
});

test("an unreadable retry-after-ms falls back to retry-after", () => {
  assert.equal(
    retryDelay(0, { "retry-after-ms": "soon", "retry-after": "2" }, seeded(1), NOW),
    2000,
  );
});

test("retry-after as an HTTP-date in the future: the time until then", () => {
  assert.equal(
    retryDelay(0, { "retry-after": "Thu, 15 Jan 2026 09:00:05 GMT" }, seeded(1), NOW),
    5000,
  );
  assert.equal(
    retryDelay(0, { "retry-after": "Thu, 15 Jan 2026 09:00:45 GMT" }, seeded(1), NOW + 15_000),
    30_000,
  );
});

test("an HTTP-date in the past, or now, falls back to the backoff", () => {
  assert.equal(
    retryDelay(0, { "retry-after": "Thu, 15 Jan 2026 08:59:55 GMT" }, scripted(0), NOW),
    500,
  );
  assert.equal(
    retryDelay(1, { "retry-after": "Thu, 15 Jan 2026 09:00:00 GMT" }, scripted(0), NOW),
    1000,
  );
});

test("zero, unreadable and negative values fall back to the backoff", () => {
  for (const v of ["0", "soon", "", "-5"])
    assert.equal(retryDelay(0, { "retry-after": v }, scripted(0), NOW), 500, JSON.stringify(v));
  assert.equal(retryDelay(0, { "retry-after-ms": "0" }, scripted(0), NOW), 500);
});

test("60 s is the ceiling: up to 60 s is honoured, more falls back to the backoff", () => {
  assert.equal(retryDelay(0, { "retry-after": "60" }, seeded(1), NOW), 60_000);
  assert.equal(retryDelay(0, { "retry-after": "61" }, scripted(0), NOW), 500);
  assert.equal(retryDelay(0, { "retry-after": "120" }, scripted(0), NOW), 500);
  assert.equal(retryDelay(0, { "retry-after-ms": "60001" }, scripted(0), NOW), 500);
  assert.equal(
    retryDelay(0, { "retry-after": "Thu, 15 Jan 2026 09:02:00 GMT" }, scripted(0), NOW),
    500,
  );
});
