/**
 * An outbox dispatcher on PostgreSQL as a separate process (postgres-dispatcher-entry.ts), one per
 * "instance", so that a lesson can run two side by side and kill one with SIGKILL in the middle of
 * its batch. The parent steps it, so that the order of events is decided by the lesson, not by the
 * scheduler: `take()` opens its transaction and locks a batch (FOR UPDATE SKIP LOCKED), `deliver()`
 * sends the batch and commits it. Each resolves when the process says it is done with the step.
 */
import { fileURLToPath } from "node:url";
import { type ChildExit, spawnEntry } from "../core/child-pipe.ts";
import { type Gate, gate } from "../core/gate.ts";
import type {
  FromPgDispatcher,
  PgDispatcherConfig,
  ToPgDispatcher,
} from "./postgres-dispatcher-messages.ts";

export interface PgDispatcher {
  readonly pid: number;
  /** The PostgreSQL backend serving its connection (pg_backend_pid()). */
  readonly backendPid: number;
  readonly exited: Promise<ChildExit>;
  /** Begins a transaction and locks a batch; resolves with the row ids it holds. */
  take(): Promise<number[]>;
  /**
   * Delivers the batch and commits; resolves with the rows marked sent. With `killAfterAccepted`,
   * the process kills itself (SIGKILL) once the notifier has accepted that row: resolves undefined.
   */
  deliver(killAfterAccepted?: number): Promise<number | undefined>;
  /** Ends the process cleanly. */
  stop(): Promise<ChildExit>;
}

const ENTRY = fileURLToPath(new URL("./postgres-dispatcher-entry.ts", import.meta.url));

/** Starts a dispatcher process; resolves once it is connected to PostgreSQL. */
export async function startPgDispatcher(
  config: PgDispatcherConfig,
  say?: (text: string, mark?: "ok" | "bad" | "warn") => void,
): Promise<PgDispatcher> {
  let waiting: Gate<FromPgDispatcher> | undefined = gate();
  let failure: string | undefined;
  const { child, exited } = spawnEntry<FromPgDispatcher>(ENTRY, JSON.stringify(config), (m) => {
    if (m.type === "say") say?.(m.text, m.mark);
    else if (m.type === "failed") failure = m.message;
    else waiting?.open(m);
  });
  void exited.then(() =>
    waiting?.open({ type: "failed", message: failure ?? "the dispatcher process is gone" }),
  );

  /** Sends a step and waits for the process's answer to it (or its end). */
  const step = async (message: ToPgDispatcher): Promise<FromPgDispatcher> => {
    waiting = gate();
    const answered = waiting.passed;
    child.send(message, () => {});
    return answered;
  };
  const ready = await waiting.passed;
  if (ready.type !== "ready")
    throw new Error(`the dispatcher did not start: ${failure ?? "it exited"}`);
  return {
    pid: child.pid!,
    backendPid: ready.backendPid,
    exited,
    async take() {
      const m = await step({ type: "take" });
      if (m.type !== "taken")
        throw new Error(`the dispatcher could not take a batch: ${failure ?? m.type}`);
      return m.rows;
    },
    async deliver(killAfterAccepted) {
      const m = await step(
        killAfterAccepted === undefined
          ? { type: "deliver" }
          : { type: "deliver", killAfterAccepted },
      );
      if (m.type === "committed") return m.delivered;
      if (killAfterAccepted !== undefined && (await exited).signal === "SIGKILL") return undefined;
      throw new Error(`the dispatcher failed: ${failure ?? m.type}`);
    },
    async stop() {
      if (child.connected) child.send({ type: "stop" } satisfies ToPgDispatcher, () => {});
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}
