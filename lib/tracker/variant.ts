/**
 * What a service variant is: the part of the tracker that decides what `POST /reports` does. The
 * service (service.ts) does the HTTP around it: numbering, parsing, faults, answering. A variant is
 * written once, against the database interface (database.ts) that each store implements.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Answer } from "../protocol/http.ts";
import type { TrackerDatabase } from "./database.ts";
import type { Said } from "./narrate.ts";
import type { NewReport } from "./store.ts";

/** The variants (fixed names). */
export const VARIANT_NAMES = ["naive", "key-after", "keyed", "fenced"] as const;
export type VariantName = (typeof VARIANT_NAMES)[number];

export function isVariantName(s: string): s is VariantName {
  return (VARIANT_NAMES as readonly string[]).includes(s);
}

/**
 * What a variant keeps for a key besides its state and its stored answer: key-after records a key
 * once the work is done, with neither a lease nor a fence; keyed claims it first, with a lease;
 * fenced adds the fencing token that its completing writes check. naive keeps no keys.
 */
export const VARIANT_KEEPS: Record<VariantName, { keys: boolean; lease: boolean; fence: boolean }> =
  {
    naive: { keys: false, lease: false, fence: false },
    "key-after": { keys: true, lease: false, fence: false },
    keyed: { keys: true, lease: true, fence: false },
    fenced: { keys: true, lease: true, fence: true },
  };

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
   * Tells the service that this request claimed `key` (scoped to its caller), taking it over from a
   * claim whose lease ran out if `takenOver` (a pause-past-lease holder wakes on that).
   */
  claimed(key: string, takenOver: boolean): void;
  /** A point where a crash fault may kill the process. */
  crashPoint(point: CrashPoint): void;
  /** Tells the trace what the database did, and marks the request "committed" if `committed`. */
  database(said: Said, committed?: boolean): void;
  /** Tells the trace what the server did. */
  server(said: Said): void;
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
