// Tests for exercise 01a. Run them with `npm run check 1`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { isIdempotentMethod, mayRetryAutomatically } =
  await loadExercise<typeof import("./01a-retry-rule.ts")>("01a-retry-rule");

test("PUT, DELETE and the safe methods are idempotent (RFC 9110 §9.2.2)", () => {
  for (const m of ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"])
    assert.equal(isIdempotentMethod(m), true, m);
});

test("POST, PATCH and CONNECT are not", () => {
  for (const m of ["POST", "PATCH", "CONNECT"]) assert.equal(isIdempotentMethod(m), false, m);
});

test("method names are case-sensitive, and unknown methods are not idempotent", () => {
  for (const m of ["get", "Put", "delete", "QUERY", "", "BREW"])
    assert.equal(isIdempotentMethod(m), false, JSON.stringify(m));
});

test("an idempotent request may be retried after any failure", () => {
  for (const f of ["timeout", "connection-reset", "connection-refused"] as const) {
    assert.equal(mayRetryAutomatically("PUT", f, false), true, `PUT after ${f}`);
    assert.equal(mayRetryAutomatically("GET", f, false), true, `GET after ${f}`);
  }
});

test("a POST without a key SHOULD NOT be retried once it may have been sent", () => {
  assert.equal(mayRetryAutomatically("POST", "timeout", false), false);
  assert.equal(mayRetryAutomatically("POST", "connection-reset", false), false);
  assert.equal(mayRetryAutomatically("PATCH", "timeout", false), false);
});

test("escape clause: the original request was provably never applied", () => {
  assert.equal(mayRetryAutomatically("POST", "connection-refused", false), true);
});

test("escape clause: an Idempotency-Key the server honours makes the POST safe to resend", () => {
  assert.equal(mayRetryAutomatically("POST", "timeout", true), true);
  assert.equal(mayRetryAutomatically("POST", "connection-reset", true), true);
});
