/**
 * Exercise 10a · The claim on PostgreSQL: one INSERT … ON CONFLICT … RETURNING
 *
 * Goal: claim an idempotency key on a PostgreSQL server shared by several tracker instances, in one
 * statement. A new (caller, key) goes in as 'in_progress' with the next fencing token from the
 * sequence idempotency_fence and a lease; a (caller, key) that is there already is left exactly as it is, and
 * the claim says so by returning no token. Two instances claiming one key at the same moment must end
 * with one claim, and at READ COMMITTED (PostgreSQL's default) the loser must get
 * undefined, not an error. (At REPEATABLE READ or SERIALIZABLE the loser fails with SQLSTATE 40001
 * instead and its caller runs the transaction again: lesson 10, section 3d.)
 *
 * Constraints: a real PostgreSQL server (the tests start one), the client `pg`, the tracker's
 * own tables (lib/tracker/postgres-store.ts: idempotency_keys with PRIMARY KEY (caller, key), the
 * sequence idempotency_fence; times are ms on the caller's clock: lease_until = now + leaseMs,
 * expires_at = now + ttlMs). One statement, no BEGIN: no SELECT
 * before it (a check-then-insert loses the race of lesson 10, section 3b). Return the token as a
 * JavaScript number (`pg` hands a bigint back as a string). Lesson 10, section 3a, shows the race
 * (run `npm run lesson 10`). Check your answer with `npm run check 10a`.
 */
import type { ClientBase } from "pg";
import type { Claim } from "../lib/postgres/claim.ts";

/**
 * Claims `claim.key` for `claim.caller` as in progress, with the next value of idempotency_fence as its
 * fencing token. Returns that token, or undefined if a row for (caller, key) already exists (it is
 * left unchanged).
 */
export async function claimKey(db: ClientBase, claim: Claim): Promise<number | undefined> {
  // TODO: one INSERT into idempotency_keys that leaves an existing (caller, key) alone and hands back
  //   the new row's fence; pass the values as query parameters, never in the SQL text.
  throw new Error("TODO: write the claim statement (exercise 10a)");
}
