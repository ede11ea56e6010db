/**
 * What a service variant is: the part of the tracker that decides what `POST /reports` does. The
 * service (service.ts) does the HTTP around it: numbering, parsing, faults, answering. A variant is
 * written once, against the database interface (database.ts) that each store implements.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Answer } from "../protocol/http.ts";
import type { TrackerDatabase } from "./database.ts";
import type { NewReport } from "./store.ts";

/** The variants (fixed names). */
export const VARIANT_NAMES = ["naive", "key-after", "keyed", "fenced"] as const;
export type VariantName = (typeof VARIANT_NAMES)[number];

export function isVariantName(s: string): s is VariantName {
  return (VARIANT_NAMES as readonly string[]).includes(s);
}

/**
 * The places where a crash fault can kill the server process; the fault `crash-<point>` fires there.
 * `before-commit` ends the handler's work (any variant), just before the report's transaction.
 */
export type CrashPoint = "after-claim" | "between-commits" | "before-commit";

/** What a variant's handler gets for one POST /reports. */
export interface CreateContext {
  /** The server's number for this request (1, 2, …). */
  requestNo: number;
  /** The validated report. */
  report: NewReport;
  /** The body as received, for fingerprints. */
  rawBody: Buffer;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Header names and values as received, repeated headers not joined. */
  rawHeaders: string[];
  /** Who is calling (the name in `Authorization: Bearer <name>`, or ANONYMOUS_CALLER for none: lib/protocol/caller.ts). */
  caller: string;
  /** The tracker's database, SQLite or PostgreSQL: its statements and transactions. */
  db: TrackerDatabase;
  /** The handler's own work happens here; a `slow` or `pause-past-lease` fault holds it. */
  work(): Promise<void>;
  /**
   * Tells the service that this request claimed its key with fencing token `fence`, taking it over
   * from the claim with token `takenFrom` if given (a pause-past-lease holder wakes on that).
   */
  claimed(fence: number, takenFrom?: number): void;
  /** A point where a crash fault may kill the process. */
  crashPoint(point: CrashPoint): void;
  /** Tells the trace what the database did, and marks the request "committed" if `committed`. */
  database(text: string, committed?: boolean): void;
  /** Tells the trace what the server did. */
  server(text: string, mark?: "ok" | "bad" | "warn"): void;
  /** The service's clock in ms (injected in tests). */
  now(): number;
  leaseMs: number;
  ttlMs: number;
}

export interface Variant {
  readonly name: VariantName;
  /** Handles one validated POST /reports. */
  create(ctx: CreateContext): Promise<Answer>;
}
