// Tests for exercise 03a. Run them with `npm run check 3`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { RetryQuota } = await loadExercise<typeof import("./03a-retry-quota.ts")>("03a-retry-quota");
type Quota = InstanceType<typeof RetryQuota>;

/** The bucket holds `tokens` now; `why` says why that many. */
function holds(q: Quota, tokens: number, why: string): void {
  assert.equal(q.available, tokens, t("available: {why}", { why }));
}

/** acquire(kind) must pay `cost` (or refuse, undefined); `why` says why. */
function pays(
  q: Quota,
  kind: "transient" | "throttling",
  cost: number | undefined,
  why: string,
): void {
  assert.equal(q.acquire(kind), cost, t('acquire("{kind}"): {why}', { kind, why }));
}

test(t("a new bucket is full: 500 tokens"), () => {
  holds(new RetryQuota(), 500, t("a new bucket starts full, with CAPACITY tokens"));
});

test(
  t(
    "a retry after a transient error (a 503, a timeout) costs 10 tokens, after a throttling error 5",
  ),
  () => {
    const q = new RetryQuota();
    pays(
      q,
      "throttling",
      5,
      t("a retry after a throttling error (429) costs RETRY_COST, 5 tokens"),
    );
    holds(q, 495, t("500 − 5 after one throttling retry"));
    pays(
      q,
      "transient",
      10,
      t("a retry after a transient error (a 503, a timeout) costs TIMEOUT_RETRY_COST, 10 tokens"),
    );
    holds(q, 485, t("495 − 10 after one transient retry"));
  },
);

test(t("each bucket is its own: two quotas do not share tokens"), () => {
  const a = new RetryQuota();
  const b = new RetryQuota();
  a.acquire("transient");
  holds(a, 490, t("the bucket that paid for a transient retry holds 500 − 10"));
  holds(
    b,
    500,
    t("another client's bucket is still full: the tokens are kept in each instance, not shared"),
  );
});

test(t("100 throttling retries drain the bucket; the 101st is refused"), () => {
  const q = new RetryQuota();
  for (let i = 0; i < 100; i++)
    pays(q, "throttling", 5, t("100 retries of 5 tokens fit in a bucket of 500"));
  holds(q, 0, t("100 × 5 tokens empty the bucket"));
  pays(
    q,
    "throttling",
    undefined,
    t("an empty bucket must refuse (undefined): when everything fails, retries stop"),
  );
  holds(q, 0, t("a refusal takes nothing"));
});

test(t("a refusal leaves the bucket unchanged; a cheaper retry may still pass"), () => {
  const q = new RetryQuota();
  for (let i = 0; i < 99; i++) q.acquire("throttling");
  holds(q, 5, t("99 throttling retries took 99 × 5 tokens"));
  pays(
    q,
    "transient",
    undefined,
    t("a transient retry needs 10 tokens and only 5 are left: refused"),
  );
  holds(q, 5, t("a refused retry must not take the tokens that are left"));
  pays(q, "throttling", 5, t("a throttling retry needs 5 tokens, and 5 are left"));
  holds(q, 0, t("the last 5 tokens paid for that retry"));
});

test(t("a success at the first attempt pays back 1 token"), () => {
  const q = new RetryQuota();
  q.acquire("transient");
  q.acquire("transient");
  q.recordSuccess();
  holds(q, 481, t("500 − 2 × 10, plus NO_RETRY_INCREMENT (1) for a success that needed no retry"));
});

test(t("a success after a retry pays back that retry's cost"), () => {
  const q = new RetryQuota();
  const first = q.acquire("throttling");
  const second = q.acquire("transient");
  holds(q, 485, t("500 − 5 − 10 after two retries"));
  q.recordSuccess(second);
  holds(q, 495, t("recordSuccess(10) pays back the 10 tokens of the transient retry"));
  q.recordSuccess(first);
  holds(q, 500, t("recordSuccess(5) pays back the 5 tokens of the throttling retry"));
});

test(t("the bucket never fills past its capacity"), () => {
  const q = new RetryQuota();
  q.recordSuccess();
  q.recordSuccess(10);
  holds(
    q,
    500,
    t("successes on a full bucket leave it at CAPACITY: Math.min keeps it from overflowing"),
  );
  q.acquire("throttling");
  q.recordSuccess(10);
  holds(q, 500, t("495 + 10 stops at CAPACITY, 500"));
});

test(
  t("an empty bucket refills one token per plain success, and a retry needs five of them"),
  () => {
    const q = new RetryQuota();
    for (let i = 0; i < 50; i++) q.acquire("transient");
    holds(q, 0, t("50 transient retries of 10 tokens empty the bucket"));
    for (let i = 1; i <= 4; i++) {
      q.recordSuccess();
      assert.equal(
        q.available,
        i,
        t("available after {i} plain successes on an empty bucket: each pays back 1 token", { i }),
      );
      pays(
        q,
        "throttling",
        undefined,
        t("a throttling retry needs 5 tokens; fewer are in the bucket"),
      );
    }
    q.recordSuccess();
    pays(q, "throttling", 5, t("5 plain successes pay for one throttling retry"));
    holds(q, 0, t("the last 5 tokens paid for that retry"));
  },
);

test(t("once drained, a 503 retry (transient) needs ten plain successes"), () => {
  const q = new RetryQuota();
  for (let i = 0; i < 50; i++) q.acquire("transient");
  for (let i = 1; i <= 9; i++) {
    q.recordSuccess();
    pays(
      q,
      "transient",
      undefined,
      t("a transient retry needs 10 tokens; fewer are in the bucket"),
    );
  }
  q.recordSuccess();
  pays(q, "transient", 10, t("10 plain successes pay for one transient retry"));
  holds(q, 0, t("the 10 tokens paid for that retry"));
});
