// Tests for exercise 01a. Run them with `npm run check 1`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { isIdempotentMethod, mayRetryAutomatically } =
  await loadExercise<typeof import("./01a-retry-rule.ts")>("01a-retry-rule");

test(t("PUT, DELETE and the safe methods are idempotent (RFC 9110 §9.2.2)"), () => {
  for (const method of ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"])
    assert.equal(
      isIdempotentMethod(method),
      true,
      t(
        'isIdempotentMethod("{method}") must be true: RFC 9110 §9.2.2 names {method} idempotent, so a client may send it again',
        { method },
      ),
    );
});

test(t("POST, PATCH and CONNECT are not"), () => {
  for (const method of ["POST", "PATCH", "CONNECT"])
    assert.equal(
      isIdempotentMethod(method),
      false,
      t('isIdempotentMethod("{method}") must be false: sent twice, a {method} may act twice', {
        method,
      }),
    );
});

test(t("method names are case-sensitive, and unknown methods are not idempotent"), () => {
  for (const method of ["get", "Put", "delete", "QUERY", "", "BREW"])
    assert.equal(
      isIdempotentMethod(method),
      false,
      t(
        "isIdempotentMethod({method}) must be false: method names are case-sensitive (§9.1), and a method the rule does not name is not known to be idempotent",
        { method: JSON.stringify(method) },
      ),
    );
});

test(t("an idempotent request may be retried after any failure"), () => {
  for (const failure of ["timeout", "connection-reset", "connection-refused"] as const) {
    for (const method of ["PUT", "GET"])
      assert.equal(
        mayRetryAutomatically(method, failure, false),
        true,
        t(
          'mayRetryAutomatically("{method}", "{failure}", false) must be true: sending an idempotent request again has the effect of sending it once',
          { method, failure },
        ),
      );
  }
});

test(t("a POST without a key SHOULD NOT be retried once it may have been sent"), () => {
  for (const [method, failure] of [
    ["POST", "timeout"],
    ["POST", "connection-reset"],
    ["PATCH", "timeout"],
  ] as const)
    assert.equal(
      mayRetryAutomatically(method, failure, false),
      false,
      t(
        'mayRetryAutomatically("{method}", "{failure}", false) must be false: the request may have been applied, and sending it again may file a second report',
        { method, failure },
      ),
    );
});

test(t("escape clause: the original request was provably never applied"), () => {
  assert.equal(
    mayRetryAutomatically("POST", "connection-refused", false),
    true,
    t(
      'mayRetryAutomatically("POST", "connection-refused", false) must be true: a refused connection sent nothing, so nothing can have been applied',
    ),
  );
});

test(
  t("escape clause: an Idempotency-Key the server honours makes the POST safe to resend"),
  () => {
    for (const failure of ["timeout", "connection-reset"] as const)
      assert.equal(
        mayRetryAutomatically("POST", failure, true),
        true,
        t(
          'mayRetryAutomatically("POST", "{failure}", true) must be true: with a key the server honours, a second copy of the request is answered from the first',
          { failure },
        ),
      );
  },
);
