/**
 * The tracker's side of a lesson's trace: what the server and the database did, request by request
 * (the agent tells its own side: lib/client/narrate.ts).
 *
 * An event is read twice: by a person, as its `text` (in the reader's language), and by code that
 * follows a run (the fault matrix's cells, lib/matrix/cell-events.ts; lesson 10's instances), as its
 * `what` and its numbers. Code reads the data, never the text: the text is translated.
 */
import { t } from "../core/i18n.ts";
import type { Trace } from "../core/trace.ts";

export type Mark = "ok" | "bad" | "warn";

/** What an event says happened, as data. */
export type TrackerAction =
  /** The request line and headers have been read. */
  | "arrived"
  /** drop-request: swallowed before any handler ran. */
  | "dropped"
  /** slow, pause-past-lease: the handler stops at its gate. */
  | "stall"
  /** A held handler goes on. */
  | "wake"
  /** key-after: the key is not recorded, the request goes ahead. */
  | "look-up"
  /** The key claimed as in_progress (a new claim, or one over a key past its TTL). */
  | "claim"
  /** A claim whose lease ran out, taken over. */
  | "take-over"
  /** A report inserted and committed (with the key's completion, for the keyed variants). */
  | "insert"
  /** PUT: a report replaced. */
  | "replace"
  /** key-after's second commit: the key and its response recorded. */
  | "record-key"
  /** The handler's failure stored under the key, to be replayed. */
  | "store-error"
  /** The report and the key's completion rolled back: another claim holds the key. */
  | "rollback"
  /** The failure's write rolled back: another claim holds the key. */
  | "failure-rollback"
  /** The stored response replayed. */
  | "replay"
  /** 409: the key is held by a claim still running (or by none this request could take). */
  | "409"
  /** 422: the key was used for another request. */
  | "422"
  /** A stale holder learns that another claim holds its key now. */
  | "fenced-out"
  /** A crash fault: the process kills itself. */
  | "crash"
  /** lose-response: the answer thrown away. */
  | "lost"
  /** The answer sent. */
  | "answer"
  /** The answer was ready but the client had gone. */
  | "hung-up"
  /** The handler's work failed. */
  | "failed";

/** What the server or the database says of one request: the sentence, and what it means as data. */
export interface Said {
  /** The sentence, in the reader's language. */
  text: string;
  what?: TrackerAction;
  mark?: Mark;
  /** The report inserted (or rolled back, or replaced). */
  report?: number;
  /** The HTTP status answered, lost, replayed or stored. */
  status?: number;
  /** The fencing token of the claim, where the variant has one (fenced; keyed on PostgreSQL). */
  fence?: number;
  /** The token of the claim taken over. */
  was?: number;
}

/** One line of the server's story, for the trace. */
export interface TrackerEvent extends Said {
  actor: "server" | "database";
  requestNo: number;
}

/** Prints the server's and the database's events. */
export function serverLog(trace: Trace): (e: TrackerEvent) => void {
  return (e) => trace.event(e.actor, `#${e.requestNo} ${e.text}`, e.mark);
}

/**
 * Prints the events of a tracker process that a supervisor starts again after it dies: the events
 * of the second process and later say "[restarted]" (its requests are numbered from #1 again).
 */
export function restartedLog(trace: Trace): (e: TrackerEvent, generation: number) => void {
  const log = serverLog(trace);
  return (e, generation) =>
    log(generation > 1 ? { ...e, text: t("[restarted] {text}", { text: e.text }) } : e);
}
