/**
 * The child side of child.ts: starts the tracker over a SQLite file (or a PostgreSQL schema), tells the parent its URL and
 * every event on fd 3, obeys the parent's IPC messages, and on a crash fault kills itself with
 * SIGKILL at the crash point. Not meant to be run by hand: `npm run tracker` is the standalone one.
 */
import { readSync } from "node:fs";
import { tellParent } from "../core/child-pipe.ts";
import type { ChildConfig, FromChild, ToChild } from "./child-messages.ts";
import { Faults, type Stage } from "./faults.ts";
import type { TrackerEvent } from "./narrate.ts";
import { startTracker } from "./service.ts";
import type { SideEffects, SideEffectsModule } from "./side-effects.ts";

/** Every message to the parent goes out synchronously (lib/core/child-pipe.ts), so none is lost to a SIGKILL. */
const tell = (message: FromChild): void => tellParent(message);

/** Stepped: the parent's "go on" after an event, one byte on stdin; the whole process waits for it. */
function waitForParent(): void {
  const buf = Buffer.alloc(1);
  try {
    if (readSync(0, buf, 0, 1, null) === 1) return;
  } catch {
    // stdin gone: the parent is gone
  }
  process.exit(0);
}

/** Faults that also tell the parent each stage a request reaches (a quiet child: "arrived" only). */
class ForwardingFaults extends Faults {
  mark(requestNo: number, stage: Stage): void {
    super.mark(requestNo, stage);
    // A quiet child still says "arrived": the chaos proxy sends a process its next request only then.
    if (!config.quiet || stage === "arrived") tell({ type: "stage", requestNo, stage });
  }
}

// The parent is gone (its IPC channel closed, even if it was killed): do not outlive it.
process.on("disconnect", () => process.exit(0));

const config = JSON.parse(process.argv[2] ?? "{}") as ChildConfig;
const faults = new ForwardingFaults(config.faults);
// A quiet child may serve for a long time: it remembers only its last finished requests.
if (config.quiet) faults.keepLast(1000);
// The parent's clock, when it keeps one: it moves only when the parent says so.
let clock = config.clockMs;

// No top-level await: the chaos run bundles this file as CommonJS, which starts faster (lib/chaos/bundle.ts).
async function start(): Promise<void> {
  // The side effects come as a module to load (its URL) and its config: a function cannot cross
  // into another process, and the tracker names no module of the folders above it.
  let sideEffects: SideEffects | undefined;
  if (config.sideEffects) {
    const plugin = (await import(config.sideEffects.module)) as SideEffectsModule;
    sideEffects = plugin.sideEffects(config.sideEffects.config);
  }
  const tracker = await startTracker({
    variant: config.variant,
    db: config.db,
    ...(config.postgres !== undefined ? { postgres: config.postgres } : {}),
    port: config.port,
    faults,
    ...(sideEffects ? { sideEffects } : {}),
    ...(config.leaseMs !== undefined ? { leaseMs: config.leaseMs } : {}),
    ...(config.ttlMs !== undefined ? { ttlMs: config.ttlMs } : {}),
    ...(clock !== undefined ? { now: () => clock! } : {}),
    ...(config.quiet
      ? {}
      : {
          onEvent: (event: TrackerEvent) => {
            tell({ type: "event", event });
            if (config.stepped) waitForParent();
          },
        }),
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
}
start().catch((err: unknown) => {
  tell({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
