// Leases and fencing tokens: the paused holder (fenced out, or woken while the new holder still
// runs), a stale holder's failure, a late holder nobody took over, and kill -9 before and after the
// commit. Each case runs on `keyed` (red where the fence matters) and on `fenced` (green). The lease
// runs out on an injected clock, and every pause is a gate: nothing here waits on timing luck.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileReport, httpCall, type Outcome } from "../lib/client/client.ts";
import { seeded } from "../lib/core/random.ts";
import { ANONYMOUS_CALLER } from "../lib/protocol/caller.ts";
import { Faults } from "../lib/tracker/faults.ts";
import { keyStoreOf } from "../lib/tracker/key-store.ts";
import type { TrackerEvent } from "../lib/tracker/narrate.ts";
import { pacedClock } from "../lib/tracker/paced-clock.ts";
import { startTracker, type Tracker } from "../lib/tracker/service.ts";
import { countReportsIn, ReportStore } from "../lib/tracker/store.ts";
import { superviseTracker } from "../lib/tracker/supervisor.ts";
import { availableVariants } from "../lib/tracker/variants/index.ts";

const report = { title: "Login button does nothing", module: "auth" };
const KEY = "8e03978e-40d5-43e8-bc93-6894a57f9324";
const LEASE_MS = 100;
const dir = mkdtempSync(join(tmpdir(), "fenced-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const dbFile = (): string => join(dir, `t${++files}.sqlite`);

type Response = Extract<Outcome, { kind: "response" }>;

async function post(t: Tracker, body: unknown = report): Promise<Response> {
  const o = await httpCall({
    method: "POST",
    url: `${t.url}/reports`,
    body,
    headers: { "idempotency-key": `"${KEY}"` },
    timeoutMs: 10_000,
  });
  assert.equal(o.kind, "response", JSON.stringify(o));
  return o as Response;
}

const idOf = (r: Response): number => (r.body as { id: number }).id;
const replayed = (r: Response): boolean => r.headers["idempotent-replayed"] === "true";

/**
 * Request #1 claims the key at t = 0 and is held (pause-past-lease); the clock moves past its lease;
 * request #2 takes the key over. `steer` plays the rest.
 */
async function pausedHolder<T>(
  variant: "keyed" | "fenced",
  plan: Record<number, "slow">,
  steer: (s: {
    t: Tracker;
    faults: Faults;
    holder: Promise<Response>;
    takeover: Promise<Response>;
  }) => Promise<T>,
): Promise<T> {
  let clock = 0;
  const faults = new Faults({ 1: "pause-past-lease", ...plan });
  const t = await startTracker({ variant, faults, leaseMs: LEASE_MS, now: () => clock });
  try {
    const holder = post(t);
    await faults.reached(1, "held");
    clock = LEASE_MS;
    const takeover = post(t);
    await faults.reached(2, "arrived");
    await faults.reached(1, "taken-over");
    return await steer({ t, faults, holder, takeover });
  } finally {
    await t.close();
  }
}

test("fenced is registered beside the other variants", () => {
  assert.deepEqual(availableVariants().sort(), ["fenced", "key-after", "keyed", "naive"]);
});

for (const variant of ["keyed", "fenced"] as const) {
  test(`${variant}: the paused holder wakes after another request took its key over and completed`, () =>
    pausedHolder(variant, {}, async ({ t, faults, holder, takeover }) => {
      const winner = await takeover;
      assert.equal(winner.status, 201);
      assert.equal(replayed(winner), false, "the take-over did the work");
      const late = await holder;
      await faults.reached(1, "handled");
      const keys = keyStoreOf(t.store);
      if (variant === "keyed") {
        // Red: the holder's transaction is perfect on its own, and it is a second report.
        assert.equal(late.status, 201);
        assert.notEqual(idOf(late), idOf(winner));
        assert.equal(t.store.countReports(), 2);
        assert.deepEqual(
          keys.get(ANONYMOUS_CALLER, KEY)?.response?.body,
          late.body,
          "and its response overwrote the winner's",
        );
      } else {
        // Green: 0 rows changed, rolled back with its report; it replays the winner's answer.
        assert.equal(late.status, 201);
        assert.equal(replayed(late), true);
        assert.deepEqual(late.body, winner.body);
        assert.equal(faults.hasReached(1, "committed"), false);
        assert.equal(t.store.countReports(), 1);
        assert.deepEqual(keys.get(ANONYMOUS_CALLER, KEY)?.response?.body, winner.body);
        assert.equal((await post(t)).headers["idempotent-replayed"], "true");
        assert.equal(t.store.countReports(), 1);
      }
    }));

  test(`${variant}: the paused holder woken while the new holder still runs`, () =>
    pausedHolder(variant, { 2: "slow" }, async ({ t, faults, holder, takeover }) => {
      await faults.reached(2, "held");
      const fence = keyStoreOf(t.store).get(ANONYMOUS_CALLER, KEY)!.fence;
      faults.release(1);
      const late = await holder;
      if (variant === "keyed") {
        assert.equal(late.status, 201, "keyed lets the stale holder complete");
      } else {
        assert.equal(late.status, 409, "the new holder still runs: the stale one gets 409");
        assert.equal(
          late.headers["retry-after-ms"],
          String(LEASE_MS),
          "until the new holder's lease ends",
        );
        const row = keyStoreOf(t.store).get(ANONYMOUS_CALLER, KEY)!;
        assert.deepEqual(
          [row.state, row.fence],
          ["in_progress", fence],
          "the new holder's claim is untouched",
        );
        assert.equal(t.store.countReports(), 0);
      }
      faults.release(2);
      const winner = await takeover;
      assert.equal(winner.status, 201);
      assert.equal(t.store.countReports(), variant === "keyed" ? 2 : 1);
    }));

  test(`${variant}: a stale holder's failure ${variant === "keyed" ? "wipes" : "does not touch"} the new holder's claim`, () =>
    pausedHolder(variant, { 2: "slow" }, async ({ t, faults, holder, takeover }) => {
      await faults.reached(2, "held");
      faults.fail(1);
      const late = await holder;
      const keys = keyStoreOf(t.store);
      const row = keys.get(ANONYMOUS_CALLER, KEY)!;
      // A retry while the new holder still works.
      const retry = await post(t);
      if (variant === "keyed") {
        assert.equal(late.status, 500);
        assert.deepEqual(
          [row.state, row.response?.status],
          ["completed", 500],
          "the failure was written over the new claim",
        );
        assert.equal(
          retry.status,
          500,
          "red: the retry is told the operation failed while it is still running",
        );
        assert.equal(replayed(retry), true);
      } else {
        assert.equal(late.status, 409);
        assert.equal(row.state, "in_progress", "the failure was not stored");
        assert.equal(retry.status, 409, "the new holder's claim stands");
      }
      faults.release(2);
      assert.equal((await takeover).status, 201);
      assert.equal(t.store.countReports(), 1);
      const last = await post(t);
      assert.deepEqual([last.status, replayed(last)], [201, true]);
    }));
}

test("fenced, with nobody taken over, answers as keyed does: 409 in progress, 422 misuse, replay, a stored 500 replayed", async () => {
  const faults = new Faults({ 1: "slow", 5: "internal-error" });
  const t = await startTracker({ variant: "fenced", faults, leaseMs: LEASE_MS, now: () => 0 });
  try {
    const first = post(t);
    await faults.reached(1, "held");
    assert.equal((await post(t)).status, 409);
    assert.equal((await post(t, { title: "another report" })).status, 422);
    faults.release(1);
    const done = await first;
    assert.deepEqual([done.status, replayed(done)], [201, false]);
    const again = await post(t);
    assert.deepEqual([again.status, replayed(again), again.body], [201, true, done.body]);
    const failing = (): Promise<Outcome> =>
      httpCall({
        method: "POST",
        url: `${t.url}/reports`,
        body: report,
        headers: { "idempotency-key": "other" },
        timeoutMs: 10_000,
      });
    const failed = (await failing()) as Response;
    assert.equal(failed.status, 500);
    const failedAgain = (await failing()) as Response;
    assert.deepEqual([failedAgain.status, replayed(failedAgain)], [500, true]);
    assert.equal(t.store.countReports(), 1);
  } finally {
    await t.close();
  }
});

test("fenced: a late holder whose lease ran out but whom nobody took over still commits (the lease is for liveness)", async () => {
  let clock = 0;
  const faults = new Faults({ 1: "pause-past-lease" });
  const t = await startTracker({ variant: "fenced", faults, leaseMs: LEASE_MS, now: () => clock });
  try {
    const holder = post(t);
    await faults.reached(1, "held");
    clock = 10 * LEASE_MS;
    faults.release(1);
    const late = await holder;
    assert.equal(late.status, 201);
    assert.equal(replayed(late), false);
    assert.equal(faults.hasReached(1, "taken-over"), false);
    assert.equal(t.store.countReports(), 1);
    assert.equal(keyStoreOf(t.store).get(ANONYMOUS_CALLER, KEY)?.state, "completed");
  } finally {
    await t.close();
  }
});

test("pause-past-lease wakes on a take-over of its own claim only; a slow request is never woken by one", async () => {
  let clock = 0;
  const faults = new Faults({ 1: "slow", 2: "pause-past-lease" });
  const t = await startTracker({ variant: "fenced", faults, leaseMs: LEASE_MS, now: () => clock });
  try {
    const slow = post(t);
    await faults.reached(1, "held");
    const paused = httpCall({
      method: "POST",
      url: `${t.url}/reports`,
      body: report,
      headers: { "idempotency-key": "other" },
      timeoutMs: 10_000,
    });
    await faults.reached(2, "held");
    clock = LEASE_MS;
    assert.equal((await post(t)).status, 201, "#3 takes the slow request's key over");
    await faults.reached(3, "handled");
    assert.equal(faults.hasReached(1, "taken-over"), false, "slow is not pause-past-lease");
    assert.equal(faults.hasReached(2, "taken-over"), false, "#2's key was not taken over");
    assert.equal(faults.hasReached(1, "committed") || faults.hasReached(2, "committed"), false);
    faults.release(1);
    faults.release(2);
    assert.equal((await slow).status, 201, "the slow request got the winner's replay");
    assert.equal(((await paused) as Response).status, 201);
    assert.equal(t.store.countReports(), 2, "one per key");
  } finally {
    await t.close();
  }
});

/**
 * kill -9 in a real tracker process at `crash`, a restart on the same file and port, and a same-key
 * agent. The tracker runs on a clock paced by the agent: it moves by what the agent waited.
 */
async function killedFenced(crash: "crash-after-claim" | "crash-between-commits") {
  const db = dbFile();
  const clock = pacedClock();
  const events: TrackerEvent[] = [];
  const tracker = await superviseTracker({
    variant: "fenced",
    db,
    faults: { 1: crash },
    leaseMs: 400,
    clockMs: clock.now(),
    onEvent: (e) => events.push(e),
  });
  try {
    const r = await fileReport({
      url: tracker.url,
      report,
      policy: "same-key",
      maxAttempts: 4,
      timeoutMs: 10_000,
      random: seeded(3),
      beforeRetry: async (n, last, waitedMs) => {
        if (n === 1) await tracker.restartAfterExit();
        await tracker.setClock(clock.advance(last, waitedMs));
      },
    });
    const statuses = r.attempts.map((a) =>
      a.outcome.kind === "response" ? a.outcome.status : a.outcome.kind,
    );
    const store = new ReportStore(db);
    const fence = keyStoreOf(store).get(ANONYMOUS_CALLER, r.attempts[0]!.key!)?.fence;
    store.close();
    return {
      statuses,
      last: r.final,
      events,
      fence,
      reports: countReportsIn(db),
      generation: tracker.generation,
    };
  } finally {
    await tracker.close();
  }
}

test("fenced, killed (SIGKILL) between the claim and the commit: 409 while the lease lives, then a take-over; one report", async () => {
  const r = await killedFenced("crash-after-claim");
  assert.deepEqual(r.statuses, ["error", 409, 201]);
  assert.equal(r.generation, 2);
  assert.ok(r.events.some((e) => e.text.includes('killed (SIGKILL) at "after-claim"')));
  assert.ok(
    r.events.some((e) => e.text.includes("TAKE OVER") && e.text.includes("fence 2 (was 1)")),
  );
  assert.equal(r.fence, 2, "the take-over in the new process drew the next token from the file");
  assert.equal(r.reports, 1);
});

test("fenced, killed after the commit, before the answer: the retry is a replay; one report", async () => {
  const r = await killedFenced("crash-between-commits");
  assert.deepEqual(r.statuses, ["error", 201]);
  assert.equal(r.last.kind === "response" && r.last.headers["idempotent-replayed"], "true");
  assert.equal(r.fence, 1);
  assert.equal(r.reports, 1);
});
