// Tests for exercise 04c. Run them with `npm run check 04c`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { decideKey } =
  await loadExercise<typeof import("./04c-key-decision.ts")>("04c-key-decision");
type KeyRow = import("./04c-key-decision.ts").KeyRow;

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

test("no row: claim the key", () => {
  assert.deepEqual(decideKey(undefined, "fp-A", 1_000), { kind: "claim" });
});

test("completed, same request: replay the stored response", () => {
  assert.deepEqual(decideKey(completed, "fp-A", 1_001), { kind: "replay" });
  assert.deepEqual(decideKey(completed, "fp-A", 1_000 + 24 * HOUR - 1), { kind: "replay" });
});

test("same key, different request: mismatch (422)", () => {
  assert.deepEqual(decideKey(completed, "fp-B", 1_001), { kind: "mismatch" });
});

test("in progress within the lease: 409, retry when the lease ends", () => {
  assert.deepEqual(decideKey(inProgress, "fp-A", 1_000), {
    kind: "in-progress",
    retryAfterMs: 400,
  });
  assert.deepEqual(decideKey(inProgress, "fp-A", 1_150), {
    kind: "in-progress",
    retryAfterMs: 250,
  });
  assert.deepEqual(decideKey(inProgress, "fp-A", 1_399), { kind: "in-progress", retryAfterMs: 1 });
});

test("the mismatch is checked before in progress", () => {
  assert.deepEqual(decideKey(inProgress, "fp-B", 1_100), { kind: "mismatch" });
});

test("in progress, lease run out: take over (from the moment it ends)", () => {
  assert.deepEqual(decideKey(inProgress, "fp-A", 1_400), { kind: "take-over" });
  assert.deepEqual(decideKey(inProgress, "fp-A", 5_000), { kind: "take-over" });
  assert.deepEqual(decideKey(inProgress, "fp-B", 5_000), { kind: "mismatch" });
});

test("past the TTL the key is forgotten: a new claim, whatever the row says", () => {
  const expired = 1_000 + 24 * HOUR;
  assert.deepEqual(decideKey(completed, "fp-A", expired), { kind: "claim" });
  assert.deepEqual(decideKey(completed, "fp-B", expired + 1), { kind: "claim" });
  assert.deepEqual(decideKey(inProgress, "fp-A", expired), { kind: "claim" });
});

test("only the arguments count: the same question gets the same answer", () => {
  const a = decideKey(inProgress, "fp-A", 1_200);
  const b = decideKey(inProgress, "fp-A", 1_200);
  assert.deepEqual(a, b);
  assert.deepEqual(
    inProgress,
    {
      fingerprint: "fp-A",
      state: "in_progress",
      fence: 7,
      leaseUntil: 1_400,
      expiresAt: 1_000 + 24 * HOUR,
    },
    "the row is not changed",
  );
});
