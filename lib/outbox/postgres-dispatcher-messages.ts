/**
 * What an outbox dispatcher process on PostgreSQL (postgres-dispatcher.ts) and its parent tell each
 * other: the config it starts with, the parent's steps over IPC and its JSON lines on fd 3. Both sides
 * import it from here, so that neither imports the other.
 */

export interface PgDispatcherConfig {
  /** A postgres:// URL (with its schema chosen). */
  url: string;
  notifierUrl: string;
  /** Rows per batch. */
  batch: number;
  /** Lock the batch (FOR UPDATE SKIP LOCKED; default) or only read it (the tempting version). */
  lock?: boolean;
}

/** Parent → dispatcher, over IPC. */
export type ToPgDispatcher =
  | { type: "take" }
  | { type: "deliver"; killAfterAccepted?: number }
  | { type: "stop" };

/** Dispatcher → parent, one JSON line each (lib/core/child-pipe.ts). */
export type FromPgDispatcher =
  | { type: "ready"; backendPid: number }
  | { type: "taken"; rows: number[] }
  | { type: "committed"; delivered: number }
  | { type: "say"; text: string; mark?: "ok" | "bad" | "warn" }
  | { type: "failed"; message: string };
