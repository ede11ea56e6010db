/**
 * What a tracker in a child process (child.ts) and its parent tell each other: the config it starts
 * with, the parent's messages over IPC and the child's JSON lines on fd 3. Both sides import it from
 * here, so that neither imports the other.
 */
import type { FaultName, Stage } from "./faults.ts";
import type { TrackerEvent } from "./narrate.ts";
import type { SideEffectsPlugin } from "./side-effects.ts";
import type { VariantName } from "./variant.ts";

/** What the child is started with (its one command-line argument, as JSON). */
export interface ChildConfig {
  variant: VariantName;
  /** The module that gives the tracker its side effects, and its config (side-effects.ts); absent: none. */
  sideEffects?: SideEffectsPlugin;
  /** The SQLite file, or (with `postgres`) unused. */
  db: string;
  /** A PostgreSQL URL naming a schema: the store instead of the SQLite file. */
  postgres?: string;
  port: number;
  leaseMs?: number;
  ttlMs?: number;
  /** A clock the parent sets (ms), starting here; absent: the real clock (Date.now). */
  clockMs?: number;
  faults: Record<number, FaultName>;
  /** Tell the parent nothing per request (no events, no stages) and forget finished requests. */
  quiet?: boolean;
  /** Stepped: after telling each event, wait for a byte on stdin (the parent's "go on"). */
  stepped?: boolean;
}

/** Parent → child, over IPC. Each carries an id that the child acknowledges. */
export type ToChild =
  | { type: "fault"; id: number; requestNo: number; fault: FaultName }
  | { type: "release"; id: number; requestNo: number }
  | { type: "clock"; id: number; ms: number }
  | { type: "ping"; id: number }
  | { type: "close"; id: number };

/** A message before the sender numbers it (Omit over each member of the union). */
export type WithoutId<M> = M extends { id: number } ? Omit<M, "id"> : never;

/** Child → parent, one JSON line each on fd 3. */
export type FromChild =
  | { type: "listening"; url: string; port: number }
  | { type: "event"; event: TrackerEvent }
  | { type: "stage"; requestNo: number; stage: Stage }
  | { type: "ack"; id: number }
  | { type: "failed"; message: string };
