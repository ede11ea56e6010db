/**
 * The tracker's side of a lesson's trace: what the server and the database did, request by request
 * (the agent tells its own side: lib/client/narrate.ts).
 */
import type { Trace } from "../core/trace.ts";

/** One line of the server's story, for the trace. */
export interface TrackerEvent {
  actor: "server" | "database";
  requestNo: number;
  text: string;
  mark?: "ok" | "bad" | "warn";
}

/** Prints the server's and the database's events. */
export function serverLog(trace: Trace): (e: TrackerEvent) => void {
  return (e) => trace.event(e.actor, `#${e.requestNo} ${e.text}`, e.mark);
}
