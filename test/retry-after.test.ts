// Reading Retry-After and retry-after-ms: every form, against a pinned clock.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  formatHttpDate,
  parseRetryAfter,
  parseRetryAfterMs,
  readRetryAfter,
} from "../lib/client/retry-after.ts";

const NOW = Date.UTC(2026, 0, 15, 9, 0, 0); // Thu, 15 Jan 2026 09:00:00 GMT

test("delay-seconds: a whole number of seconds (RFC 9110 §10.2.3), and the SDKs' fractions", () => {
  assert.equal(parseRetryAfter("0", NOW), 0);
  assert.equal(parseRetryAfter("3", NOW), 3000);
  assert.equal(parseRetryAfter(" 120 ", NOW), 120_000);
  assert.equal(parseRetryAfter("1.5", NOW), 1500);
});

test("an HTTP-date: the time from now until then, negative when past", () => {
  assert.equal(parseRetryAfter("Thu, 15 Jan 2026 09:00:03 GMT", NOW), 3000);
  assert.equal(parseRetryAfter("Thu, 15 Jan 2026 08:59:55 GMT", NOW), -5000);
  assert.equal(parseRetryAfter("Thu, 15 Jan 2026 09:00:00 GMT", NOW), 0);
  assert.equal(parseRetryAfter("Thu, 15 Jan 2026 09:00:03 GMT", NOW + 1000), 2000);
});

test("anything else is not a Retry-After", () => {
  for (const v of [
    "",
    "soon",
    "-5",
    "+5",
    "1e3",
    "Infinity",
    "NaN",
    "0x10",
    "2026-01-15T09:00:03Z",
    "15 Jan 2026 09:00:03",
    "Thu, 15 Jan 2026 09:00:03 UTC",
    "Thu, 32 Foo 2026 09:00:03 GMT",
  ]) {
    assert.equal(parseRetryAfter(v, NOW), undefined, JSON.stringify(v));
  }
});

test("retry-after-ms: a decimal number of milliseconds", () => {
  assert.equal(parseRetryAfterMs("1500"), 1500);
  assert.equal(parseRetryAfterMs("0.5"), 0.5);
  for (const v of ["", "soon", "-1", "1s"])
    assert.equal(parseRetryAfterMs(v), undefined, JSON.stringify(v));
});

test("readRetryAfter: retry-after-ms first, then retry-after", () => {
  assert.deepEqual(readRetryAfter({ "retry-after-ms": "250", "retry-after": "9" }, NOW), {
    ms: 250,
    from: "retry-after-ms",
    raw: "250",
  });
  assert.deepEqual(readRetryAfter({ "retry-after": "9" }, NOW), {
    ms: 9000,
    from: "retry-after",
    raw: "9",
  });
  assert.deepEqual(readRetryAfter({ "retry-after": "Thu, 15 Jan 2026 09:00:10 GMT" }, NOW), {
    ms: 10_000,
    from: "retry-after",
    raw: "Thu, 15 Jan 2026 09:00:10 GMT",
  });
});

test("readRetryAfter: an unreadable retry-after-ms falls through to retry-after", () => {
  assert.equal(readRetryAfter({ "retry-after-ms": "soon", "retry-after": "2" }, NOW)?.ms, 2000);
  assert.equal(readRetryAfter({ "retry-after-ms": "soon" }, NOW), undefined);
  assert.equal(readRetryAfter({ "retry-after": "later" }, NOW), undefined);
  assert.equal(readRetryAfter({}, NOW), undefined);
});

test("readRetryAfter: a repeated header counts by its first value", () => {
  assert.equal(readRetryAfter({ "retry-after": ["4", "8"] }, NOW)?.ms, 4000);
});

test("formatHttpDate writes an IMF-fixdate that parseRetryAfter reads back", () => {
  assert.equal(formatHttpDate(NOW + 3_400), "Thu, 15 Jan 2026 09:00:03 GMT");
  assert.equal(parseRetryAfter(formatHttpDate(NOW + 7_000), NOW), 7000);
});
