/**
 * A fault-matrix cell's events as data: one object per line of the cell's trace, in the order the
 * trace prints them. Lesson 08's `--step` prints them as text and pauses after each; the demo page
 * (`npm run demos`, /step) draws them as a sequence diagram, one per click. Both come from the same
 * run of `runCell` (lib/matrix/matrix.ts), so one step in the page is one step in the terminal.
 *
 * The tracker tells its story as short sentences (service.ts, variants/), each with what it means as
 * data (lib/tracker/narrate.ts: what happened, the report, the status, the fence); `classify` turns
 * that into a step (claim, insert, commit, crash, take-over, replay, 409, 422…) with the SQL that ran
 * and whether its transaction committed or rolled back. A test runs every cell and checks that no
 * event is left unread, so an event the tracker tells without its data cannot slip past.
 */
import type { Attempt, Outcome } from "../client/client.ts";
import type { TrackerAction, TrackerEvent } from "../tracker/narrate.ts";
import type { VariantName } from "../tracker/variant.ts";

export type CellActor = "agent" | "server" | "database" | "lesson";

/**
 * What the server or the database did: the tracker's own word for it (TrackerAction; a failure's
 * rollback shows as a rollback, and a cell sends no PUT), or "other".
 */
export type ServerAction = Exclude<TrackerAction, "failure-rollback" | "replace"> | "other";

/** What the lesson (the one running the cell) did: start or restart a process, move the clock, let a request go. */
export type LessonAction = "process-start" | "restart" | "clock" | "release";

/** The agent's side: an attempt leaves, an attempt's outcome comes back. */
export type AgentAction = "send" | "receive";

export interface CellEvent {
  /** 1, 2, …: one step each. */
  seq: number;
  actor: CellActor;
  /** The trace line's words, exactly as the terminal prints them (without the time column). */
  text: string;
  mark?: "ok" | "bad" | "warn";
  what: ServerAction | LessonAction | AgentAction;
  /** Agent: which logical call (2 only in the concurrent cell), which attempt, the key sent (shortened). */
  call?: number;
  attempt?: number;
  key?: string;
  /** Agent, on receive: "timeout", "error", "201", "409", "201 replayed", … */
  outcome?: string;
  /** Server and database: the server's number for the request. */
  request?: number;
  /** An HTTP status the server answered (or lost, or replayed). */
  status?: number;
  /** A report id inserted (or rolled back). */
  report?: number;
  /** A fencing token claimed, and the one it took over from. */
  fence?: number;
  was?: number;
  /** The SQL statements of the step, and how their transaction ended. */
  sql?: string[];
  tx?: "commit" | "rollback";
  /** Crash cells: which tracker process (1, then 2 after a restart) and its PID. */
  generation?: number;
  pid?: number;
  /** restart: the PID that died and the signal that killed it. */
  oldPid?: number;
  signal?: string;
  /** clock: the tracker's clock before and after, ms. */
  from?: number;
  to?: number;
}

/** An event before it is numbered. */
export type NewCellEvent = Omit<CellEvent, "seq">;

// The SQL behind each database step, as store.ts and key-store.ts prepare it (column lists
// shortened to "…" where they only repeat the table's columns, and to the columns the variant uses:
// key-after's rows have neither a lease nor a fence, keyed's no fence).
const BEGIN = "BEGIN IMMEDIATE";
const SELECT_KEY: Record<VariantName, string> = {
  naive: "",
  "key-after":
    "SELECT caller, key, fingerprint, state, expires_at, … FROM idempotency_keys WHERE caller = ? AND key = ?",
  keyed:
    "SELECT caller, key, fingerprint, state, lease_until, … FROM idempotency_keys WHERE caller = ? AND key = ?",
  fenced:
    "SELECT caller, key, fingerprint, state, fence, lease_until, … FROM idempotency_keys WHERE caller = ? AND key = ?",
};
const NEXT_FENCE = "UPDATE fence_counter SET value = value + 1 WHERE only = 1 RETURNING value";
const CLAIM_FENCED =
  "INSERT INTO idempotency_keys (caller, key, fingerprint, state, fence, lease_until, expires_at) VALUES (?, ?, ?, 'in_progress', ?, ?, ?) " +
  "ON CONFLICT (caller, key) DO UPDATE SET state = 'in_progress', fence = excluded.fence, lease_until = excluded.lease_until, …";
const CLAIM_KEYED =
  "INSERT INTO idempotency_keys (caller, key, fingerprint, state, …, lease_until, expires_at) VALUES (?, ?, ?, 'in_progress', …, ?, ?) " +
  "ON CONFLICT (caller, key) DO UPDATE SET state = 'in_progress', lease_until = excluded.lease_until, …";
const INSERT_REPORT =
  "INSERT INTO reports (title, title_norm, body, module, run) VALUES (?, ?, ?, ?, ?) RETURNING id, …";
const COMPLETE =
  "UPDATE idempotency_keys SET state = 'completed', status = ?, headers = ?, body = ? WHERE caller = ? AND key = ?";
const FENCE_CHECK = " AND state = 'in_progress' AND fence = ?";
const RECORD =
  "INSERT INTO idempotency_keys (caller, key, fingerprint, state, …, expires_at, status, headers, body) VALUES (?, ?, ?, 'completed', …) " +
  "ON CONFLICT (caller, key) DO UPDATE SET state = 'completed', …";

/**
 * Reads a tracker event back into what it did: from its data (`what` and its numbers), never from
 * its words, which are in the reader's language.
 */
export function classify(e: TrackerEvent, variant: VariantName): NewCellEvent {
  const base: NewCellEvent = {
    actor: e.actor,
    text: `#${e.requestNo} ${e.text}`,
    what: "other",
    request: e.requestNo,
    ...(e.mark ? { mark: e.mark } : {}),
  };
  const numbers = {
    ...(e.status !== undefined ? { status: e.status } : {}),
    ...(e.report !== undefined ? { report: e.report } : {}),
    ...(e.fence !== undefined ? { fence: e.fence } : {}),
    ...(e.was !== undefined ? { was: e.was } : {}),
  };
  const selectKey = SELECT_KEY[variant];
  const claim = variant === "fenced" ? [NEXT_FENCE, CLAIM_FENCED] : [CLAIM_KEYED];
  const complete = COMPLETE + (variant === "fenced" ? FENCE_CHECK : "");
  const lookUp = variant === "key-after" ? [selectKey] : [BEGIN, selectKey, "COMMIT"];
  const step = (what: ServerAction, sql?: string[], tx?: "commit" | "rollback"): NewCellEvent => ({
    ...base,
    what,
    ...numbers,
    ...(sql ? { sql } : {}),
    ...(tx ? { tx } : {}),
  });
  switch (e.what) {
    case undefined:
    case "replace":
      // A sentence with no meaning as data (a side effect's), or a route the cells never take.
      return base;
    case "arrived":
    case "dropped":
    case "stall":
    case "wake":
    case "lost":
    case "answer":
    case "hung-up":
    case "failed":
      return step(e.what);
    case "crash":
      // A crash fault: the process kills itself with SIGKILL (lib/tracker/child.ts).
      return { ...step("crash"), signal: "SIGKILL" };
    case "look-up":
      return step("look-up", [selectKey]);
    case "claim":
    case "take-over":
      return step(e.what, [BEGIN, selectKey, ...claim, "COMMIT"], "commit");
    case "insert":
      return variant === "keyed" || variant === "fenced"
        ? step("insert", [BEGIN, INSERT_REPORT, complete, "COMMIT"], "commit")
        : step("insert", [BEGIN, INSERT_REPORT, "COMMIT"], "commit");
    case "record-key":
      return step("record-key", [BEGIN, RECORD, "COMMIT"], "commit");
    case "store-error":
      return step("store-error", [BEGIN, complete, "COMMIT"], "commit");
    case "rollback":
      return step(
        "rollback",
        [BEGIN, INSERT_REPORT, `${complete} -- 0 rows`, "ROLLBACK"],
        "rollback",
      );
    case "failure-rollback":
      return step("rollback", [BEGIN, `${complete} -- 0 rows`, "ROLLBACK"], "rollback");
    case "replay":
    case "409":
    case "422":
      return step(e.what, lookUp);
    case "fenced-out":
      return step("fenced-out", [selectKey]);
  }
}

/** The agent's attempt as it leaves. */
export function sendEvent(
  call: number,
  n: number,
  key: string | undefined,
  text: string,
): NewCellEvent {
  return {
    actor: "agent",
    what: "send",
    text,
    call,
    attempt: n,
    ...(key ? { key: key.slice(0, 8) } : {}),
  };
}

/** The agent's attempt as its outcome comes back. */
export function receiveEvent(
  call: number,
  attempt: Attempt,
  text: string,
  ok: boolean,
): NewCellEvent {
  const o = attempt.outcome;
  return {
    actor: "agent",
    what: "receive",
    text,
    mark: ok ? "ok" : "bad",
    call,
    attempt: attempt.n,
    ...(attempt.key ? { key: attempt.key.slice(0, 8) } : {}),
    outcome: statusOf(o),
    ...(o.kind === "response" ? { status: o.status } : {}),
    ...(o.kind === "response" && typeof (o.body as { id?: unknown } | undefined)?.id === "number"
      ? { report: (o.body as { id: number }).id }
      : {}),
  };
}

/** An attempt's outcome in a word or two: "timeout", "error", "201", "409", "201 replayed". */
export function statusOf(o: Outcome): string {
  if (o.kind !== "response") return o.kind;
  return `${o.status}${o.headers["idempotent-replayed"] === "true" ? " replayed" : ""}`;
}
