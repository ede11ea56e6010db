// Tests for exercise 04c. Run them with `npm run check 04c`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { decideKey } =
  await loadExercise<typeof import("./04c-key-decision.ts")>("04c-key-decision");
type KeyRow = import("./04c-key-decision.ts").KeyRow;
type KeyDecision = import("./04c-key-decision.ts").KeyDecision;

const HOUR = 3_600_000;
/** A row claimed at t = 1000 with a 400 ms lease and a 24 h TTL. */
const inProgress: KeyRow = {
  fingerprint: "fp-A",
  state: "in_progress",
  fence: 7,
  leaseUntil: 1_400,
  expiresAt: 1_000 + 24 * HOUR,
};
const completed: KeyRow = { ...inProgress, state: "completed" };

/** decideKey(row, fingerprint, now) must answer `expected`; `why` says why. */
function decides(
  row: KeyRow | undefined,
  fingerprint: string,
  now: number,
  expected: KeyDecision,
  why: string,
): void {
  assert.deepEqual(
    decideKey(row, fingerprint, now),
    expected,
    t('decideKey({row}, "{fingerprint}", {now}): {why}', {
      row: row === undefined ? "undefined" : t("the {state} row", { state: row.state }),
      fingerprint,
      now: String(now),
      why,
    }),
  );
}

test(t("no row: claim the key"), () => {
  decides(
    undefined,
    "fp-A",
    1_000,
    { kind: "claim" },
    t("no row: the key is new, so the request claims it"),
  );
});

test(t("completed, same request: replay the stored response"), () => {
  const replay = t(
    "the same request under a completed key gets the stored answer again, while the key lives",
  );
  decides(completed, "fp-A", 1_001, { kind: "replay" }, replay);
  decides(completed, "fp-A", 1_000 + 24 * HOUR - 1, { kind: "replay" }, replay);
});

test(t("same key, different request: mismatch (422)"), () => {
  decides(
    completed,
    "fp-B",
    1_001,
    { kind: "mismatch" },
    t("another fingerprint under the same key is a misused key (422), not a retry"),
  );
});

test(t("in progress within the lease: 409, retry when the lease ends"), () => {
  const wait = t(
    "another request holds the key and its lease still runs: 409, with retryAfterMs = leaseUntil − now",
  );
  decides(inProgress, "fp-A", 1_000, { kind: "in-progress", retryAfterMs: 400 }, wait);
  decides(inProgress, "fp-A", 1_150, { kind: "in-progress", retryAfterMs: 250 }, wait);
  decides(inProgress, "fp-A", 1_399, { kind: "in-progress", retryAfterMs: 1 }, wait);
});

test(t("the mismatch is checked before in progress"), () => {
  decides(
    inProgress,
    "fp-B",
    1_100,
    { kind: "mismatch" },
    t(
      "a misused key is the client's bug whatever state the row is in, so the fingerprint is compared before the state",
    ),
  );
});

test(t("in progress, lease run out: take over (from the moment it ends)"), () => {
  const over = t("from leaseUntil on, the holder is presumed dead and the key may be taken over");
  decides(inProgress, "fp-A", 1_400, { kind: "take-over" }, over);
  decides(inProgress, "fp-A", 5_000, { kind: "take-over" }, over);
  decides(
    inProgress,
    "fp-B",
    5_000,
    { kind: "mismatch" },
    t("another fingerprint is a mismatch, even past the lease"),
  );
});

test(t("past the TTL the key is forgotten: a new claim, whatever the row says"), () => {
  const expired = 1_000 + 24 * HOUR;
  const gone = t(
    "from expiresAt on the key is forgotten: the request claims it as new, whatever the row says",
  );
  decides(completed, "fp-A", expired, { kind: "claim" }, gone);
  decides(completed, "fp-B", expired + 1, { kind: "claim" }, gone);
  decides(inProgress, "fp-A", expired, { kind: "claim" }, gone);
});

test(t("only the arguments count: the same question gets the same answer"), () => {
  assert.deepEqual(
    decideKey(inProgress, "fp-A", 1_200),
    decideKey(inProgress, "fp-A", 1_200),
    t(
      "decideKey gave two answers to one question: it must depend on its arguments only (the clock is one of them)",
    ),
  );
  assert.deepEqual(
    inProgress,
    {
      fingerprint: "fp-A",
      state: "in_progress",
      fence: 7,
      leaseUntil: 1_400,
      expiresAt: 1_000 + 24 * HOUR,
    },
    t("decideKey changed the row it was given: it decides, and the caller writes"),
  );
});
