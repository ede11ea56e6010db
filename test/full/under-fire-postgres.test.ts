// The service under fire, round 3, on PostgreSQL (the SQLite share is test/under-fire.test.ts): the
// server ends the tracker's connections in the middle of a storm, and the tracker keeps answering.
import assert from "node:assert/strict";
import { test } from "node:test";
import pg from "pg";
import { httpCall, type Outcome } from "../../lib/client/client.ts";
import { createSchema } from "../../lib/postgres/schema.ts";
import { startChildTracker } from "../../lib/tracker/child.ts";
import { testServerUrl } from "./postgres-helpers.ts";

type Response = Extract<Outcome, { kind: "response" }>;

/** A client of the test's own, on the test run's server. */
async function client(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on("error", () => {});
  await c.connect();
  return c;
}

/** Ends every backend of the tracker (its connections carry this application_name); how many. */
async function terminate(admin: pg.Client, app: string): Promise<number> {
  const r = await admin.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
    [app],
  );
  return r.rowCount ?? 0;
}

test(
  "PostgreSQL ends the tracker's connections mid-storm, in transactions and out: every request gets 201, 409 or a 503 with Retry-After, the port stays open, and the retries file each report once",
  { timeout: 240_000 },
  async (t) => {
    const server = await testServerUrl();
    const schema = await createSchema(server, "under_fire");
    const app = `storm_${process.pid}`;
    const url = new URL(schema.url);
    url.searchParams.set("application_name", app);
    const admin = await client(server);
    // The child's clock is the test's: a lease runs out when the test moves it, not by chance.
    let clock = 0;
    const LEASE_MS = 1_000;
    const tracker = await startChildTracker({
      variant: "fenced",
      postgres: url.toString(),
      leaseMs: LEASE_MS,
      clockMs: clock,
      startTimeoutMs: 60_000,
    });
    const KEYS = 120;
    const send = (i: number): Promise<Outcome> =>
      httpCall({
        method: "POST",
        url: `${tracker.url}/reports`,
        body: { title: `storm report ${i}` },
        headers: { "idempotency-key": `storm-${i}` },
        timeoutMs: 120_000,
      });
    const locker = await client(schema.url);
    try {
      // 1. Every completing transaction waits for the test's lock on reports, holding its pool
      //    connection checked out, BEGIN sent, the INSERT in flight.
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE reports IN SHARE MODE");
      let answered = 0;
      let midStorm: Promise<number> | undefined;
      const outcomes = Array.from({ length: KEYS }, (_, i) =>
        send(i).then((o) => {
          // 3. A second blow, at whatever each connection is doing by then: after the 40th answer.
          if (++answered === 40) midStorm = terminate(admin, app);
          return o;
        }),
      );
      // 2. Once the pool's ten connections all wait on the lock inside their transactions, the
      //    server ends them all; then the lock goes.
      for (;;) {
        const waiting = await admin.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND state = 'active'",
          [app],
        );
        if (waiting.rows[0].n >= 10) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.ok((await terminate(admin, app)) >= 10);
      await locker.query("ROLLBACK");

      const first = await Promise.all(outcomes);
      await midStorm;
      const notAnswers = first.filter((o) => o.kind !== "response");
      assert.deepEqual(notAnswers, [], "every request got an HTTP answer: the port never closed");
      const answers = first as Response[];
      const statuses = new Map<number, number>();
      for (const r of answers) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      assert.ok(
        answers.every((r) => [201, 409, 503].includes(r.status)),
        `statuses: ${JSON.stringify([...statuses])}`,
      );
      t.diagnostic(`first round: ${JSON.stringify(Object.fromEntries(statuses))}`);
      assert.ok((statuses.get(503) ?? 0) >= 10, "the ten transactions ended under them: 503");
      for (const r of answers.filter((a) => a.status === 503)) {
        assert.equal(r.headers["content-type"], "application/problem+json");
        assert.match(String(r.headers["retry-after"]), /^[1-9][0-9]*$/);
      }

      // 4. The client's retries, same key each: a claim left behind by a lost transaction is taken
      //    over once its lease has run out (the test moves the clock past it between rounds).
      let pending = answers.flatMap((r, i) => (r.status === 201 ? [] : [i]));
      for (let round = 1; pending.length > 0; round++) {
        assert.ok(round <= 5, `still not filed after 5 rounds: ${pending.join(", ")}`);
        clock += LEASE_MS + 1;
        await tracker.setClock(clock);
        const again = await Promise.all(pending.map(send));
        assert.deepEqual(
          again.filter((o) => o.kind !== "response"),
          [],
          "every retry got an HTTP answer",
        );
        pending = pending.filter((_, j) => (again[j] as Response).status !== 201);
      }
      const count = await admin.query(`SELECT count(*)::int AS n FROM ${schema.name}.reports`);
      assert.equal(count.rows[0].n, KEYS, "one report per key: none lost, none twice");
      const titles = await admin.query(
        `SELECT count(DISTINCT title)::int AS n FROM ${schema.name}.reports`,
      );
      assert.equal(titles.rows[0].n, KEYS);
    } finally {
      await locker.end().catch(() => {});
      await tracker.close();
      await admin.end();
      await schema.drop();
    }
  },
);
