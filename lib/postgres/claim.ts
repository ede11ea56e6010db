/**
 * The claim of an idempotency key on PostgreSQL, in one statement: the row goes in as in_progress
 * with the next fencing token, unless a row for (caller, key) is there already, in which case
 * nothing changes and no row comes back.
 *
 *   INSERT INTO idempotency_keys (caller, key, fingerprint, state, fence, lease_until, expires_at)
 *   VALUES ($1, $2, $3, 'in_progress', nextval('idempotency_fence'), $4, $5)
 *   ON CONFLICT (caller, key) DO NOTHING
 *   RETURNING fence
 *
 * What makes it safe between instances is the primary key on (caller, key): of two such statements
 * for one key, in two transactions, the second waits until the first commits or rolls back, and the
 * index lets only one row in, at every isolation level. What the loser sees depends on the level
 * (PostgreSQL documentation, INSERT, "ON CONFLICT Clause", and 13.2 "Transaction Isolation"): at
 * READ COMMITTED, the default, it inserts nothing and gets no row back, and the service answers 409;
 * at REPEATABLE READ or SERIALIZABLE, if the winner committed after the loser's snapshot was taken,
 * the loser fails with SQLSTATE 40001 and must run its whole transaction again (which then sees the
 * row and answers 409 or replays).
 * The fence comes from a sequence: nextval never hands out a number twice, whatever the transactions
 * do (a rolled-back or conflicting claim leaves a gap, which is harmless).
 *
 * The tracker's PostgreSQL store (lib/tracker/postgres-store.ts, `claimKey`) runs this very statement
 * on the table `keyTableSql` describes, the one source of that table: lesson 10's race makes it too,
 * with and without the constraint.
 */
import type { ClientBase } from "pg";
import type { KeyRow } from "../protocol/key-decision.ts";
import type { Claim } from "./key-claim.ts";

export type { Claim };

/** The claim statement: $1 caller, $2 key, $3 fingerprint, $4 lease_until, $5 expires_at. */
export const CLAIM_SQL = `INSERT INTO idempotency_keys (caller, key, fingerprint, state, fence, lease_until, expires_at)
  VALUES ($1, $2, $3, 'in_progress', nextval('idempotency_fence'), $4, $5)
  ON CONFLICT (caller, key) DO NOTHING
  RETURNING fence`;

/**
 * The key table and the fence sequence, as the tracker's PostgreSQL store creates them (times as ms
 * on the caller's clock). `constraint: false` leaves out the primary key: the tempting table of a
 * check-then-insert claim, for lesson 10 to break; `ifNotExists` lets several processes run it.
 */
export function keyTableSql(options: { constraint?: boolean; ifNotExists?: boolean } = {}): string {
  const ifNew = options.ifNotExists === true ? "IF NOT EXISTS " : "";
  return `
  CREATE TABLE ${ifNew}idempotency_keys (
    caller      text   NOT NULL,
    key         text   NOT NULL,
    fingerprint text   NOT NULL,
    state       text   NOT NULL CHECK (state IN ('in_progress', 'completed')),
    fence       bigint NOT NULL,
    lease_until bigint NOT NULL,
    expires_at  bigint NOT NULL,
    status      integer,
    headers     text,
    body        text${options.constraint === false ? "" : ",\n    PRIMARY KEY (caller, key)"}
  );
  CREATE SEQUENCE ${ifNew}idempotency_fence;`;
}

/** Creates the key table and the fence sequence (in the connection's schema); see keyTableSql. */
export async function createKeyTable(
  db: ClientBase,
  options: { constraint: boolean } = { constraint: true },
): Promise<void> {
  await db.query(keyTableSql({ constraint: options.constraint }));
}

/** The row for (caller, key), in the decision's terms (lib/protocol/key-decision.ts), or undefined. */
export async function readKey(
  db: ClientBase,
  caller: string,
  key: string,
): Promise<KeyRow | undefined> {
  const { rows } = await db.query<{
    fingerprint: string;
    state: KeyRow["state"];
    fence: string;
    lease_until: string;
    expires_at: string;
  }>(
    "SELECT fingerprint, state, fence, lease_until, expires_at FROM idempotency_keys WHERE caller = $1 AND key = $2",
    [caller, key],
  );
  const r = rows[0];
  return (
    r && {
      fingerprint: r.fingerprint,
      state: r.state,
      fence: Number(r.fence),
      leaseUntil: Number(r.lease_until),
      expiresAt: Number(r.expires_at),
    }
  );
}
