/**
 * Exercise 05a · Fenced completion: the conditional update and the rollback
 *
 * Goal: finish a claim the way the fenced tracker does. A request claimed `key` with fencing token
 * `fence` and has done its work; now it files the report and completes the key, in one transaction,
 * and only if its claim still holds the key. If another request took the key over meanwhile (a newer
 * token), or the key is no longer in progress, nothing may stay behind: not the key's update, and not
 * the report either.
 *
 * Constraints: a real SQLite database (`node:sqlite`, the schema in lib/tracker/fencing-schema.ts:
 * tables reports, idempotency_keys, fence_counter). One transaction, BEGIN IMMEDIATE … COMMIT or
 * ROLLBACK; the report is inserted inside it, before the key is updated. Never leave a transaction
 * open, not even when a statement throws. Lesson 05, section 2b, shows the tracker doing it (run
 * `npm run lesson 5`). Check your answer with `npm run check 05a`.
 */
import type { DatabaseSync } from "node:sqlite";

/**
 * Inserts a report titled `title` and completes `key` with it, if the claim with token `fence` still
 * holds the key in progress. Returns the new report's id, or undefined after rolling everything back.
 */
export function completeFenced(
  db: DatabaseSync,
  key: string,
  fence: number,
  title: string,
): number | undefined {
  // TODO: one transaction: insert the report, update the key WHERE … AND fence = ?, and commit only if
  //   exactly one row changed; otherwise roll back, the report with it.
  throw new Error("TODO: write completeFenced (exercise 05a)");
}
