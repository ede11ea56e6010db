// Tests for exercise 03b. Run them with `npm run check 3`.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Outcome } from "../lib/client/client.ts";
import { t } from "../lib/core/i18n.ts";
import { type Random, scripted, seeded } from "../lib/core/random.ts";
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

/** shouldRetry for a status (and headers) must say `retry`; `why` says why. */
function retries(
  status: number,
  headers: Record<string, string>,
  retry: boolean,
  why: string,
): void {
  assert.equal(
    shouldRetry(answer(status, headers)),
    retry,
    t("shouldRetry({what}): {why}", { what: JSON.stringify({ status, headers }), why }),
  );
}

/** retryDelay must wait `ms`; `why` says why. */
function waits(
  retriesSoFar: number,
  headers: Record<string, string>,
  random: Random,
  now: number,
  ms: number,
  why: string,
): void {
  assert.equal(
    retryDelay(retriesSoFar, headers, random, now),
    ms,
    t("retryDelay({retriesSoFar}, {headers}): {why}", {
      retriesSoFar,
      headers: JSON.stringify(headers),
      why,
    }),
  );
}

test(t("connection errors and timeouts are retried"), () => {
  for (const outcome of [
    { kind: "error", code: "ECONNREFUSED", message: "refused" },
    { kind: "error", code: "ECONNRESET", message: "reset" },
    { kind: "timeout", limitMs: 100 },
  ] as const)
    assert.equal(
      shouldRetry(outcome),
      true,
      t(
        "shouldRetry({outcome}) must be true: without a response there is nothing to read, and the SDK retries",
        {
          outcome: JSON.stringify(outcome),
        },
      ),
    );
});

test(t("408, 409, 429 and every 5xx are retried"), () => {
  for (const status of [408, 409, 429, 500, 502, 503, 504, 529, 599])
    retries(status, {}, true, t("the SDK retries 408, 409, 429 and every status from 500 up"));
});

test(t("other 4xx are not"), () => {
  for (const status of [400, 401, 403, 404, 405, 410, 413, 422, 425, 428])
    retries(
      status,
      {},
      false,
      t("any other 4xx is the request's own fault: the same request would fail the same way"),
    );
});

test(t("x-should-retry overrides the status, both ways"), () => {
  retries(
    400,
    { "x-should-retry": "true" },
    true,
    t("the server's x-should-retry: true wins over the status"),
  );
  retries(
    422,
    { "x-should-retry": "true" },
    true,
    t("the server's x-should-retry: true wins over the status"),
  );
  retries(
    503,
    { "x-should-retry": "false" },
    false,
    t("the server's x-should-retry: false wins over the status"),
  );
  retries(
    429,
    { "x-should-retry": "false" },
    false,
    t("the server's x-should-retry: false wins over the status"),
  );
});

test(t("x-should-retry counts only as exactly true or false"), () => {
  retries(
    400,
    { "x-should-retry": "yes" },
    false,
    t('only exactly "true" or "false" counts; any other value leaves the decision to the status'),
  );
  retries(
    503,
    { "x-should-retry": "no" },
    true,
    t('only exactly "true" or "false" counts; any other value leaves the decision to the status'),
  );
});

test(t("without a server delay: min(0.5 s × 2^k, 8 s) × (1 − 0.25 r)"), () => {
  const own = t(
    "no header asks for a delay, so the SDK's own backoff decides: anthropicSdkDelayMs(retriesSoFar, random)",
  );
  waits(0, {}, scripted(0), NOW, 500, own);
  waits(1, {}, scripted(0), NOW, 1000, own);
  waits(1, {}, scripted(0.5), NOW, 875, own);
  waits(4, {}, scripted(0), NOW, 8000, own);
  waits(9, {}, scripted(0), NOW, 8000, own);
});

test(t("retry-after in seconds is honoured"), () => {
  const seconds = t("retry-after holds seconds: the server's delay, in ms, is used as it is");
  waits(0, { "retry-after": "3" }, seeded(1), NOW, 3000, seconds);
  waits(1, { "retry-after": "20" }, seeded(1), NOW, 20_000, seconds);
});

test(t("retry-after-ms is read first, in milliseconds"), () => {
  const ms = t("retry-after-ms holds milliseconds and is read before retry-after");
  waits(0, { "retry-after-ms": "1500" }, seeded(1), NOW, 1500, ms);
  waits(0, { "retry-after-ms": "250", "retry-after": "9" }, seeded(1), NOW, 250, ms);
});

test(t("an unreadable retry-after-ms falls back to retry-after"), () => {
  waits(
    0,
    { "retry-after-ms": "soon", "retry-after": "2" },
    seeded(1),
    NOW,
    2000,
    t("retry-after-ms is not a number, so retry-after decides"),
  );
});

test(t("retry-after as an HTTP-date in the future: the time until then"), () => {
  const date = t("an HTTP-date in retry-after: wait from nowMs until that moment");
  waits(0, { "retry-after": "Thu, 15 Jan 2026 09:00:05 GMT" }, seeded(1), NOW, 5000, date);
  waits(
    0,
    { "retry-after": "Thu, 15 Jan 2026 09:00:45 GMT" },
    seeded(1),
    NOW + 15_000,
    30_000,
    date,
  );
});

test(t("an HTTP-date in the past, or now, falls back to the backoff"), () => {
  const past = t("a date in the past, or now, asks for no wait: the SDK's own backoff decides");
  waits(0, { "retry-after": "Thu, 15 Jan 2026 08:59:55 GMT" }, scripted(0), NOW, 500, past);
  waits(1, { "retry-after": "Thu, 15 Jan 2026 09:00:00 GMT" }, scripted(0), NOW, 1000, past);
});

test(t("zero, unreadable and negative values fall back to the backoff"), () => {
  const bad = t(
    "only a delay of more than 0 counts; zero, a negative number or text falls back to the SDK's own backoff",
  );
  for (const value of ["0", "soon", "", "-5"])
    waits(0, { "retry-after": value }, scripted(0), NOW, 500, bad);
  waits(0, { "retry-after-ms": "0" }, scripted(0), NOW, 500, bad);
});

test(t("60 s is the ceiling: up to 60 s is honoured, more falls back to the backoff"), () => {
  waits(
    0,
    { "retry-after": "60" },
    seeded(1),
    NOW,
    60_000,
    t("60 s is the most the SDK honours, and 60 s is honoured"),
  );
  const over = t(
    "a delay over MAX_RETRY_AFTER_MS (60 s) is not honoured: the SDK's own backoff decides",
  );
  waits(0, { "retry-after": "61" }, scripted(0), NOW, 500, over);
  waits(0, { "retry-after": "120" }, scripted(0), NOW, 500, over);
  waits(0, { "retry-after-ms": "60001" }, scripted(0), NOW, 500, over);
  waits(0, { "retry-after": "Thu, 15 Jan 2026 09:02:00 GMT" }, scripted(0), NOW, 500, over);
});
