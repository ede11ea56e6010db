/**
 * Exercise 05b · Take over a claim whose lease has run out, with the next fencing token (reference answer)
 *
 * Goal: the take-over of the fenced tracker: past the lease, move the key to the next token of the
 * database's counter and a fresh lease, in one transaction.
 */
import type { DatabaseSync } from "node:sqlite";

interface Row {
  state: "in_progress" | "completed";
  fence: number;
  lease_until: number;
}

export function takeOver(
  db: DatabaseSync,
  key: string,
  now: number,
  leaseMs: number,
): number | undefined {
  db.exec("BEGIN IMMEDIATE");
  try {
    const row = db
      .prepare("SELECT state, fence, lease_until FROM idempotency_keys WHERE key = ?")
      .get(key) as unknown as Row | undefined;
    if (row === undefined || row.state !== "in_progress" || now < Number(row.lease_until)) {
      db.exec("ROLLBACK");
      return undefined;
    }
    const fence = Number(
      (
        db
          .prepare("UPDATE fence_counter SET value = value + 1 WHERE only = 1 RETURNING value")
          .get() as { value: number }
      ).value,
    );
    db.prepare(
      "UPDATE idempotency_keys SET fence = ?, lease_until = ? WHERE key = ? AND fence = ?",
    ).run(fence, now + leaseMs, key, row.fence);
    db.exec("COMMIT");
    return fence;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}
