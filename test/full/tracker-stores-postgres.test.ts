// The keyed tracker's behaviour suite (test/tracker-store-cases.ts) on a real PostgreSQL: one schema
// for this file, emptied before each test. Then what only PostgreSQL can show here: two tracker
// instances on one schema.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { startTracker, type TrackerOptions } from "../../lib/tracker/service.ts";
import { post } from "../http-helpers.ts";
import {
  type AnyTracker,
  keyed,
  LIMIT,
  replayed,
  report,
  reports,
  storeSuite,
} from "../tracker-store-cases.ts";
import { emptyTrackerTables, fileSchema } from "./postgres-helpers.ts";

/** A tracker on this file's PostgreSQL schema, emptied first. */
async function start(options: Omit<TrackerOptions, "postgres" | "db">): Promise<AnyTracker> {
  const schema = await fileSchema("tracker_stores");
  await emptyTrackerTables(schema.url);
  return startTracker({ ...options, postgres: schema.url });
}

storeSuite("postgres", start);

describe("two tracker instances on one PostgreSQL schema", () => {
  test(
    "a key completed on one instance replays from the other, which did none of the work",
    LIMIT,
    async () => {
      const a = await start({ variant: "fenced" });
      const schema = await fileSchema("tracker_stores");
      const b = await startTracker({ variant: "fenced", postgres: schema.url });
      try {
        const first = await post(a, report, keyed());
        const again = await post(b, report, keyed());
        assert.deepEqual([again.status, replayed(again)], [201, true]);
        assert.deepEqual(again.body, first.body);
        assert.equal(await reports(b), 1);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    },
  );

  for (const variant of ["keyed", "fenced"] as const) {
    test(
      `${variant}: twenty requests with one key at once, ten on each instance: one claim wins, one report`,
      LIMIT,
      async () => {
        const a = await start({ variant });
        const b = await startTracker({
          variant,
          postgres: (await fileSchema("tracker_stores")).url,
        });
        try {
          const answers = await Promise.all(
            Array.from({ length: 20 }, (_, i) => post(i % 2 === 0 ? a : b, report, keyed())),
          );
          const statuses = answers.map((r) => r.status);
          assert.ok(
            statuses.every((s) => s === 201 || s === 409),
            statuses.join(","),
          );
          const fresh = answers.filter((r) => r.status === 201 && !replayed(r));
          assert.equal(fresh.length, 1, "exactly one request did the work");
          assert.equal(await reports(a), 1);
        } finally {
          await Promise.all([a.close(), b.close()]);
        }
      },
    );
  }
});
