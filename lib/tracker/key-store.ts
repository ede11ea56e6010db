/**
 * The key table of the keyed variants: one row per (caller, key), in the same SQLite database and on
 * the same connection as the reports, so that "store the report" and "complete the key" can share
 * one transaction. Call every method that writes inside `ReportStore.transaction`.
 *
 *   caller, key    the scope: two callers may use the same key without seeing each other's results
 *   fingerprint    what the request asked for (lib/protocol/fingerprint.ts)
 *   state          'in_progress' while a request works on it, then 'completed'
 *   fence          the fencing token of the claim that holds it (fenced): every claim (a new one or a
 *                  take-over) draws the next number from one counter that only grows, so a newer claim
 *                  always has a larger token than any older one, across all keys, even after a row is
 *                  pruned. 0 where there is none: keyed's claims and key-after's records draw nothing
 *   lease_until    an in-progress claim may be taken over from then on (ms); 0 for key-after's records,
 *                  which are never in progress
 *   expires_at     the TTL: from then on the key is forgotten and a request with it is new (ms)
 *   status, headers, body   the stored response, replayed for the same key
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Answer } from "../protocol/http.ts";
import type { StoredKey } from "../protocol/key-answers.ts";
import type { ReportStore } from "./store.ts";

/**
 * A row of the key table as a driver hands it back: numbers as numbers (node:sqlite) or, for
 * PostgreSQL's bigint columns, as strings (pg).
 */
export interface KeyTableRow {
  caller: string;
  key: string;
  fingerprint: string;
  state: "in_progress" | "completed";
  fence: number | string;
  lease_until: number | string;
  expires_at: number | string;
  status: number | null;
  headers: string | null;
  body: string | null;
}

export class KeyStore {
  readonly #get: StatementSync;
  readonly #claim: StatementSync;
  readonly #record: StatementSync;
  readonly #complete: StatementSync;
  readonly #completeFenced: StatementSync;
  readonly #nextFence: StatementSync;
  readonly #count: StatementSync;
  readonly #deleteExpired: StatementSync;

  constructor(db: DatabaseSync) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS idempotency_keys (
        caller      TEXT    NOT NULL,
        key         TEXT    NOT NULL,
        fingerprint TEXT    NOT NULL,
        state       TEXT    NOT NULL CHECK (state IN ('in_progress', 'completed')),
        fence       INTEGER NOT NULL,
        lease_until INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL,
        status      INTEGER,
        headers     TEXT,
        body        TEXT,
        PRIMARY KEY (caller, key)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS fence_counter (
        only  INTEGER PRIMARY KEY CHECK (only = 1),
        value INTEGER NOT NULL
      );
      INSERT OR IGNORE INTO fence_counter (only, value) VALUES (1, 0);
      CREATE INDEX IF NOT EXISTS idempotency_keys_by_expiry ON idempotency_keys (expires_at);
    `);
    const cols =
      "caller, key, fingerprint, state, fence, lease_until, expires_at, status, headers, body";
    this.#get = db.prepare(`SELECT ${cols} FROM idempotency_keys WHERE caller = ? AND key = ?`);
    // A claim writes the whole row: a new key, an expired one (forgotten, so new), or a take-over.
    this.#claim = db.prepare(`
      INSERT INTO idempotency_keys (caller, key, fingerprint, state, fence, lease_until, expires_at)
      VALUES (?, ?, ?, 'in_progress', ?, ?, ?)
      ON CONFLICT (caller, key) DO UPDATE SET
        fingerprint = excluded.fingerprint, state = 'in_progress', fence = excluded.fence,
        lease_until = excluded.lease_until, expires_at = excluded.expires_at,
        status = NULL, headers = NULL, body = NULL`);
    // key-after: records a completed key in one go, after the fact: no claim, so neither a fence
    // nor a lease.
    this.#record = db.prepare(`
      INSERT INTO idempotency_keys (caller, key, fingerprint, state, fence, lease_until, expires_at, status, headers, body)
      VALUES (?, ?, ?, 'completed', 0, 0, ?, ?, ?, ?)
      ON CONFLICT (caller, key) DO UPDATE SET
        fingerprint = excluded.fingerprint, state = 'completed', fence = excluded.fence,
        lease_until = excluded.lease_until, expires_at = excluded.expires_at,
        status = excluded.status, headers = excluded.headers, body = excluded.body`);
    // keyed: completes the row, whoever holds it now.
    this.#complete = db.prepare(`
      UPDATE idempotency_keys SET state = 'completed', status = ?, headers = ?, body = ?
      WHERE caller = ? AND key = ?`);
    // fenced: completes the row only if this claim still holds it.
    this.#completeFenced = db.prepare(`
      UPDATE idempotency_keys SET state = 'completed', status = ?, headers = ?, body = ?
      WHERE caller = ? AND key = ? AND state = 'in_progress' AND fence = ?`);
    this.#nextFence = db.prepare(
      "UPDATE fence_counter SET value = value + 1 WHERE only = 1 RETURNING value",
    );
    this.#count = db.prepare("SELECT count(*) AS n FROM idempotency_keys");
    this.#deleteExpired = db.prepare(`
      DELETE FROM idempotency_keys WHERE (caller, key) IN (
        SELECT caller, key FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)`);
  }

  get(caller: string, key: string): StoredKey | undefined {
    const row = this.#get.get(caller, key) as unknown as KeyTableRow | undefined;
    return row && toStoredKey(row);
  }

  /**
   * Claims the key as in progress for `leaseMs`; returns the claim's fencing token, drawn from the
   * counter when `fenced` (the default), else 0 (keyed: a lease, no fence). In a transaction.
   */
  claim(
    caller: string,
    key: string,
    fingerprint: string,
    now: number,
    leaseMs: number,
    ttlMs: number,
    fenced = true,
  ): number {
    const fence = fenced ? this.#fence() : 0;
    this.#claim.run(caller, key, fingerprint, fence, now + leaseMs, now + ttlMs);
    return fence;
  }

  /** Records a completed key with its response (key-after's second commit). In a transaction. */
  record(
    caller: string,
    key: string,
    fingerprint: string,
    response: Answer,
    now: number,
    ttlMs: number,
  ): void {
    const [status, headers, body] = serialise(response);
    this.#record.run(caller, key, fingerprint, now + ttlMs, status, headers, body);
  }

  /** Stores the response and marks the key completed, without asking who holds it. Rows changed. */
  complete(caller: string, key: string, response: Answer): number {
    return Number(this.#complete.run(...serialise(response), caller, key).changes);
  }

  /**
   * Stores the response only if the claim with token `fence` still holds the key in progress; 0
   * rows changed means another claim took it over (the caller then rolls back its transaction).
   */
  completeFenced(caller: string, key: string, fence: number, response: Answer): number {
    return Number(this.#completeFenced.run(...serialise(response), caller, key, fence).changes);
  }

  /**
   * Deletes at most `limit` keys whose TTL has run out at `now` (they are forgotten already: a
   * request with one is new); returns how many. In a transaction; the fence counter is untouched.
   */
  deleteExpired(now: number, limit: number): number {
    return Number(this.#deleteExpired.run(now, limit).changes);
  }

  count(): number {
    return Number((this.#count.get() as { n: number }).n);
  }

  #fence(): number {
    return Number((this.#nextFence.get() as { value: number }).value);
  }
}

const stores = new WeakMap<ReportStore, KeyStore>();

/** The key table beside a report store (created on first use). */
export function keyStoreOf(store: ReportStore): KeyStore {
  let keys = stores.get(store);
  if (!keys) {
    keys = new KeyStore(store.db);
    stores.set(store, keys);
  }
  return keys;
}

function serialise(response: Answer): [number, string, string] {
  return [response.status, JSON.stringify(response.headers ?? {}), JSON.stringify(response.body)];
}

/** A key table row as the decision and the answers read it; both stores use it. */
export function toStoredKey(row: KeyTableRow): StoredKey {
  return {
    caller: row.caller,
    key: row.key,
    fingerprint: row.fingerprint,
    state: row.state,
    fence: Number(row.fence),
    leaseUntil: Number(row.lease_until),
    expiresAt: Number(row.expires_at),
    response:
      row.status === null
        ? undefined
        : {
            status: Number(row.status),
            headers: JSON.parse(row.headers ?? "{}") as Record<string, string>,
            body: JSON.parse(row.body ?? "null") as unknown,
          },
  };
}
