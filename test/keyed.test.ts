// The keyed variants over real HTTP: replay, 409 + Retry-After, 422 before 409, the TTL, stored
// errors, take-over; key-after red where it should be. (Caller scoping: scoping.test.ts; bad input,
// nothing stored on rejection: bad-input.test.ts.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileReport } from "../lib/client/client.ts";
import { seeded } from "../lib/core/random.ts";
import { ANONYMOUS_CALLER } from "../lib/protocol/caller.ts";
import { Faults } from "../lib/tracker/faults.ts";
import { keyStoreOf } from "../lib/tracker/key-store.ts";
import type { TrackerEvent } from "../lib/tracker/narrate.ts";
import { startTracker } from "../lib/tracker/service.ts";
import { post, rawPost, withTracker } from "./http-helpers.ts";

const report = { title: "Login button does nothing", module: "auth" };
const KEY = "8e03978e-40d5-43e8-bc93-6894a57f9324";

test("keyed: the same key replays status, body and Location with Idempotent-Replayed: true", () =>
  withTracker({ variant: "keyed" }, async (t) => {
    const first = await post(t, report, { "idempotency-key": `"${KEY}"` });
    assert.equal(first.status, 201);
    assert.equal(first.headers["idempotent-replayed"], undefined);
    const again = await post(t, report, { "idempotency-key": `"${KEY}"` });
    assert.equal(again.status, 201);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.equal(again.headers.location, first.headers.location);
    assert.deepEqual(again.body, first.body);
    assert.equal(t.store.countReports(), 1);
  }));

test("keyed: the quoted and the bare form name the same key; key order and white space do not matter", () =>
  withTracker({ variant: "keyed" }, async (t) => {
    await post(t, report, { "idempotency-key": `"${KEY}"` });
    const reordered = await rawPost(
      t,
      `{ "module" : "auth",\n  "title": "Login button does nothing" }`,
      { "idempotency-key": KEY },
    );
    assert.equal(reordered.status, 201);
    assert.equal(reordered.headers["idempotent-replayed"], "true");
    assert.equal(t.store.countReports(), 1);
  }));

test("keyed: while the first request holds its lease, the same key gets 409 with Retry-After and retry-after-ms", async () => {
  let clock = 1_000_000;
  const faults = new Faults({ 1: "slow" });
  await withTracker({ variant: "keyed", faults, leaseMs: 2_500, now: () => clock }, async (t) => {
    const first = post(t, report, { "idempotency-key": KEY });
    await faults.reached(1, "held");
    clock += 1_000;
    const busy = await post(t, report, { "idempotency-key": KEY });
    assert.equal(busy.status, 409);
    assert.equal(busy.headers["content-type"], "application/problem+json");
    assert.equal(busy.headers["retry-after-ms"], "1500");
    assert.equal(busy.headers["retry-after"], "2", "whole seconds, rounded up");
    assert.equal(t.store.countReports(), 0);
    faults.release(1);
    assert.equal((await first).status, 201);
    const after = await post(t, report, { "idempotency-key": KEY });
    assert.equal(after.headers["idempotent-replayed"], "true");
    assert.equal(t.store.countReports(), 1);
  });
});

test("keyed: a different request under the key is 422, and that is checked before 409", async () => {
  const faults = new Faults({ 1: "slow" });
  await withTracker({ variant: "keyed", faults, now: () => 0 }, async (t) => {
    const first = post(t, report, { "idempotency-key": KEY });
    await faults.reached(1, "held");
    const other = await post(t, { title: "Another bug" }, { "idempotency-key": KEY });
    assert.equal(other.status, 422);
    assert.equal(other.headers["content-type"], "application/problem+json");
    assert.equal((await post(t, report, { "idempotency-key": KEY })).status, 409);
    faults.release(1);
    await first;
    assert.equal(
      (await post(t, { title: "Another bug" }, { "idempotency-key": KEY })).status,
      422,
      "after completion too",
    );
    assert.equal(t.store.countReports(), 1);
  });
});

test("keyed: the TTL, on the injected clock: a replay just before it, a new request from it on", async () => {
  let clock = 0;
  await withTracker({ variant: "keyed", ttlMs: 10_000, now: () => clock }, async (t) => {
    assert.equal((await post(t, report, { "idempotency-key": KEY })).status, 201);
    clock = 9_999;
    assert.equal(
      (await post(t, report, { "idempotency-key": KEY })).headers["idempotent-replayed"],
      "true",
    );
    assert.equal((await post(t, { title: "reused" }, { "idempotency-key": KEY })).status, 422);
    clock = 10_000;
    const fresh = await post(t, { title: "reused" }, { "idempotency-key": KEY });
    assert.equal(fresh.status, 201, "an expired key is new, whatever it was used for");
    assert.equal(fresh.headers["idempotent-replayed"], undefined);
    assert.equal(t.store.countReports(), 2);
  });
});

test("keyed: an error after the work began is stored and replayed (Stripe API v1), and nothing runs again", () =>
  withTracker({ variant: "keyed", faults: new Faults({ 1: "internal-error" }) }, async (t) => {
    const first = await post(t, report, { "idempotency-key": KEY });
    assert.equal(first.status, 500);
    assert.equal(first.headers["content-type"], "application/problem+json");
    const again = await post(t, report, { "idempotency-key": KEY });
    assert.equal(again.status, 500);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.deepEqual(again.body, first.body);
    assert.equal(t.store.countReports(), 0);
    assert.equal(keyStoreOf(t.store).get(ANONYMOUS_CALLER, KEY)?.state, "completed");
  }));

test("keyed: a claim whose lease ran out is taken over; keyed has no fence (its rows keep 0); the paused holder still files (lesson 05's bug)", async () => {
  let clock = 0;
  const faults = new Faults({ 1: "pause-past-lease" });
  const events: TrackerEvent[] = [];
  await withTracker(
    { variant: "keyed", faults, leaseMs: 100, now: () => clock, onEvent: (e) => events.push(e) },
    async (t) => {
      const keys = keyStoreOf(t.store);
      const holder = post(t, report, { "idempotency-key": KEY });
      await faults.reached(1, "held");
      assert.equal(keys.get(ANONYMOUS_CALLER, KEY)!.fence, 0, "keyed's claim draws no token");
      clock = 100;
      const takeover = await post(t, report, { "idempotency-key": KEY });
      assert.equal(takeover.status, 201);
      assert.equal(keys.get(ANONYMOUS_CALLER, KEY)!.fence, 0, "nor does its take-over");
      // The paused holder still wakes on the take-over (the fault follows the key, not a token).
      assert.ok(faults.hasReached(1, "taken-over"));
      faults.release(1);
      assert.equal((await holder).status, 201);
      assert.equal(t.store.countReports(), 2, "keyed has no fence to check: two reports");
    },
  );
  // Its trace names a lease and never a fence, in the words or in the data.
  const claims = events.filter((e) => e.what === "claim" || e.what === "take-over");
  assert.deepEqual(
    claims.map((e) => e.what),
    ["claim", "take-over"],
  );
  for (const e of events) {
    assert.doesNotMatch(e.text, /fence/, e.text);
    assert.equal(e.fence, undefined, e.text);
  }
  assert.match(claims[0]!.text, /^claim key \S+ as in_progress, lease 100 ms · COMMIT$/);
});

test("key-after records a key with neither a fence nor a lease, and draws no token", () =>
  withTracker({ variant: "key-after" }, async (t) => {
    assert.equal((await post(t, report, { "idempotency-key": KEY })).status, 201);
    const row = keyStoreOf(t.store).get(ANONYMOUS_CALLER, KEY)!;
    assert.equal(row.fence, 0);
    assert.equal(row.leaseUntil, 0);
    // The counter that only claims draw from is untouched: a fenced claim on the same file draws 1.
    const keys = keyStoreOf(t.store);
    const fence = t.store.transaction(() =>
      keys.claim(ANONYMOUS_CALLER, "another", "fp", 0, 100, 86_400_000),
    );
    assert.equal(fence, 1);
  }));

test("key-after: replays a recorded key and answers 422 for another request", () =>
  withTracker({ variant: "key-after" }, async (t) => {
    assert.equal((await post(t, report, { "idempotency-key": KEY })).status, 201);
    const again = await post(t, report, { "idempotency-key": KEY });
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.equal((await post(t, { title: "other" }, { "idempotency-key": KEY })).status, 422);
    assert.equal(t.store.countReports(), 1);
  }));

test("naive ignores the key: the same key twice stores two reports", () =>
  withTracker({ variant: "naive" }, async (t) => {
    await post(t, report, { "idempotency-key": KEY });
    await post(t, report, { "idempotency-key": KEY });
    assert.equal(t.store.countReports(), 2);
  }));

/** One key, two requests at once: #1 is held until #2 has been answered. */
async function concurrentSameKey(
  variant: "key-after" | "keyed",
): Promise<{ reports: number; statuses: number[] }> {
  // The clock stands still, so the lease never runs out; the agent may skip the wait it is asked for.
  const faults = new Faults({ 1: "slow" });
  const t = await startTracker({ variant, faults, leaseMs: 1_000, now: () => 0 });
  try {
    const call = fileReport({
      url: t.url,
      report,
      policy: "same-key",
      maxAttempts: 3,
      timeoutMs: 100,
      random: seeded(4),
      maxRetryAfterMs: 0,
    });
    await faults.reached(2, "answered");
    faults.release(1);
    await faults.reached(1, "committed");
    const r = await call;
    return {
      reports: t.store.countReports(),
      statuses: r.attempts.map((a) => (a.outcome.kind === "response" ? a.outcome.status : 0)),
    };
  } finally {
    await t.close();
  }
}

test("two requests with one key at once: key-after stores two reports (red)", async () => {
  const r = await concurrentSameKey("key-after");
  assert.deepEqual(r.statuses, [0, 201]);
  assert.equal(r.reports, 2);
});

test("two requests with one key at once: keyed answers 409, then replays; one report (green)", async () => {
  const r = await concurrentSameKey("keyed");
  assert.deepEqual(r.statuses, [0, 409, 201]);
  assert.equal(r.reports, 1);
});

test("a lost response: key-after and keyed replay for a same-key agent; fresh-key still duplicates", async () => {
  for (const [variant, policy, reports] of [
    ["key-after", "same-key", 1],
    ["keyed", "same-key", 1],
    ["keyed", "fresh-key", 2],
  ] as const) {
    await withTracker({ variant, faults: new Faults({ 1: "lose-response" }) }, async (t) => {
      const r = await fileReport({
        url: t.url,
        report,
        policy,
        maxAttempts: 2,
        timeoutMs: 100,
        random: seeded(2),
      });
      assert.equal(r.ok, true);
      assert.equal(t.store.countReports(), reports, `${variant} + ${policy}`);
    });
  }
});
