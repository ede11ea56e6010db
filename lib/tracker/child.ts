/**
 * The tracker in a child process, for the faults that kill the server: a crash fault makes the child
 * kill itself with SIGKILL at the crash point (`process.kill(process.pid, "SIGKILL")`), with no
 * chance to clean up, exactly as `kill -9` would. The database is a SQLite file (WAL), or a
 * PostgreSQL schema (`postgres`), so the parent can start a fresh child on the same database, the
 * restarted server, and see what survived; several children on one database are several instances.
 *
 * How parent and child talk (lib/core/child-pipe.ts):
 * - child → parent: one JSON line per message on a pipe (fd 3), written synchronously, so every
 *   event the child wrote before it died reaches the parent: "listening" (its URL), each
 *   TrackerEvent (for the trace), each stage a request reaches (for `reached`), acknowledgements;
 * - parent → child: IPC messages: set a fault, release a held request, set the clock, ping, close.
 * No child outlives its parent: the parent kills every live child when it exits, and a child whose
 * IPC channel closes (the parent died, even by SIGKILL) exits at once.
 */
import { fileURLToPath } from "node:url";
import { type ChildExit, spawnEntry } from "../core/child-pipe.ts";
import { Signals } from "../core/gate.ts";
import type { ChildConfig, FromChild, ToChild, WithoutId } from "./child-messages.ts";
import type { FaultName, Stage } from "./faults.ts";
import type { TrackerEvent } from "./narrate.ts";
import type { SideEffectsPlugin } from "./side-effects.ts";
import type { VariantName } from "./variant.ts";

export interface ChildTrackerOptions {
  variant?: VariantName;
  /** The SQLite file (a real file: the restarted server opens it again). Not with `postgres`. */
  db?: string;
  /**
   * A PostgreSQL URL whose search_path names a schema (lib/postgres/schema.ts `createSchema`): the
   * child keeps its reports and keys there. Children given the same URL share them: several
   * instances of one service. The tables are created by the first child (or PostgresStore.open).
   */
  postgres?: string;
  /** Port on 127.0.0.1; 0 (default) lets the system pick. Pass the old one to restart in place. */
  port?: number;
  leaseMs?: number;
  ttlMs?: number;
  /**
   * Gives the child a clock that only the parent moves (`setClock`), starting at this value in ms,
   * so that a lease runs out exactly when the parent says, not when a busy machine gets round to it.
   * Absent: the real clock.
   */
  clockMs?: number;
  /** Faults by request number, known from the start. */
  faults?: Record<number, FaultName>;
  /**
   * What the tracker does besides storing a report (side-effects.ts), as a module the child loads:
   * lesson 07 passes its notifier so. Absent: nothing.
   */
  sideEffects?: SideEffectsPlugin;
  /** Receives the child's events, in the order it wrote them. */
  onEvent?: (event: TrackerEvent) => void;
  /**
   * Holds the child still after each event until `onEvent` has returned, so that a stepper that
   * pauses in `onEvent` (lesson 08's --step, the demo page) pauses the tracker process too: what it
   * has done is then exactly what its events so far say. Default: the child runs on.
   */
  stepped?: boolean;
  /** How long start-up may take (default 15 s). */
  startTimeoutMs?: number;
  /**
   * For long runs (the chaos run): the child sends no events and of the stages only "arrived"
   * (`reached` resolves for that stage alone; onEvent hears nothing), and forgets each finished
   * request's stages, so that neither process grows with the number of requests. The parent keeps
   * one number, how many requests have arrived: the child numbers them as they arrive, so request
   * n has arrived once n requests have.
   */
  quiet?: boolean;
  /** The child entry to run instead of child-entry.ts: a bundle of it (lib/chaos/bundle.ts). */
  entry?: string;
}

export type { ChildExit };

export interface ChildTracker {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Resolves once the child is gone and everything it wrote has been read. */
  readonly exited: Promise<ChildExit>;
  /** Request `requestNo` suffers `fault` (resolves once the child has it). */
  setFault(requestNo: number, fault: FaultName): Promise<void>;
  /** Lets a held request go on. */
  release(requestNo: number): Promise<void>;
  /** Sets the child's clock (started with `clockMs`) to `ms`; resolves once the child has it. */
  setClock(ms: number): Promise<void>;
  /**
   * Resolves when request `requestNo` reaches `stage`; rejects if the child dies first. Requests are
   * numbered as they arrive: once request n has arrived, so have requests 1 to n.
   */
  reached(requestNo: number, stage: Stage): Promise<void>;
  hasReached(requestNo: number, stage: Stage): boolean;
  /** Resolves once every event the child wrote before this call has been delivered (or it died). */
  flush(): Promise<void>;
  /** Kills the child with SIGKILL from outside (kill -9) and waits until it is gone. */
  kill(): Promise<ChildExit>;
  /** Stops the child cleanly (it closes its server and database); SIGKILL if it does not. */
  close(): Promise<ChildExit>;
}

const ENTRY = fileURLToPath(new URL("./child-entry.ts", import.meta.url));

/** Starts a tracker in a child process and resolves once it listens. */
export async function startChildTracker(options: ChildTrackerOptions): Promise<ChildTracker> {
  if ((options.db === undefined) === (options.postgres === undefined))
    throw new Error("a child tracker needs either db (a SQLite file) or postgres (a URL)");
  const config: ChildConfig = {
    variant: options.variant ?? "naive",
    db: options.db ?? "",
    ...(options.postgres !== undefined ? { postgres: options.postgres } : {}),
    port: options.port ?? 0,
    faults: options.faults ?? {},
    ...(options.sideEffects !== undefined ? { sideEffects: options.sideEffects } : {}),
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}),
    ...(options.clockMs !== undefined ? { clockMs: options.clockMs } : {}),
    ...(options.quiet === true ? { quiet: true } : {}),
    ...(options.stepped ? { stepped: true } : {}),
  };
  const { child, exited } = spawnEntry<FromChild>(
    options.entry ?? ENTRY,
    JSON.stringify(config),
    receive,
    { stdin: options.stepped ? "pipe" : "ignore" },
  );
  child.stdin?.on("error", () => {}); // a "go on" to a child that has just died is nobody's error

  const stages = new Signals();
  // Quiet: how many requests have arrived, and who waits for how many.
  let arrivals = 0;
  let arrivalWaiters: Array<{ n: number; resolve: () => void }> = [];
  const acks = new Signals();
  let nextId = 0;
  let listening: ((m: { url: string; port: number }) => void) | undefined;
  let failed: ((message: string) => void) | undefined;
  const started = new Promise<{ url: string; port: number }>((resolve, reject) => {
    listening = resolve;
    failed = (message) => reject(new Error(`the tracker process did not start: ${message}`));
  });

  let gone = false;
  void exited.then(({ code, signal }) => {
    gone = true;
    arrivalWaiters = []; // each waits in a race with this exit, which has now answered it
    failed?.(`it exited (${signal ?? `code ${code}`})`);
  });
  child.on("error", (err) => failed?.(err.message));

  function receive(m: FromChild): void {
    switch (m.type) {
      case "listening":
        listening?.(m);
        return;
      case "failed":
        failed?.(m.message);
        return;
      case "event":
        options.onEvent?.(m.event);
        if (options.stepped) child.stdin?.write("g");
        return;
      case "stage":
        if (options.quiet === true) {
          // A quiet child tells of arrivals only, in the order it numbers them.
          arrivals = Math.max(arrivals, m.requestNo);
          if (arrivalWaiters.some((w) => w.n <= arrivals)) {
            const due = arrivalWaiters.filter((w) => w.n <= arrivals);
            arrivalWaiters = arrivalWaiters.filter((w) => w.n > arrivals);
            for (const w of due) w.resolve();
          }
          return;
        }
        stages.fire(`${m.requestNo}:${m.stage}`);
        return;
      case "ack":
        acks.fire(String(m.id));
        return;
    }
  }

  /** Sends a message and resolves on its acknowledgement, or when the child is gone. */
  function ask(message: WithoutId<ToChild>): Promise<void> {
    if (gone || !child.connected) return Promise.resolve();
    const id = ++nextId;
    child.send({ ...message, id } as ToChild, () => {});
    const acked = acks.when(String(id));
    void acked.then(() => acks.delete(String(id)));
    return Promise.race([acked, exited.then(() => undefined)]);
  }

  const timeoutMs = options.startTimeoutMs ?? 15_000;
  let timer: NodeJS.Timeout | undefined;
  let address: { url: string; port: number };
  try {
    address = await Promise.race([
      started,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the tracker process did not start within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (err) {
    child.kill("SIGKILL");
    await exited;
    throw err;
  } finally {
    clearTimeout(timer);
  }
  failed = undefined;

  return {
    url: address.url,
    port: address.port,
    pid: child.pid!,
    exited,
    setFault: (requestNo, fault) => ask({ type: "fault", requestNo, fault }),
    release: (requestNo) => ask({ type: "release", requestNo }),
    setClock(ms) {
      if (options.clockMs === undefined)
        throw new Error("setClock needs a tracker started with clockMs");
      return ask({ type: "clock", ms });
    },
    reached(requestNo, stage) {
      const name = `${requestNo}:${stage}`;
      if (options.quiet === true) {
        if (stage !== "arrived")
          throw new Error(`a quiet tracker process tells of arrivals only, not "${stage}"`);
        if (requestNo <= arrivals) return Promise.resolve();
        const arrived = new Promise<void>((resolve) =>
          arrivalWaiters.push({ n: requestNo, resolve }),
        );
        return Promise.race([
          arrived,
          exited.then(() => {
            if (requestNo > arrivals)
              throw new Error(
                `the tracker process exited before request ${requestNo} was ${stage}`,
              );
          }),
        ]);
      }
      return Promise.race([
        stages.when(name),
        exited.then(() => {
          if (stages.fired(name)) return;
          throw new Error(`the tracker process exited before request ${requestNo} was ${stage}`);
        }),
      ]);
    },
    hasReached: (requestNo, stage) =>
      options.quiet === true
        ? stage === "arrived" && requestNo <= arrivals
        : stages.fired(`${requestNo}:${stage}`),
    flush: () => ask({ type: "ping" }),
    async kill() {
      if (!gone) child.kill("SIGKILL");
      return exited;
    },
    async close() {
      if (!gone) {
        const stopper = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await ask({ type: "close" });
        await exited;
        clearTimeout(stopper);
      }
      return exited;
    },
  };
}
