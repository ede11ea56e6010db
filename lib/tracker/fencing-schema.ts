/**
 * The small key table of exercises 05a and 05b: the fenced tracker's tables (lib/tracker/key-store.ts)
 * cut down to the columns that fencing needs, in a real SQLite database through `node:sqlite`.
 *
 *   reports           the side effect: one row per filed report
 *   idempotency_keys  one row per key: 'in_progress' while a claim holds it, then 'completed'
 *     fence           the fencing token of the claim that holds (or completed) the key
 *     lease_until     the claim may be taken over from this moment on (ms)
 *     report_id       the report the key's operation filed, once completed
 *   fence_counter     one row, one number that only grows: every claim and take-over takes the next
 */
import { DatabaseSync } from "node:sqlite";

export const FENCING_SCHEMA = `
  CREATE TABLE reports (
    id    INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL
  );
  CREATE TABLE idempotency_keys (
    key         TEXT PRIMARY KEY,
    state       TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
    fence       INTEGER NOT NULL,
    lease_until INTEGER NOT NULL,
    report_id   INTEGER REFERENCES reports (id)
  );
  CREATE TABLE fence_counter (
    only  INTEGER PRIMARY KEY CHECK (only = 1),
    value INTEGER NOT NULL
  );
  INSERT INTO fence_counter (only, value) VALUES (1, 0);
`;

/** A fresh database in memory (or in `path`) with the schema above. */
export function openFencingDb(path = ":memory:"): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec(FENCING_SCHEMA);
  return db;
}
