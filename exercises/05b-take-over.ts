/**
 * Exercise 05b · Take over a claim whose lease has run out, with the next fencing token
 *
 * Goal: the take-over of the fenced tracker. `key` is in progress, but its holder has not finished
 * within its lease: from `now >= lease_until` on, another request may take the key over. It gets the
 * NEXT value of the database's fence counter (not the old token plus one: the counter is shared by every
 * key and only grows, so no two claims ever get the same token) and a fresh lease. The old holder's
 * token is now stale: its completion (exercise 05a) will change 0 rows.
 *
 * Constraints: a real SQLite database (`node:sqlite`, the schema in lib/tracker/fencing-schema.ts). The
 * read and both writes in one transaction (BEGIN IMMEDIATE takes the write lock first, so no other
 * connection can take the same key over between your read and your write); leave no transaction open;
 * change nothing at all when there is nothing to take over. Lesson 05, sections 1 and 2, show
 * take-overs live (run `npm run lesson 5`). Check your answer with `npm run check 05b`.
 */
import type { DatabaseSync } from "node:sqlite";

/**
 * Takes `key` over if it is in progress and its lease has run out at `now` (ms): a new token from
 * fence_counter and lease_until = now + leaseMs. Returns the new token, or undefined if the key is
 * missing, completed, or its lease still runs (and then nothing changes).
 */
export function takeOver(
  db: DatabaseSync,
  key: string,
  now: number,
  leaseMs: number,
): number | undefined {
  // TODO: in one transaction, read the row; if its lease has run out, draw the next token from
  //   fence_counter and move the row to it with a fresh lease.
  throw new Error("TODO: write takeOver (exercise 05b)");
}
