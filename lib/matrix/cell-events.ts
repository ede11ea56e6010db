/**
 * A fault-matrix cell's events as data: one object per line of the cell's trace, in the order the
 * trace prints them. Lesson 08's `--step` prints them as text and pauses after each; the demo page
 * (`npm run demos`, /step) draws them as a sequence diagram, one per click. Both come from the same
 * run of `runCell` (lib/matrix/matrix.ts), so one step in the page is one step in the terminal.
 *
 * The tracker tells its story as short sentences (service.ts, variants/); `classify` reads each
 * sentence back into what the server did (claim, insert, commit, crash, take-over, replay, 409, 422…)
 * and which SQL ran, with whether its transaction committed or rolled back. A test runs every cell
 * and checks that no event is left unread, so a sentence changed in the tracker cannot slip past.
 */
import type { Attempt, Outcome } from "../client/client.ts";
import type { TrackerEvent } from "../tracker/narrate.ts";
import type { VariantName } from "../tracker/variant.ts";

export type CellActor = "agent" | "server" | "database" | "lesson";

/** What the server or the database did, read from the tracker's sentence. */
export type ServerAction =
  | "arrived"
  | "dropped"
  | "stall"
  | "wake"
  | "look-up"
  | "claim"
  | "take-over"
  | "insert"
  | "record-key"
  | "store-error"
  | "rollback"
  | "replay"
  | "409"
  | "422"
  | "fenced-out"
  | "crash"
  | "lost"
  | "answer"
  | "hung-up"
  | "failed"
  | "other";

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
// shortened to "…" where they only repeat the table's columns).
const BEGIN = "BEGIN IMMEDIATE";
const SELECT_KEY =
  "SELECT caller, key, fingerprint, state, fence, lease_until, … FROM idempotency_keys WHERE caller = ? AND key = ?";
const NEXT_FENCE = "UPDATE fence_counter SET value = value + 1 WHERE only = 1 RETURNING value";
const CLAIM =
  "INSERT INTO idempotency_keys (caller, key, fingerprint, state, fence, lease_until, expires_at) VALUES (?, ?, ?, 'in_progress', ?, ?, ?) " +
  "ON CONFLICT (caller, key) DO UPDATE SET state = 'in_progress', fence = excluded.fence, lease_until = excluded.lease_until, …";
const INSERT_REPORT =
  "INSERT INTO reports (title, title_norm, body, module, run) VALUES (?, ?, ?, ?, ?) RETURNING id, …";
const COMPLETE =
  "UPDATE idempotency_keys SET state = 'completed', status = ?, headers = ?, body = ? WHERE caller = ? AND key = ?";
const FENCE_CHECK = " AND state = 'in_progress' AND fence = ?";
const RECORD =
  "INSERT INTO idempotency_keys (caller, key, fingerprint, state, fence, …, status, headers, body) VALUES (?, ?, ?, 'completed', ?, …) " +
  "ON CONFLICT (caller, key) DO UPDATE SET state = 'completed', …";

/**
 * What a tracker event says as data: what the server or the database did, and its numbers. The
 * tracker may give these with the event (`what`, `report`, `status`, `fence`, `was`); then they are
 * read as given, whatever language the sentence is in.
 */
interface Said {
  what?: string;
  report?: number;
  status?: number;
  fence?: number;
  was?: number;
}

/** Reads a tracker event back into what it did, with the SQL behind it. */
export function classify(e: TrackerEvent, variant: VariantName): NewCellEvent {
  const base: NewCellEvent = {
    actor: e.actor,
    text: `#${e.requestNo} ${e.text}`,
    what: "other",
    request: e.requestNo,
    ...(e.mark ? { mark: e.mark } : {}),
  };
  const said = (e as TrackerEvent & Said).what !== undefined ? (e as Said) : fromSentence(e.text);
  const numbers = {
    ...(said.report !== undefined ? { report: said.report } : {}),
    ...(said.status !== undefined ? { status: said.status } : {}),
    ...(said.fence !== undefined ? { fence: said.fence } : {}),
    ...(said.was !== undefined ? { was: said.was } : {}),
  };
  const keyed = variant === "keyed" || variant === "fenced";
  const complete = COMPLETE + (variant === "fenced" ? FENCE_CHECK : "");
  const lookUp = variant === "key-after" ? [SELECT_KEY] : [BEGIN, SELECT_KEY, "COMMIT"];
  const claimSql = [BEGIN, SELECT_KEY, NEXT_FENCE, CLAIM, "COMMIT"];
  switch (said.what) {
    case "arrived":
    case "dropped":
    case "stall":
    case "wake":
    case "lost":
    case "answer":
    case "hung-up":
    case "failed":
      return { ...base, what: said.what, ...numbers };
    case "look-up":
      return { ...base, what: "look-up", sql: [SELECT_KEY] };
    case "claim":
    case "take-over":
      return { ...base, what: said.what, ...numbers, sql: claimSql, tx: "commit" };
    case "insert":
      return {
        ...base,
        what: "insert",
        ...numbers,
        sql: keyed ? [BEGIN, INSERT_REPORT, complete, "COMMIT"] : [BEGIN, INSERT_REPORT, "COMMIT"],
        tx: "commit",
      };
    case "record-key":
      return {
        ...base,
        what: "record-key",
        sql: [BEGIN, NEXT_FENCE, RECORD, "COMMIT"],
        tx: "commit",
      };
    case "store-error":
      return {
        ...base,
        what: "store-error",
        status: said.status ?? 500,
        sql: [BEGIN, complete, "COMMIT"],
        tx: "commit",
      };
    case "rollback":
    case "failure-rollback":
      return {
        ...base,
        what: "rollback",
        ...numbers,
        sql:
          said.report !== undefined
            ? [BEGIN, INSERT_REPORT, `${complete} -- 0 rows`, "ROLLBACK"]
            : [BEGIN, `${complete} -- 0 rows`, "ROLLBACK"],
        tx: "rollback",
      };
    case "replay":
    case "409":
    case "422":
      return { ...base, what: said.what, ...numbers, sql: lookUp };
    case "fenced-out":
      return { ...base, what: "fenced-out", ...numbers, sql: [SELECT_KEY] };
    case "crash":
      return { ...base, what: "crash", signal: "SIGKILL" };
    default:
      // A step this list does not know (test/full/cell-events.test.ts runs every cell to catch it).
      return base;
  }
}

/**
 * The tracker's English sentence read back into data, for a tracker whose events carry no data of
 * their own: each pattern is one sentence of lib/tracker and lib/protocol.
 */
function fromSentence(t: string): Said {
  if (/ arrived( \(fault: [a-z-]+\))?$/.test(t)) return { what: "arrived" };
  if (t.startsWith("dropped before any handler ran")) return { what: "dropped" };
  if (t.startsWith("handler started, then stalls")) return { what: "stall" };
  if (t.startsWith("handler wakes up")) return { what: "wake" };
  if (/ not recorded yet: going ahead$/.test(t)) return { what: "look-up" };
  const claim = /^claim key \S+ as in_progress, fence (\d+), lease \d+ ms · COMMIT$/.exec(t);
  if (claim) return { what: "claim", fence: Number(claim[1]) };
  const takeOver =
    /^TAKE OVER \(lease ran out\) key \S+ as in_progress, fence (\d+) \(was (\d+)\), lease \d+ ms · COMMIT$/.exec(
      t,
    );
  if (takeOver) return { what: "take-over", fence: Number(takeOver[1]), was: Number(takeOver[2]) };
  const inserted = /^INSERT report (\d+) · COMMIT( \(first commit\))?$/.exec(t);
  if (inserted) return { what: "insert", report: Number(inserted[1]) };
  const withKey = /^INSERT report (\d+) \+ key \S+ completed( WHERE fence = (\d+))? · COMMIT$/.exec(
    t,
  );
  if (withKey)
    return {
      what: "insert",
      report: Number(withKey[1]),
      ...(withKey[3] ? { fence: Number(withKey[3]) } : {}),
    };
  if (/^INSERT key \S+ with the response · COMMIT \(second commit\)$/.test(t))
    return { what: "record-key" };
  if (/^key \S+ completed with the error 500/.test(t)) return { what: "store-error", status: 500 };
  const rolledBack =
    /^INSERT report (\d+), UPDATE key \S+ completed WHERE fence = (\d+): 0 rows · ROLLBACK/.exec(t);
  if (rolledBack)
    return { what: "rollback", report: Number(rolledBack[1]), fence: Number(rolledBack[2]) };
  if (/^UPDATE key \S+ to the error 500.*: 0 rows.*ROLLBACK/.test(t)) return { what: "rollback" };
  const replay = /(recorded|completed) before: replaying the stored (\d+)$/.exec(t);
  if (replay) return { what: "replay", status: Number(replay[2]) };
  if (
    / is in progress \(lease ends in \d+ ms\): 409$/.test(t) ||
    / is held by no live claim: 409, try again$/.test(t)
  )
    return { what: "409", status: 409 };
  if (/ (was recorded|was used) for a different request: 422$/.test(t))
    return { what: "422", status: 422 };
  const fencedOut = /^fenced out: key \S+ belongs to fence (\S+) now$/.exec(t);
  if (fencedOut)
    return {
      what: "fenced-out",
      ...(fencedOut[1] !== "none" ? { fence: Number(fencedOut[1]) } : {}),
    };
  if (/^process killed \(SIGKILL\) at "[a-z-]+"$/.test(t)) return { what: "crash" };
  const lost = /^answer \((\d+)\) lost on the way back/.exec(t);
  if (lost) return { what: "lost", status: Number(lost[1]) };
  const hungUp = /^→ (\d+), but the agent had already hung up$/.exec(t);
  if (hungUp) return { what: "hung-up", status: Number(hungUp[1]) };
  const answer = /^→ (\d+)( |$)/.exec(t);
  if (answer) return { what: "answer", status: Number(answer[1]) };
  if (/^internal error: /.test(t) || /work fails/.test(t)) return { what: "failed" };
  return {};
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
