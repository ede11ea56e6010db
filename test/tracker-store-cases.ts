// One behaviour suite, two stores: the keyed tracker's rules over real HTTP (replay, 409 with
// Retry-After, 422 before 409, 400 for bad keys, caller scoping, the TTL on an injected clock, the
// fence). test/tracker-stores.test.ts runs it on SQLite (npm test); test/full/tracker-stores-postgres.test.ts
// runs it on a real PostgreSQL (one schema for that file, emptied before each test), then what only
// PostgreSQL can show: two tracker instances on one schema.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Faults } from "../lib/tracker/faults.ts";
import { keyStoreOf } from "../lib/tracker/key-store.ts";
import type { PostgresStore } from "../lib/tracker/postgres-store.ts";
import type { Tracker, TrackerOptions } from "../lib/tracker/service.ts";
import type { ReportStore } from "../lib/tracker/store.ts";
import { post, type Response } from "./http-helpers.ts";

/** No test here waits forever: one that hangs fails after this long, saying so. */
export const LIMIT = { timeout: 30_000 };

export const report = { title: "Login button does nothing", module: "auth" };
const KEY = "8e03978e-40d5-43e8-bc93-6894a57f9324";
export const keyed = (key = KEY, caller?: string): Record<string, string> => ({
  "idempotency-key": key,
  ...(caller ? { authorization: `Bearer ${caller}` } : {}),
});
const idOf = (r: Response): number => (r.body as { id: number }).id;
export const replayed = (r: Response): boolean => r.headers["idempotent-replayed"] === "true";
export const reports = async (t: AnyTracker): Promise<number> => await t.store.countReports();
const keys = async (t: AnyTracker): Promise<number> =>
  "countKeys" in t.store ? await t.store.countKeys() : keyStoreOf(t.store).count();

/** Starts a tracker on the suite's store: SQLite in memory, or a PostgreSQL schema emptied first. */
export type StartTracker = (
  options: Omit<TrackerOptions, "postgres" | "db">,
) => Promise<AnyTracker>;

export type AnyTracker = Tracker<ReportStore> | Tracker<PostgresStore>;
export type Store = "sqlite" | "postgres";

/** The suite on one store, its trackers started by `start`. */
export function storeSuite(store: Store, start: StartTracker): void {
  /** Runs `fn` on a tracker of this store, closed after. */
  const on = async (
    options: Omit<TrackerOptions, "postgres" | "db">,
    fn: (t: AnyTracker) => Promise<void>,
  ): Promise<void> => {
    const t = await start(options);
    try {
      await fn(t);
    } finally {
      await t.close();
    }
  };
  describe(`on ${store}`, () => {
    test(
      "naive: the retry after a lost response files the report again (the baseline)",
      LIMIT,
      async () => {
        const faults = new Faults({ 1: "lose-response" });
        await on({ variant: "naive", faults }, async (t) => {
          const lost = post(t, report).catch(() => undefined);
          await faults.reached(1, "lost");
          assert.equal((await post(t, report)).status, 201);
          void lost;
          assert.equal(await reports(t), 2);
        });
      },
    );

    test(
      "key-after: a recorded key replays, another request under it is 422; one key twice at once files twice (red)",
      LIMIT,
      async () => {
        // Request 4 (the first with key ka-2) is held in its work.
        const faults = new Faults({ 4: "slow" });
        await on({ variant: "key-after", faults }, async (t) => {
          const first = await post(t, report, keyed("ka-1"));
          const again = await post(t, report, keyed("ka-1"));
          assert.deepEqual([again.status, replayed(again), again.body], [201, true, first.body]);
          assert.equal((await post(t, { title: "other" }, keyed("ka-1"))).status, 422);
          // Nothing marks the key taken while the work runs: both look, both find nothing, both insert.
          const slow = post(t, report, keyed("ka-2"));
          await faults.reached(4, "held");
          const fast = await post(t, report, keyed("ka-2"));
          faults.release(4);
          assert.deepEqual([(await slow).status, fast.status], [201, 201]);
          assert.equal(await reports(t), 3);
        });
      },
    );

    for (const variant of ["keyed", "fenced"] as const) {
      test(`${variant}: the same key replays status, body and Location; one report`, LIMIT, () =>
        on({ variant }, async (t) => {
          const first = await post(t, report, keyed());
          const again = await post(t, report, keyed(`"${KEY}"`));
          assert.deepEqual([first.status, replayed(first)], [201, false]);
          assert.deepEqual([again.status, replayed(again)], [201, true]);
          assert.equal(again.headers.location, first.headers.location);
          assert.deepEqual(again.body, first.body);
          assert.equal(await reports(t), 1);
        }),
      );

      test(
        `${variant}: 422 for another request under the key, checked before 409; then 409 with Retry-After`,
        LIMIT,
        async () => {
          let clock = 1_000_000;
          const faults = new Faults({ 1: "slow" });
          await on({ variant, faults, leaseMs: 2_500, now: () => clock }, async (t) => {
            const first = post(t, report, keyed());
            await faults.reached(1, "held");
            clock += 1_000;
            assert.equal((await post(t, { title: "Another bug" }, keyed())).status, 422);
            const busy = await post(t, report, keyed());
            assert.equal(busy.status, 409);
            assert.equal(busy.headers["retry-after-ms"], "1500");
            assert.equal(busy.headers["retry-after"], "2");
            assert.equal(await reports(t), 0);
            faults.release(1);
            assert.equal((await first).status, 201);
            assert.equal(replayed(await post(t, report, keyed())), true);
            assert.equal(
              (await post(t, { title: "Another bug" }, keyed())).status,
              422,
              "after completion too",
            );
            assert.equal(await reports(t), 1);
          });
        },
      );

      test(
        `${variant}: a missing, empty, repeated or too long key is 400, and nothing is stored`,
        LIMIT,
        () =>
          on({ variant }, async (t) => {
            for (const headers of [
              {},
              { "idempotency-key": "" },
              { "idempotency-key": ["a", "b"] },
              { "idempotency-key": "k".repeat(300) },
            ] as Record<string, string | string[]>[]) {
              assert.equal(
                (await post(t, report, headers)).status,
                400,
                JSON.stringify(headers).slice(0, 60),
              );
            }
            assert.equal(await reports(t), 0);
          }),
      );

      test(
        `${variant}: keys are scoped to the caller; a held key does not hold another caller's`,
        LIMIT,
        async () => {
          const faults = new Faults({ 1: "slow" });
          await on({ variant, faults, now: () => 0 }, async (t) => {
            const alice = post(t, report, keyed(KEY, "alice"));
            await faults.reached(1, "held");
            assert.equal((await post(t, report, keyed(KEY, "alice"))).status, 409);
            const bob = await post(t, report, keyed(KEY, "bob"));
            assert.deepEqual([bob.status, replayed(bob)], [201, false]);
            faults.release(1);
            const a = await alice;
            assert.notEqual(idOf(a), idOf(bob));
            assert.deepEqual((await post(t, report, keyed(KEY, "alice"))).body, a.body);
            assert.deepEqual((await post(t, report, keyed(KEY, "bob"))).body, bob.body);
            assert.equal(await reports(t), 2);
          });
        },
      );

      test(
        `${variant}: the TTL on the injected clock: a replay just before it, a new request from it on, then swept`,
        LIMIT,
        async () => {
          let clock = 0;
          await on({ variant, ttlMs: 10_000, now: () => clock, sweepEveryMs: 0 }, async (t) => {
            assert.equal((await post(t, report, keyed())).status, 201);
            clock = 9_999;
            assert.equal(replayed(await post(t, report, keyed())), true);
            assert.equal((await post(t, { title: "other" }, keyed())).status, 422);
            clock = 10_000;
            const fresh = await post(t, { title: "other" }, keyed());
            assert.deepEqual(
              [fresh.status, replayed(fresh)],
              [201, false],
              "past the TTL the key is new",
            );
            assert.equal(await reports(t), 2);
            clock = 30_000;
            assert.deepEqual(await t.sweepExpiredKeys(), { deleted: 1, batches: 1 });
          });
        },
      );

      test(
        `${variant}: a holder paused past its lease, its key taken over: ${variant === "keyed" ? "2 reports (red)" : "fenced out, 1 report"}`,
        LIMIT,
        async () => {
          let clock = 0;
          const faults = new Faults({ 1: "pause-past-lease" });
          await on({ variant, faults, leaseMs: 100, now: () => clock }, async (t) => {
            const holder = post(t, report, keyed());
            await faults.reached(1, "held");
            clock = 100;
            const winner = await post(t, report, keyed());
            await faults.reached(1, "taken-over");
            assert.deepEqual(
              [winner.status, replayed(winner)],
              [201, false],
              "the take-over did the work",
            );
            const late = await holder;
            assert.equal(late.status, 201);
            if (variant === "keyed") {
              assert.notEqual(idOf(late), idOf(winner));
              assert.equal(await reports(t), 2);
            } else {
              assert.equal(
                replayed(late),
                true,
                "0 rows changed: rolled back, the winner's answer replayed",
              );
              assert.deepEqual(late.body, winner.body);
              assert.equal(faults.hasReached(1, "committed"), false);
              assert.equal(await reports(t), 1);
            }
          });
        },
      );
    }

    for (const variant of ["naive", "key-after", "keyed", "fenced"] as const) {
      test(
        `${variant}: a NUL in a text field is 400 on this store as on the other, and 400 again on the retry with the same key; nothing stored`,
        LIMIT,
        () =>
          on({ variant }, async (t) => {
            for (const [i, body] of [
              { title: "a\u0000b" },
              { title: "ok", body: "\u0000" },
              { title: "ok", module: "auth\u0000" },
              { title: "ok", run: "\u0000run" },
            ].entries()) {
              for (const attempt of [1, 2, 3]) {
                const r = await post(t, body, keyed(`nul-${i}`));
                assert.equal(r.status, 400, `${JSON.stringify(body)}, attempt ${attempt}`);
                assert.match((r.body as { detail: string }).detail, /NUL/);
              }
              const put = await fetch(`${t.url}/reports/7`, {
                method: "PUT",
                headers: { "content-type": "application/json" },
                body: JSON.stringify(body),
              });
              assert.equal(put.status, 400, `PUT ${JSON.stringify(body)}`);
            }
            assert.equal(await reports(t), 0);
            assert.equal(await keys(t), 0, "no key was claimed");
            // The NUL's neighbours are fine: a control character, an escaped one, a U+FFFD.
            assert.equal((await post(t, { title: "a\u0001b\\u0000\ufffd" }, keyed())).status, 201);
          }),
      );
    }

    test(
      "PUT of a large id, then POST: the new id goes on above it, and both read back",
      LIMIT,
      () =>
        on({ variant: "naive" }, async (t) => {
          const put = await fetch(`${t.url}/reports/900`, {
            method: "PUT",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ title: "B" }),
          });
          assert.equal(put.status, 201);
          const next = await post(t, report);
          assert.ok(idOf(next) > 900, `got ${idOf(next)}`);
          assert.equal((await fetch(`${t.url}/reports/900`)).status, 200);
          assert.equal((await fetch(`${t.url}/reports/${idOf(next)}`)).status, 200);
          assert.equal(await reports(t), 2);
        }),
    );
  });
}
