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
