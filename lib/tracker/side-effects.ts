/**
 * Hooks for what a tracker does besides storing the report (lesson 07): tell a maintainer through
 * another service. Each hook is optional and runs at one place in every variant's POST /reports,
 * without the variant knowing:
 *
 *   beforeCommit   in the handler's work, after any fault's pause, before the report's transaction:
 *                  an inline call to another service. A crash right after it (the fault
 *                  `crash-before-commit`) leaves the call made and the report not stored.
 *   inTransaction  inside the transaction that inserts the report, right after the INSERT, on the
 *                  same connection: an outbox row, committed or rolled back with the report (fenced's
 *                  stale holder rolls both back).
 *   afterCommit    once the handler has stored a new report (not for a replay), before the answer
 *                  leaves: an inline call made after the commit.
 *
 * A tracker in this process takes the hooks themselves (TrackerOptions.sideEffects); a tracker in a
 * child process (child.ts) takes a plug-in, the URL of a module that makes them and a plain config for
 * it, since functions cannot be sent to another process.
 */
import type { NewReport, Report, ReportStore } from "./store.ts";

/** What a hook knows about the request it runs for. */
export interface SideEffectCall {
  requestNo: number;
  /** The report as the client sent it. */
  report: NewReport;
  caller: string;
  /** The request's Idempotency-Key, when it sent a well-formed one. */
  key: string | undefined;
  /** Tells the trace what the hook did. */
  say(text: string, mark?: "ok" | "bad" | "warn"): void;
}

export interface SideEffects {
  beforeCommit?(call: SideEffectCall): Promise<void>;
  /** Synchronous: it runs inside the transaction. Returns what it wrote, for the trace. */
  inTransaction?(stored: Report, store: ReportStore): string;
  afterCommit?(stored: Report, call: SideEffectCall): Promise<void>;
}

/** Side effects for a tracker in a child process: the module that makes them, and its config (plain JSON). */
export interface SideEffectsPlugin {
  /** The module's URL (its `import.meta.url`); the child imports it. */
  module: string;
  config: unknown;
}

/** What a plug-in module exports: its hooks, made from the config the parent gave. */
export interface SideEffectsModule {
  sideEffects(config: unknown): SideEffects;
}
