/**
 * Exercise 05a · Fenced completion: the conditional update and the rollback (reference answer)
 *
 * Goal: finish a claim the way the fenced tracker does: insert the report and complete the key in one
 * transaction, and keep neither unless the claim with this fencing token still holds the key.
 */
import type { DatabaseSync } from "node:sqlite";

export function completeFenced(
  db: DatabaseSync,
  key: string,
  fence: number,
  title: string,
): number | undefined {
  db.exec("BEGIN IMMEDIATE");
  try {
    const id = Number(
      db.prepare("INSERT INTO reports (title) VALUES (?)").run(title).lastInsertRowid,
    );
    const { changes } = db
      .prepare(
        "UPDATE idempotency_keys SET state = 'completed', report_id = ? WHERE key = ? AND state = 'in_progress' AND fence = ?",
      )
      .run(id, key, fence);
    if (Number(changes) !== 1) {
      // Another claim holds the key (or it is no longer in progress): undo the report too.
      db.exec("ROLLBACK");
      return undefined;
    }
    db.exec("COMMIT");
    return id;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}
