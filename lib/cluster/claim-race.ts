/**
 * Two instances claim one key at the same moment, on one PostgreSQL: lesson 10's section 3, at the
 * level where it is decided, two connections (one per instance) and the statements each sends. A
 * lesson holds both at the claim and lets them go in a chosen order, so the interleaving is the
 * worst one, every run, not the one a scheduler happened to pick.
 *
 * Two designs of the claim:
 * - `constraint`: the key table has PRIMARY KEY (caller, key), and the claim is one statement,
 *   INSERT … ON CONFLICT (caller, key) DO NOTHING RETURNING fence. Instance 1's INSERT is in, not yet
 *   committed; instance 2's INSERT of the same key waits on it (the unique index makes it "wait to
 *   see if that transaction commits": PostgreSQL documentation, "Index Uniqueness Checks"). Once
 *   instance 1 commits, at READ COMMITTED instance 2's INSERT inserts nothing and returns no row
 *   (13.2.1: skipping it "is only the case in Read Committed mode"): instance 2 reads the row, in
 *   progress, and answers 409. At REPEATABLE READ or SERIALIZABLE the committed row is newer than
 *   instance 2's snapshot, so its INSERT fails with SQLSTATE 40001, "could not serialize access due
 *   to concurrent update" (PostgreSQL's source, src/backend/executor/nodeModifyTable.c,
 *   ExecCheckTupleVisible); instance 2 rolls back and runs its whole transaction again, which then
 *   finds the row and answers 409.
 * - `check-then-insert`: no constraint; each instance SELECTs the key, finds nothing, INSERTs its
 *   claim. Both SELECTs run before either INSERT: both find nothing, both claim, both file.
 *
 * The isolation level is whatever the server runs (READ COMMITTED is PostgreSQL's default), or the
 * one asked for: under SERIALIZABLE, check-then-insert is caught as a serialization failure
 * (SQLSTATE 40001) on one side, which must then run its whole transaction again; the constraint's
 * loser, as above, gets 40001 too, and its rerun answers 409.
 */
import pg from "pg";
import { t } from "../core/i18n.ts";
import { CLAIM_SQL, type Claim, createKeyTable, readKey } from "../postgres/claim.ts";
import { serverMessage } from "../postgres/messages.ts";
import { decideKey, type KeyRow } from "../protocol/key-decision.ts";

export type ClaimDesign = "constraint" | "check-then-insert";

export interface RaceOptions {
  /** A postgres:// URL whose schema is this race's own (lib/postgres/schema.ts). */
  url: string;
  design: ClaimDesign;
  /** BEGIN ISOLATION LEVEL …; default: the server's default (BEGIN alone). */
  isolation?: "SERIALIZABLE";
  /** Tells the trace what instance 1 or 2 did. */
  say: (instance: 1 | 2, text: string, mark?: "ok" | "bad" | "warn") => void;
  /** The clock, ms (the race's own; leases are counted on it). */
  now?: number;
  leaseMs?: number;
}

export interface RaceResult {
  /** The isolation level the server reported for each connection's transaction (SHOW transaction_isolation). */
  isolation: [string, string];
  /** What each instance answered: 201, 409, or "40001" for a serialization failure. */
  answers: [string, string];
  /** The constraint design only: what instance 2 answered when it ran its transaction again after a 40001. */
  rerun?: string;
  /** check-then-insert only: the rows each instance's SELECT of the key found, instance 1's first. */
  found: number[];
  reports: number;
  keyRows: number;
}

const KEY = "3f1c9a7e-race";
const CALLER = "agent";
const FINGERPRINT = "POST /reports sha256:race";

/** Runs the race once, in a fresh schema, and counts what is left in the database. */
export async function claimRace(options: RaceOptions): Promise<RaceResult> {
  const now = options.now ?? 1_000;
  const leaseMs = options.leaseMs ?? 300;
  const claim: Claim = {
    caller: CALLER,
    key: KEY,
    fingerprint: FINGERPRINT,
    now,
    leaseMs,
    ttlMs: 86_400_000,
  };
  const setup = new pg.Client({ connectionString: options.url });
  const a = new pg.Client({ connectionString: options.url });
  const b = new pg.Client({ connectionString: options.url });
  await Promise.all([setup.connect(), a.connect(), b.connect()]);
  try {
    await createKeyTable(setup, { constraint: options.design === "constraint" });
    await setup.query(
      "CREATE TABLE reports (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, title text NOT NULL)",
    );
    const begin = options.isolation ? `BEGIN ISOLATION LEVEL ${options.isolation}` : "BEGIN";
    await a.query(begin);
    await b.query(begin);
    const isolation = (await Promise.all([a, b].map(readIsolation))) as [string, string];
    const [pa, pb] = await Promise.all([backendPid(a), backendPid(b)]);
    const { answers, rerun, found } =
      options.design === "constraint"
        ? { ...(await withConstraint(a, b, pb, pa, claim, begin, options.say)), found: [] }
        : { ...(await checkThenInsert(a, b, claim, options.say)), rerun: undefined };
    const reports = Number(
      (await setup.query<{ n: string }>("SELECT count(*) AS n FROM reports")).rows[0]!.n,
    );
    const keyRows = Number(
      (await setup.query<{ n: string }>("SELECT count(*) AS n FROM idempotency_keys")).rows[0]!.n,
    );
    return {
      isolation,
      answers,
      ...(rerun !== undefined ? { rerun } : {}),
      found,
      reports,
      keyRows,
    };
  } finally {
    await Promise.all([a.end(), b.end(), setup.end()].map((p) => p.catch(() => {})));
  }
}

async function readIsolation(db: pg.Client): Promise<string> {
  return String(
    (await db.query<{ transaction_isolation: string }>("SHOW transaction_isolation")).rows[0]!
      .transaction_isolation,
  );
}

async function backendPid(db: pg.Client): Promise<number> {
  return (await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
}

/** Resolves once backend `waiter` is waiting for a lock held by backend `holder` (pg_blocking_pids). */
async function blockedBy(watch: pg.Client, waiter: number, holder: number): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    const { rows } = await watch.query<{ blocked: boolean }>(
      "SELECT $2::int = ANY (pg_blocking_pids($1)) AS blocked",
      [waiter, holder],
    );
    if (rows[0]!.blocked) return;
    if (Date.now() > until)
      throw new Error(t("backend {waiter} never waited for backend {holder}", { waiter, holder }));
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The work after a successful claim: the report and the completed key, then COMMIT. */
async function fileAndComplete(db: pg.Client, claim: Claim): Promise<number> {
  const id = Number(
    (
      await db.query<{ id: string }>(
        "INSERT INTO reports (title) VALUES ('Login button does nothing') RETURNING id",
      )
    ).rows[0]!.id,
  );
  await db.query("UPDATE idempotency_keys SET state = 'completed' WHERE caller = $1 AND key = $2", [
    claim.caller,
    claim.key,
  ]);
  await db.query("COMMIT");
  return id;
}

async function withConstraint(
  a: pg.Client,
  b: pg.Client,
  pb: number,
  pa: number,
  claim: Claim,
  begin: string,
  say: RaceOptions["say"],
): Promise<{ answers: [string, string]; rerun: string | undefined }> {
  const args = [
    claim.caller,
    claim.key,
    claim.fingerprint,
    claim.now + claim.leaseMs,
    claim.now + claim.ttlMs,
  ];
  const first = await a.query<{ fence: string }>(CLAIM_SQL, args);
  say(
    1,
    t(
      "INSERT … ON CONFLICT (caller, key) DO NOTHING RETURNING fence: 1 row, fence {fence} (not committed yet)",
      { fence: first.rows[0]!.fence },
    ),
  );
  // Instance 2's claim goes out now; the unique index makes it wait for instance 1's transaction.
  const second = b.query<{ fence: string }>(CLAIM_SQL, args).then(
    (r) => ({ ok: true as const, rowCount: r.rowCount }),
    (err: unknown) => ({ ok: false as const, err: err as Error & { code?: string } }),
  );
  await blockedBy(a, pb, pa).catch(async (err: unknown) => {
    // Instance 1 still holds its uncommitted row: let it go first, or the second claim never ends.
    await a.query("ROLLBACK").catch(() => undefined);
    await second;
    throw err;
  });
  say(
    2,
    t(
      "INSERT … ON CONFLICT (caller, key) DO NOTHING: waits, the unique index holds instance 1's uncommitted key",
    ),
    "warn",
  );
  await a.query("COMMIT");
  say(1, t("COMMIT: the claim is in; instance 1 does the work"));
  const lost = await second;
  let answer2: string;
  let rerun: string | undefined;
  if (lost.ok) {
    say(
      2,
      t("… instance 1 committed: the INSERT returns {rows} rows, nothing claimed", {
        rows: lost.rowCount ?? 0,
      }),
    );
    answer2 = await readAndDecide(b, claim, say);
  } else {
    // At REPEATABLE READ or SERIALIZABLE: the row instance 1 committed is newer than this snapshot.
    answer2 = lost.err.code ?? "?";
    await b.query("ROLLBACK").catch(() => {});
    say(
      2,
      t(
        "… instance 1 committed: ERROR {code}: {message} · ROLLBACK, nothing stored; the client runs the whole transaction again",
        { code: answer2, message: serverMessage(lost.err.message) },
      ),
      "warn",
    );
    await b.query(begin);
    const again = await b.query(CLAIM_SQL, args);
    say(
      2,
      t(
        "rerun: {begin} · INSERT … ON CONFLICT (caller, key) DO NOTHING: {rows} rows, nothing claimed",
        {
          begin,
          rows: again.rowCount ?? 0,
        },
      ),
    );
    rerun = await readAndDecide(b, claim, say);
  }
  // Instance 1's second transaction: the report and the completed key.
  await a.query("BEGIN");
  const id = await fileAndComplete(a, claim);
  say(1, t("INSERT report {id} + key completed · COMMIT → 201", { id }), "ok");
  return { answers: ["201", answer2], rerun };
}

/** Instance 2 after a claim that inserted nothing: reads the key, decides as the tracker does, commits. */
async function readAndDecide(b: pg.Client, claim: Claim, say: RaceOptions["say"]): Promise<string> {
  const row: KeyRow | undefined = await readKey(b, claim.caller, claim.key);
  const decision = decideKey(row, claim.fingerprint, claim.now);
  await b.query("COMMIT");
  const answer = decision.kind === "in-progress" ? "409" : decision.kind;
  say(
    2,
    t("SELECT the key: in_progress, fence {fence}, lease ends in {ms} ms → {answer}", {
      fence: row?.fence ?? "?",
      ms: decision.kind === "in-progress" ? decision.retryAfterMs : "?",
      answer,
    }),
    "warn",
  );
  return answer;
}

async function checkThenInsert(
  a: pg.Client,
  b: pg.Client,
  claim: Claim,
  say: RaceOptions["say"],
): Promise<{ answers: [string, string]; found: number[] }> {
  const select = "SELECT 1 FROM idempotency_keys WHERE caller = $1 AND key = $2";
  const insert = `INSERT INTO idempotency_keys (caller, key, fingerprint, state, fence, lease_until, expires_at)
    VALUES ($1, $2, $3, 'in_progress', nextval('idempotency_fence'), $4, $5) RETURNING fence`;
  const args = [
    claim.caller,
    claim.key,
    claim.fingerprint,
    claim.now + claim.leaseMs,
    claim.now + claim.ttlMs,
  ];
  const answers: string[] = [];
  const found: number[] = [];
  // Both look before either writes: the gate is simply the order of the awaits.
  for (const [n, db] of [
    [1, a],
    [2, b],
  ] as const) {
    const rows = (await db.query(select, [claim.caller, claim.key])).rowCount ?? 0;
    found.push(rows);
    say(n, t("SELECT the key: {rows} rows, the key looks free", { rows }));
  }
  for (const [n, db] of [
    [1, a],
    [2, b],
  ] as const) {
    try {
      const fence = (await db.query<{ fence: string }>(insert, args)).rows[0]!.fence;
      const id = await fileAndComplete(db, claim);
      say(
        n,
        t("INSERT the key (fence {fence}), INSERT report {id}, key completed · COMMIT → 201", {
          fence,
          id,
        }),
        n === 1 ? "ok" : "bad",
      );
      answers.push("201");
    } catch (err) {
      const code = (err as { code?: string }).code ?? "?";
      await db.query("ROLLBACK").catch(() => {});
      say(
        n,
        t(
          "ERROR {code}: {message} · ROLLBACK, nothing stored; the client must run the whole transaction again",
          { code, message: serverMessage((err as Error).message) },
        ),
        "warn",
      );
      answers.push(code);
    }
  }
  return { answers: [answers[0]!, answers[1]!], found };
}
