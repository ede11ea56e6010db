/**
 * What the outbox dispatcher process (dispatcher.ts) and its parent tell each other: the config it
 * starts with and its JSON lines on fd 3. Both sides import it from here, so that neither imports the other.
 */

export interface DispatcherConfig {
  /** The tracker's SQLite file, whose outbox table it reads. */
  db: string;
  notifierUrl: string;
  /** Send each row's downstream key (outbox.ts `downstreamKey`). */
  withKey: boolean;
  /** Kill the process (SIGKILL) right after the notifier accepts the first row, before marking it sent. */
  killAfterAccepted?: boolean;
}

/** Dispatcher → parent, one JSON line each (lib/core/child-pipe.ts). */
export type FromDispatcher =
  | { type: "say"; text: string; mark?: "ok" | "bad" | "warn" }
  | { type: "done"; delivered: number; failed: number }
  | { type: "failed"; message: string };
