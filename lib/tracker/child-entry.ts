/**
 * The child side of child.ts: starts the tracker over a SQLite file, tells the parent its URL and
 * every event on fd 3, obeys the parent's IPC messages, and on a crash fault kills itself with
 * SIGKILL at the crash point. Not meant to be run by hand: `npm run tracker` is the standalone one.
 */
import { writeSync } from "node:fs";
import { Faults, type Stage } from "../faults.ts";
import type { ChildConfig, FromChild, ToChild } from "./child.ts";
import { startTracker } from "./service.ts";

const EVENTS_FD = 3;

/**
 * Writes one message synchronously, so it is in the pipe before anything else happens, a SIGKILL
 * included. The pipe may be non-blocking: a full one (EAGAIN) is retried after a short pause.
 */
function tell(message: FromChild): void {
  const bytes = Buffer.from(JSON.stringify(message) + "\n");
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(EVENTS_FD, bytes, offset);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/** Faults that also tell the parent each stage a request reaches. */
class ForwardingFaults extends Faults {
  mark(requestNo: number, stage: Stage): void {
    super.mark(requestNo, stage);
    tell({ type: "stage", requestNo, stage });
  }
}

// The parent is gone (its IPC channel closed, even if it was killed): do not outlive it.
process.on("disconnect", () => process.exit(0));

const config = JSON.parse(process.argv[2] ?? "{}") as ChildConfig;
const faults = new ForwardingFaults(config.faults);
// The parent's clock, when it keeps one: it moves only when the parent says so.
let clock = config.clockMs;
try {
  const tracker = await startTracker({
    variant: config.variant,
    db: config.db,
    port: config.port,
    faults,
    ...(config.leaseMs !== undefined ? { leaseMs: config.leaseMs } : {}),
    ...(config.ttlMs !== undefined ? { ttlMs: config.ttlMs } : {}),
    ...(clock !== undefined ? { now: () => clock! } : {}),
    onEvent: (event) => tell({ type: "event", event }),
    // The crash: no unwinding, no closing, no answer; the event saying so is already in the pipe.
    crash: () => process.kill(process.pid, "SIGKILL"),
  });
  process.on("message", (m: ToChild) => {
    switch (m.type) {
      case "fault":
        faults.at(m.requestNo, m.fault);
        break;
      case "release":
        faults.release(m.requestNo);
        break;
      case "clock":
        clock = m.ms;
        break;
      case "ping":
        break;
      case "close":
        void tracker.close().then(() => {
          tell({ type: "ack", id: m.id });
          process.exit(0);
        });
        return;
    }
    tell({ type: "ack", id: m.id });
  });
  tell({ type: "listening", url: tracker.url, port: tracker.port });
} catch (err) {
  tell({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}
