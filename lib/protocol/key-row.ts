/**
 * The types of a key decision: what the key table holds for one (caller, key), and what a keyed
 * tracker may do with a request under that key. Types only, in a module of their own: exercise 04c
 * imports them, and a learner who opens this file to read the row's fields finds no answer here.
 */

/** What the key table holds for one (caller, key). Times are ms on the service's clock. */
export interface KeyRow {
  /** The fingerprint of the request that claimed the key (method, path and body). */
  fingerprint: string;
  state: "in_progress" | "completed";
  /** The fencing token of the claim that holds the key (or completed it). */
  fence: number;
  /** An in-progress claim may be taken over from this moment on. */
  leaseUntil: number;
  /** From this moment on the key is forgotten: the TTL has run out. */
  expiresAt: number;
}

/** What a keyed tracker does with a request under a key. */
export type KeyDecision =
  /** Store the key as in progress and run the handler. */
  | { kind: "claim" }
  /** 422: the key came with a different request. */
  | { kind: "mismatch" }
  /** Answer with the stored status and body. */
  | { kind: "replay" }
  /** 409, with Retry-After: another request holds the key. */
  | { kind: "in-progress"; retryAfterMs: number }
  /** Claim the key again, with a new fencing token: its holder is presumed dead. */
  | { kind: "take-over" };
