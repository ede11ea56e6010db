/**
 * Several tracker processes over one SQLite file (WAL), or one PostgreSQL schema, each on its own
 * port of 127.0.0.1, and a supervisor for each: a process that dies (a crash fault, a kill -9) is
 * started again on the same port and the same database, as a service manager would. Unlike lib/tracker/supervisor.ts, which waits
 * for one restart a lesson asks for, this keeps every process alive until the fleet is closed.
 */
import { type ChildTracker, startChildTracker } from "../tracker/child.ts";
import type { VariantName } from "../tracker/variant.ts";

export interface FleetOptions {
  variant: VariantName;
  /** The SQLite file every process opens (or, with `postgres`, none). */
  db?: string;
  /** The PostgreSQL URL (a schema) every process opens, instead of a SQLite file. */
  postgres?: string;
  processes: number;
  leaseMs?: number;
  /** The child entry to start (a bundle, lib/chaos/bundle.ts); default the TypeScript one. */
  entry?: string;
}

/** One supervised place in the fleet: a port, and whichever process serves it now. */
export interface Backend {
  readonly index: number;
  readonly port: number;
  /** The process serving now, or undefined while a new one starts. */
  readonly current: ChildTracker | undefined;
  /** 1 for the first process, 2 after one restart, … */
  readonly generation: number;
}

export interface Fleet {
  readonly backends: readonly Backend[];
  /** How many processes died and were started again. */
  readonly restarts: number;
  /** Whether this process is still the one serving (it has not died). */
  isLive(tracker: ChildTracker): boolean;
  /** Resolves once some backend has a live process (at once if one has). */
  anyLive(): Promise<void>;
  /** Resolves once every backend has a live process. */
  allLive(): Promise<void>;
  /** Kills the backend's process with SIGKILL (it is then started again). */
  kill(backend: Backend): Promise<void>;
  /** Stops every process cleanly and restarts none. */
  close(): Promise<void>;
}

interface Slot {
  index: number;
  port: number;
  current: ChildTracker | undefined;
  generation: number;
  /** The supervising loop; ends when the fleet closes. */
  loop: Promise<void>;
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const start = (port: number): Promise<ChildTracker> =>
    startChildTracker({
      variant: options.variant,
      ...(options.postgres !== undefined
        ? { postgres: options.postgres }
        : { db: options.db ?? "" }),
      port,
      quiet: true,
      ...(options.entry !== undefined ? { entry: options.entry } : {}),
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    });
  const dead = new WeakSet<ChildTracker>();
  let closing = false;
  let restarts = 0;
  /** Set when a process could not be started again: every wait then fails with it. */
  let broken: Error | undefined;
  let waiters: Array<() => void> = [];
  const changed = (): void => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  const until = async (ready: () => boolean): Promise<void> => {
    for (;;) {
      if (broken) throw broken;
      if (ready()) return;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };

  // The first process alone creates what is missing of the schema; the others then start together.
  const first = await start(0);
  const rest = await Promise.all(Array.from({ length: options.processes - 1 }, () => start(0)));
  const slots: Slot[] = [first, ...rest].map((tracker, index) => ({
    index,
    port: tracker.port,
    current: tracker,
    generation: 1,
    loop: Promise.resolve(),
  }));

  async function supervise(slot: Slot): Promise<void> {
    for (;;) {
      const tracker = slot.current!;
      await tracker.exited;
      dead.add(tracker);
      slot.current = undefined;
      changed();
      if (closing) return;
      restarts += 1;
      // The port is free once the process is gone; a start that fails (rarely: the port not yet
      // released) is tried again, a few times.
      for (let tries = 1; ; tries++) {
        try {
          slot.current = await start(slot.port);
          break;
        } catch (err) {
          if (tries >= 5 || closing) throw err;
        }
      }
      slot.generation += 1;
      if (closing) {
        await slot.current.close();
        return;
      }
      changed();
    }
  }
  for (const slot of slots) {
    slot.loop = supervise(slot).catch((err: unknown) => {
      broken = new Error(
        `tracker process ${slot.index + 1} could not be started again: ${err instanceof Error ? err.message : String(err)}`,
      );
      changed();
    });
  }

  return {
    backends: slots,
    get restarts() {
      return restarts;
    },
    isLive: (tracker) => !dead.has(tracker) && slots.some((s) => s.current === tracker),
    anyLive: () => until(() => slots.some((s) => s.current !== undefined)),
    allLive: () => until(() => slots.every((s) => s.current !== undefined)),
    async kill(backend) {
      await slots[backend.index]!.current?.kill();
    },
    async close() {
      closing = true;
      await Promise.all(slots.map((s) => s.current?.close()));
      await Promise.all(slots.map((s) => s.loop));
    },
  };
}
