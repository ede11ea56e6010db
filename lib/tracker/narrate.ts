/**
 * The tracker's side of a lesson's trace: what the server and the database did, request by request
 * (the agent tells its own side: lib/client/narrate.ts).
 */
import type { Trace } from "../core/trace.ts";
import type { TrackerEvent } from "./service.ts";

/** Prints the server's and the database's events. */
export function serverLog(trace: Trace): (e: TrackerEvent) => void {
  return (e) => trace.event(e.actor, `#${e.requestNo} ${e.text}`, e.mark);
}
