/**
 * A supervisor for a tracker process: when the process dies (a crash fault, a kill -9), it starts a
 * fresh one on the same SQLite file and the same port, as a service manager would. The URL stays the
 * same, so the agent's retry needs no new address, only to wait until the new process listens.
 *
 * The fault plan applies to the first process only: the restarted one starts clean, with its own
 * request numbers from #1. A clock the parent keeps (`clockMs`, `setClock`) carries over: the new
 * process starts at the time the last one was told, so a lease claimed before the crash runs out
 * when it would have.
 */
import {
  type ChildExit,
  type ChildTracker,
  type ChildTrackerOptions,
  startChildTracker,
} from "./child.ts";
import type { TrackerEvent } from "./narrate.ts";

export interface SupervisedOptions extends Omit<ChildTrackerOptions, "onEvent" | "port"> {
  /** Receives every process's events, with the process's generation (1 for the first). */
  onEvent?: (event: TrackerEvent, generation: number) => void;
}

export interface SupervisedTracker {
  /** The same for every generation. */
  readonly url: string;
  /** The process serving now. */
  readonly current: ChildTracker;
  /** 1 for the first process, 2 after one restart, … */
  readonly generation: number;
  /** Sets the clock of the current process and of every later one (needs `clockMs`). */
  setClock(ms: number): Promise<void>;
  /** Waits until the current process has died, starts the next, and says how the last one ended. */
  restartAfterExit(): Promise<ChildExit>;
  /** Stops the current process. */
  close(): Promise<ChildExit>;
}

export async function superviseTracker(options: SupervisedOptions): Promise<SupervisedTracker> {
  const { onEvent, faults, ...rest } = options;
  let generation = 1;
  let clockMs = options.clockMs;
  const start = (
    g: number,
    port: number,
    plan: ChildTrackerOptions["faults"],
  ): Promise<ChildTracker> =>
    startChildTracker({
      ...rest,
      port,
      ...(clockMs !== undefined ? { clockMs } : {}),
      ...(plan ? { faults: plan } : {}),
      ...(onEvent ? { onEvent: (e: TrackerEvent) => onEvent(e, g) } : {}),
    });
  let current = await start(1, 0, faults);
  const port = current.port;
  return {
    url: current.url,
    get current() {
      return current;
    },
    get generation() {
      return generation;
    },
    setClock(ms) {
      if (clockMs === undefined) throw new Error("setClock needs a tracker started with clockMs");
      clockMs = ms;
      return current.setClock(ms);
    },
    async restartAfterExit() {
      const exit = await current.exited;
      generation += 1;
      current = await start(generation, port, undefined);
      return exit;
    },
    close: () => current.close(),
  };
}
