/**
 * Exercise 10a · The claim on PostgreSQL: one INSERT … ON CONFLICT … RETURNING (reference answer)
 *
 * Goal: claim an idempotency key in one statement; a key that is there already is left as it is and
 * the claim returns no token.
 */
import type { ClientBase } from "pg";
import type { Claim } from "../lib/postgres/key-claim.ts";

export async function claimKey(db: ClientBase, claim: Claim): Promise<number | undefined> {
  const { rows } = await db.query<{ fence: string }>(
    `INSERT INTO idempotency_keys (caller, key, fingerprint, state, fence, lease_until, expires_at)
     VALUES ($1, $2, $3, 'in_progress', nextval('idempotency_fence'), $4, $5)
     ON CONFLICT (caller, key) DO NOTHING
     RETURNING fence`,
    [
      claim.caller,
      claim.key,
      claim.fingerprint,
      claim.now + claim.leaseMs,
      claim.now + claim.ttlMs,
    ],
  );
  // No row back: the key was there already (another instance's claim, committed or waited for).
  return rows[0] === undefined ? undefined : Number(rows[0].fence);
}
