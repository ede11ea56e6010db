// Tests for exercise 10a. Run them with `npm run check 10a`. Your claim runs against a real
// PostgreSQL server, started for this test file (or the one DATABASE_URL names), on the tracker's own
// tables (lib/tracker/postgres-store.ts creates them), in a fresh schema for each test.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import pg from "pg";
import { t } from "../lib/core/i18n.ts";
import type { Claim } from "../lib/postgres/key-claim.ts";
import { createSchema, type Schema } from "../lib/postgres/schema.ts";
import { type PostgresServer, startPostgres } from "../lib/postgres/server.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";
import { PostgresStore } from "../lib/tracker/postgres-store.ts";

const { claimKey } =
  await loadExercise<typeof import("./10a-postgres-claim.ts")>("10a-postgres-claim");

let server: PostgresServer;
let schema: Schema | undefined;
const clients: pg.Client[] = [];
before(async () => {
  // The project's own test run shares one server among its files; run alone, this file starts one.
  server = await startPostgres({
    databaseUrl: process.env.WORKBOOK_TEST_POSTGRES_URL ?? process.env.DATABASE_URL ?? "",
  });
});
after(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => {})));
  await schema?.drop().catch(() => {});
  await server?.stop();
});
// A fresh schema (and so a fresh table and sequence) for each test.
beforeEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.end().catch(() => {})));
  await schema?.drop();
  schema = await createSchema(server.url, "exercise10a");
  const store = await PostgresStore.open(schema.url, { connections: 1 });
  await store.close();
});

async function connect(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: schema!.url });
  await c.connect();
  clients.push(c);
  return c;
}

const claim = (over: Partial<Claim> = {}): Claim => ({
  caller: "agent",
  key: "k-1",
  fingerprint: "fp-1",
  now: 1_000,
  leaseMs: 300,
  ttlMs: 86_400_000,
  ...over,
});

async function rowsOf(db: pg.Client) {
  const { rows } = await db.query(
    "SELECT caller, key, fingerprint, state, fence::int, lease_until::int, expires_at::bigint::text AS expires_at FROM idempotency_keys ORDER BY fence",
  );
  return rows as {
    caller: string;
    key: string;
    fingerprint: string;
    state: string;
    fence: number;
    lease_until: number;
    expires_at: string;
  }[];
}

test(
  t(
    "a new key is claimed: in_progress, the first fence as a number, the lease and TTL from the claim's clock",
  ),
  async () => {
    const db = await connect();
    const fence = await claimKey(db, claim());
    assert.equal(
      fence,
      1,
      t(
        "claimKey must return the first value of idempotency_fence, 1, as a JavaScript number (pg hands a bigint back as a string)",
      ),
    );
    assert.deepEqual(
      await rowsOf(db),
      [
        {
          caller: "agent",
          key: "k-1",
          fingerprint: "fp-1",
          state: "in_progress",
          fence: 1,
          lease_until: 1_300,
          expires_at: String(1_000 + 86_400_000),
        },
      ],
      t(
        "the claimed row: in_progress, its token, lease_until = now + leaseMs and expires_at = now + ttlMs",
      ),
    );
  },
);

test(
  t("a key that is there already: no token, and the row is left exactly as it was"),
  async () => {
    const db = await connect();
    assert.equal(
      await claimKey(db, claim()),
      1,
      t("the first claim of a new key gets the token 1"),
    );
    await db.query(
      "UPDATE idempotency_keys SET state = 'completed', status = 201, body = '{\"id\":1}'",
    );
    const before = await rowsOf(db);
    assert.equal(
      await claimKey(db, claim({ now: 5_000, fingerprint: "fp-other" })),
      undefined,
      t(
        "a second claim of a key that is there must return undefined: the key is taken, and its caller answers 409 or replays",
      ),
    );
    assert.deepEqual(
      await rowsOf(db),
      before,
      t("the stored claim must not be overwritten: the conflict must do nothing, not update"),
    );
  },
);

test(
  t(
    "the key is scoped to its caller: another caller's same key is a claim of its own, with a larger fence",
  ),
  async () => {
    const db = await connect();
    const a = await claimKey(db, claim({ caller: "alice" }));
    const b = await claimKey(db, claim({ caller: "bob" }));
    assert.ok(
      typeof a === "number" && typeof b === "number" && b > a,
      t(
        "alice's and bob's claims of one key gave {a} and {b}: each caller's key is its own claim, and tokens only grow",
        {
          a: String(a),
          b: String(b),
        },
      ),
    );
    assert.equal(
      (await rowsOf(db)).length,
      2,
      t("two callers, two rows: the conflict is on (caller, key), not on the key alone"),
    );
  },
);

test(
  t(
    "two instances at the same moment: the second claim waits for the first's transaction, then gets undefined, not an error",
  ),
  async () => {
    const [one, two, watch] = [await connect(), await connect(), await connect()];
    const pid = async (c: pg.Client) =>
      (await c.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    const [p1, p2] = [await pid(one), await pid(two)];
    // Instance 1's claim is in but not committed when instance 2's goes out.
    await one.query("BEGIN");
    assert.equal(
      await claimKey(one, claim()),
      1,
      t("instance 1's claim of a new key gets the token 1"),
    );
    const second = claimKey(two, claim());
    // The gate: instance 2 is waiting for instance 1's transaction (the unique index makes it wait).
    for (let i = 0; ; i++) {
      const { rows } = await watch.query<{ blocked: boolean }>(
        "SELECT $2::int = ANY (pg_blocking_pids($1)) AS blocked",
        [p2, p1],
      );
      if (rows[0]!.blocked) break;
      if (i > 5_000) {
        await one.query("ROLLBACK");
        await second.catch(() => {});
        assert.fail(
          t(
            "the second claim never waited for the first: is it one INSERT on idempotency_keys, with no SELECT before it?",
          ),
        );
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    await one.query("COMMIT");
    assert.equal(
      await second,
      undefined,
      t(
        "the loser must return no token (a check-then-insert or a plain INSERT fails or claims twice here)",
      ),
    );
    assert.equal(
      (await rowsOf(watch)).length,
      1,
      t("one key, one claim: the database must hold one row"),
    );
  },
);

test(t("many instances at once, one key: exactly one token"), async () => {
  const dbs = await Promise.all(Array.from({ length: 8 }, () => connect()));
  const tokens = await Promise.all(dbs.map((db) => claimKey(db, claim())));
  assert.equal(
    tokens.filter((token) => token !== undefined).length,
    1,
    t("8 instances claimed one key at once and got the tokens {tokens}: exactly one may win", {
      tokens: JSON.stringify(tokens),
    }),
  );
  assert.equal(
    (await rowsOf(dbs[0]!)).length,
    1,
    t("one key, one claim: the database must hold one row"),
  );
});
