/**
 * What the tracker asks of its database: the statements and the transactions, and nothing of the
 * protocol. The variants of POST /reports (variants/*.ts: claim → work → completion, replay, 409, 422,
 * the fence checks) and the service's other routes are written once against this interface; each
 * store implements it with its own SQL:
 *
 *   sqlite-database.ts     node:sqlite, one shared connection, short synchronous transactions
 *                          (store.ts, key-store.ts)
 *   postgres-database.ts   pg, a pool, a transaction on a checked-out connection (postgres-store.ts)
 *
 * SQLite answers at once and PostgreSQL later: every method may return a value or a promise, and the
 * callers await either. A method that writes commits what it writes before it returns, in one
 * transaction: none is left open across an await of the caller's.
 */
import type { Answer } from "../protocol/http.ts";
import type { StoredKey } from "../protocol/key-answers.ts";
import type { KeyDecision } from "../protocol/key-decision.ts";
import type { Said } from "./narrate.ts";
import type { NewReport, Report } from "./store.ts";

export type MaybePromise<T> = T | Promise<T>;

/** A claim to make on one key: who, which key, for what request, and the times it runs by. */
export interface KeyClaim {
  caller: string;
  key: string;
  fingerprint: string;
  /** The service's clock, ms, read as the claim decides. */
  now: () => number;
  leaseMs: number;
  ttlMs: number;
  /**
   * Whether the claim draws a fencing token (fenced). Without one (keyed) the row keeps fence 0 on
   * SQLite; PostgreSQL draws one all the same, for its take-over's compare-and-set (postgres-store.ts).
   */
  fenced: boolean;
}

/** A key this request now holds, as in_progress, with the fencing token `fence` its claim drew (0: none). */
export interface Claimed {
  claimed: true;
  fence: number;
  /** Taken over from the claim with this token, whose lease had run out. */
  takenFrom?: number;
  /** Claimed anew over a row past its TTL, whose token was this (a store that says so: PostgreSQL). */
  renewedFrom?: number;
}

/** A key this request could not claim: the row that stopped it and the decision on it (replay, 422, 409). */
export interface NotClaimed {
  claimed: false;
  row: StoredKey | undefined;
  decision: KeyDecision;
}

/** How a completion with the report ended. */
export type Completion =
  /** The report and the key's response committed together. */
  | { stored: true; answer: Answer; reportId: number }
  /** Rolled back whole, report included: the key was not this claim's any more (`reportId`: the id the undone INSERT had). */
  | { stored: false; reportId: number | undefined };

/**
 * The trace's words for what a store's statements did, where the two stores' statements differ, with
 * what they mean as data. A fence is said only where the claim has one.
 */
export interface StatementWords {
  /** naive's report, in a commit of its own. */
  reportInserted(id: number): Said;
  /** A claim of a key: a new one, a take-over, or (PostgreSQL) a row past its TTL claimed anew. */
  keyClaimed(label: string, claim: Claimed, leaseMs: number): Said;
  /** The report and the key's completion, committed together; `fence`: the condition, if any. */
  reportAndKeyCommitted(label: string, reportId: number, fence: number | undefined): Said;
  /** The same, rolled back because the key's row did not change (another claim holds it). */
  reportAndKeyRolledBack(
    label: string,
    reportId: number | undefined,
    fence: number | undefined,
  ): Said;
}

/** The database of a tracker; `S` is the store behind it (the SQLite ReportStore, or a PostgresStore). */
export interface TrackerDatabase<S = unknown> {
  readonly store: S;
  readonly words: StatementWords;

  /** INSERT a report, in a commit of its own (naive; key-after's first commit). */
  insertReport(report: NewReport): MaybePromise<Report>;
  getReport(id: number): MaybePromise<Report | undefined>;
  /** PUT: create or replace the report with this id, in a transaction of its own. */
  putReport(id: number, report: NewReport): MaybePromise<{ report: Report; created: boolean }>;
  /** At most `limit` reports with an id above `after`, oldest first; `title` keeps those with this normalised title. */
  page(after: number, limit: number, title?: string): MaybePromise<Report[]>;

  /** What the key table holds for (caller, key): a plain read. */
  getKey(caller: string, key: string): MaybePromise<StoredKey | undefined>;
  /**
   * Claims the key as in_progress with a lease, if the decision on its row (key-decision.ts) says the
   * key is free or its lease has run out, so that of two requests with one key exactly one claims it;
   * otherwise tells the row and the decision that stopped it. Every claim draws the next fencing token.
   */
  claimKey(claim: KeyClaim): MaybePromise<Claimed | NotClaimed>;
  /** key-after's second commit: the key recorded as completed, with its response. */
  recordKey(
    caller: string,
    key: string,
    fingerprint: string,
    response: Answer,
    now: number,
    ttlMs: number,
  ): MaybePromise<void>;
  /**
   * One transaction: INSERT the report, then complete the key with `answerFor(report)`; with
   * `fencedBy`, only if the claim with that token still holds the key in progress. Rolled back whole,
   * report included, unless exactly one key row changed.
   */
  completeWithReport(
    caller: string,
    key: string,
    report: NewReport,
    answerFor: (stored: Report) => Answer,
    fencedBy: number | undefined,
  ): MaybePromise<Completion>;
  /** One transaction: complete the key with a failure (`fencedBy` as above). False: rolled back, the key was not ours. */
  completeWithFailure(
    caller: string,
    key: string,
    failure: Answer,
    fencedBy: number | undefined,
  ): MaybePromise<boolean>;
  /** One sweep transaction: deletes at most `limit` keys whose TTL has run out at `now`; how many. */
  deleteExpired(now: number, limit: number): MaybePromise<number>;

  close(): MaybePromise<void>;
}

/**
 * Thrown inside a completing transaction when the key's row did not change: the key is no longer this
 * claim's. The transaction rolls back on it, and the implementation reports `stored: false`.
 */
export class KeyNotOurs extends Error {
  constructor() {
    super("the claim is stale: another request holds the key now");
    this.name = "KeyNotOurs";
  }
}

/**
 * The database cannot serve this request now: PostgreSQL ended the connection under it (a restart,
 * `pg_terminate_backend`, a network blip) or cannot be reached, or another process holds the SQLite
 * file's write lock for longer than the tracker waits. The request may be sent again: the service
 * answers 503 with Retry-After, never a 500 and never a closed port. (A claim that went through before
 * the failure stays until its lease runs out; the retry under the same key then takes it over.)
 */
export class DatabaseUnavailable extends Error {
  /** How long the client should wait before sending the request again, ms. */
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs = 1_000) {
    super(message);
    this.name = "DatabaseUnavailable";
    this.retryAfterMs = retryAfterMs;
  }
}
