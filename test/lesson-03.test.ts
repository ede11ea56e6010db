// Lesson 03, run once: it prints what its servers counted; check those numbers in its tables. The same
// seed's second run, and the runs at 80 and 120 columns, are in test/full/.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runLesson, testRunsCleanly } from "./lesson-run.ts";
import { tableRow } from "./run-helpers.ts";

const LESSON = "lessons/03-retries-multiply.ts";
const ran = await runLesson([LESSON, "--seed", "1"]);
const last = (label: string): string | undefined => tableRow(ran.stdout, label)?.at(-1);

testRunsCleanly("lesson 03", ran);

test("lesson 03: the layers, the agent's stack and Codex, as counted by the servers", () => {
  assert.equal(last("5 layers × 3 tries"), "243");
  assert.equal(last("retry at one point"), "3");
  assert.equal(last("harness 4 × SDK 3"), "12");
  assert.equal(last("Codex, course, Retry-After"), "9");
  assert.equal(last("Codex, course, none"), "3");
  assert.equal(last("Codex, upstream defaults"), "30");
  assert.deepEqual(tableRow(ran.stdout, "database"), ["database", "243", "3", "1024"]);
  assert.deepEqual(tableRow(ran.stdout, "layer 3"), ["layer 3", "9", "3", "16"]);
  assert.match(
    ran.stdout,
    /received 12 POSTs for one logical call \(4 harness attempts\); 0 carried an Idempotency-Key/,
  );
  assert.match(ran.stdout, /received 30 requests; Retry-After honoured 0 times/);
});

test("lesson 03: the retry budget, side by side", () => {
  assert.deepEqual(tableRow(ran.stdout, "requests during the outage"), [
    "requests during the outage",
    "300",
    "150",
  ]);
  assert.deepEqual(tableRow(ran.stdout, "requests after the fix"), [
    "requests after the fix",
    "300",
    "100",
  ]);
  assert.deepEqual(tableRow(ran.stdout, "calls ok after the fix"), [
    "calls ok after the fix",
    "0/100 (0 %)",
    "100/100 (100 %)",
  ]);
  assert.equal(last("outage, no budget"), "600");
  assert.equal(last("outage, token bucket"), "250");
  assert.deepEqual(
    tableRow(ran.stdout, "1")?.slice(4),
    ["60", "no", "100"],
    "round 1: 40 retries at 10 tokens each",
  );
});

test("lesson 03: a 503 retry costs 10 tokens in the AWS SDK for JavaScript v3 (transient), a throttling retry 5", () => {
  const text = ran.stdout.replace(/\s+/g, " ");
  assert.match(text, /Every failure here is a 503: each retry costs 10\./);
  assert.match(
    text,
    /a 503 retry costs 10 tokens, a plain success pays back 1, so once drained, about one retry per 10 successes \(one per 5 for throttling errors\)/,
  );
  assert.doesNotMatch(text, /one retry per five successes/);
});

test("lesson 03 names the sources it prints: the refund rule, openai-python's 120 s, AWS's 2026 defaults, the HTTPS-only bound", () => {
  const text = ran.stdout.replace(/\s+/g, " ");
  assert.match(text, /recordSuccess in StandardRetryStrategy\.ts/);
  assert.match(text, /openai-python 3\.3\.1, _constants\.py, MAX_RETRY_AFTER_DELAY = 2 \* 60/);
  assert.match(text, /retries-2026-config\.ts/);
  assert.match(
    text,
    /6 sampling attempts and about 30 requests is the bound for Codex talking to the model over HTTPS/,
  );
  assert.match(
    text,
    /only from the second retry on, in a debug build, or when the WebSocket transport is off/,
  );
});

test("lesson 03: 429 and Retry-After, case by case", () => {
  const row = (label: string) => tableRow(ran.stdout, label)!;
  const requests = (label: string) => row(label)[2];
  assert.equal(requests("quota 429"), "1");
  assert.equal(requests("429 + Retry-After"), "2");
  assert.match(row("429 + Retry-After")[3]!, /^2\.00 s \[20\.0 ms\]/);
  assert.equal(requests("429 bare"), "1");
  assert.equal(requests("503 + Retry-After"), "2");
  assert.match(row("503 + Retry-After")[3]!, /^1\.00 s/);
  assert.equal(requests("429 + HTTP-date"), "2");
  assert.match(row("429 + HTTP-date")[3]!, /^3\.00 s/);
  assert.equal(requests("SDK: 429 bare"), "2");
  assert.match(row("SDK: 429, 120 s")[3]!, /backoff; retry-after over 60 s, ignored/);
  assert.match(row("SDK: past date")[3]!, /backoff; retry-after not in the future, ignored/);
  assert.equal(requests("SDK: x-should-retry"), "1");
});
