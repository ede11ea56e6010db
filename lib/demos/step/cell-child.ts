/**
 * One cell of lesson 08's fault matrix, run in a process of its own for one session of the demo
 * page: `runCell` with a trace that pauses after every event, exactly as `npm run lesson 8 --
 * --step` does, except that the pause waits for a byte on stdin (the page's Step) instead of
 * Enter. While it waits the whole process stands still, agent and in-process tracker alike, and the
 * demo server reads the cell's SQLite file: what it finds is the database after that step.
 *
 * To the parent, one JSON line each on fd 3 (lib/core/child-pipe.ts): "started" (its PID and the cell's
 * file), each event, then "done" with the count, or "failed". From the parent: a byte on stdin
 * per step; stdin closed or the IPC channel gone: exit at once (the exit hook of lib/core/ts-child.ts
 * kills any tracker process this one started).
 */
import { readSync } from "node:fs";
import { join } from "node:path";
import type { PolicyName } from "../../client/client.ts";
import { tellParent } from "../../core/child-pipe.ts";
import { standStill } from "../../core/clock.ts";
import { Trace } from "../../core/trace.ts";
import { type CellEvent, cellDbName, runCell, type StepFault } from "../../matrix/matrix.ts";
import type { VariantName } from "../../tracker/variant.ts";

/** What the child is started with (its one argument, as JSON). */
export interface CellChildConfig {
  variant: VariantName;
  fault: StepFault;
  policy: PolicyName;
  seed: number;
  /** The session's scratch folder: the cell's SQLite file goes there. */
  dir: string;
}

/** Child → parent. */
export type FromCellChild =
  | { type: "started"; pid: number; db: string }
  | { type: "event"; event: CellEvent }
  | {
      type: "done";
      reports: number;
      verdict: "ok" | "duplicate" | "lost";
      fired: boolean;
      calls: string[][];
    }
  | { type: "failed"; message: string };

const tell = (m: FromCellChild): void => tellParent(m);

/** Waits, holding the process still, for the parent's next byte; stdin closed: the session is over. */
function waitForStep(): void {
  const buf = Buffer.alloc(1);
  let n = 0;
  standStill(() => {
    try {
      n = readSync(0, buf, 0, 1, null);
    } catch {
      n = 0;
    }
  });
  if (n === 0) process.exit(0);
}

process.on("disconnect", () => process.exit(0));

const config = JSON.parse(process.argv[2] ?? "{}") as CellChildConfig;
try {
  tell({
    type: "started",
    pid: process.pid,
    db: join(config.dir, cellDbName(config.variant, config.fault, config.policy)),
  });
  const trace = new Trace({ color: false, step: true, pause: waitForStep, write: () => {} });
  const result = await runCell(config.variant, config.fault, {
    dbPath: (name) => join(config.dir, name),
    seed: config.seed,
    policy: config.policy,
    trace,
    heading: false,
    stepped: true,
    onEvent: (event) => tell({ type: "event", event }),
  });
  tell({
    type: "done",
    reports: result.reports,
    verdict: result.verdict,
    fired: result.fired,
    calls: result.calls,
  });
  process.exit(0);
} catch (err) {
  tell({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}
