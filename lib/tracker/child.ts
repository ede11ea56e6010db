/**
 * The tracker in a child process, for the faults that kill the server: a crash fault makes the child
 * kill itself with SIGKILL at the crash point (`process.kill(process.pid, "SIGKILL")`), with no
 * chance to clean up, exactly as `kill -9` would. The database is a SQLite file (WAL), so the parent
 * can start a fresh child on the same file, the restarted server, and see what survived.
 *
 * How parent and child talk:
 * - child → parent: one JSON line per message on a pipe (fd 3), written synchronously, so every
 *   event the child wrote before it died reaches the parent: "listening" (its URL), each
 *   TrackerEvent (for the trace), each stage a request reaches (for `reached`), acknowledgements;
 * - parent → child: IPC messages: set a fault, release a held request, set the clock, ping, close.
 * No child outlives its parent: the parent kills every live child when it exits, and a child whose
 * IPC channel closes (the parent died, even by SIGKILL) exits at once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FaultName, Stage } from "../faults.ts";
import { Signals } from "../gate.ts";
import type { TrackerEvent } from "./service.ts";
import type { VariantName } from "./variant.ts";

/** What the child is started with (its one command-line argument, as JSON). */
export interface ChildConfig {
  variant: VariantName;
  db: string;
  port: number;
  leaseMs?: number;
  ttlMs?: number;
  /** A clock the parent sets (ms), starting here; absent: the real clock (Date.now). */
  clockMs?: number;
  faults: Record<number, FaultName>;
}

/** Parent → child, over IPC. Each carries an id that the child acknowledges. */
export type ToChild =
  | { type: "fault"; id: number; requestNo: number; fault: FaultName }
  | { type: "release"; id: number; requestNo: number }
  | { type: "clock"; id: number; ms: number }
  | { type: "ping"; id: number }
  | { type: "close"; id: number };

/** A message before the sender numbers it (Omit over each member of the union). */
type WithoutId<M> = M extends { id: number } ? Omit<M, "id"> : never;

/** Child → parent, one JSON line each on fd 3. */
export type FromChild =
  | { type: "listening"; url: string; port: number }
  | { type: "event"; event: TrackerEvent }
  | { type: "stage"; requestNo: number; stage: Stage }
  | { type: "ack"; id: number }
  | { type: "failed"; message: string };

export interface ChildTrackerOptions {
  variant?: VariantName;
  /** The SQLite file (a real file: the restarted server opens it again). */
  db: string;
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
  /** Receives the child's events, in the order it wrote them. */
  onEvent?: (event: TrackerEvent) => void;
  /** How long start-up may take (default 15 s). */
  startTimeoutMs?: number;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

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
  /** Resolves when request `requestNo` reaches `stage`; rejects if the child dies first. */
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
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Starts a tracker in a child process and resolves once it listens. */
export async function startChildTracker(options: ChildTrackerOptions): Promise<ChildTracker> {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const c of live) c.kill("SIGKILL");
    });
  }
  const config: ChildConfig = {
    variant: options.variant ?? "naive",
    db: options.db,
    port: options.port ?? 0,
    faults: options.faults ?? {},
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}),
    ...(options.clockMs !== undefined ? { clockMs: options.clockMs } : {}),
  };
  // Plain `node` runs the child: it strips the types itself, which starts faster than a loader (an
  // older Node without type stripping gets the tsx loader), and Node's compile cache, in its default
  // place, spares later children the work of the first.
  const loader = process.features.typescript ? [] : ["--import", "tsx"];
  const child = spawn(process.execPath, [...loader, ENTRY, JSON.stringify(config)], {
    stdio: ["ignore", "inherit", "inherit", "pipe", "ipc"],
    env: { NODE_COMPILE_CACHE: join(tmpdir(), "node-compile-cache"), ...process.env },
  });
  live.add(child);

  const stages = new Signals();
  const acks = new Signals();
  let nextId = 0;
  let listening: ((m: { url: string; port: number }) => void) | undefined;
  let failed: ((message: string) => void) | undefined;
  const started = new Promise<{ url: string; port: number }>((resolve, reject) => {
    listening = resolve;
    failed = (message) => reject(new Error(`the tracker process did not start: ${message}`));
  });

  const exited = new Promise<ChildExit>((resolve) => {
    // "close" comes after "exit" and after the child's pipes are drained: no message is left unread.
    child.once("close", (code, signal) => {
      live.delete(child);
      failed?.(`it exited (${signal ?? `code ${code}`})`);
      resolve({ code, signal });
    });
  });
  let gone = false;
  void exited.then(() => (gone = true));
  child.on("error", (err) => failed?.(err.message));

  let buffered = "";
  const events = child.stdio[3] as NodeJS.ReadableStream;
  events.setEncoding("utf8");
  events.on("data", (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() !== "") receive(JSON.parse(line) as FromChild);
    }
  });

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
        return;
      case "stage":
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
    return Promise.race([acks.when(String(id)), exited.then(() => undefined)]);
  }

  const timeoutMs = options.startTimeoutMs ?? 15_000;
  let timer: NodeJS.Timeout | undefined;
  let address: { url: string; port: number };
  try {
    address = await Promise.race([
      started,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the tracker process did not start within ${timeoutMs} ms`)), timeoutMs);
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
      if (options.clockMs === undefined) throw new Error("setClock needs a tracker started with clockMs");
      return ask({ type: "clock", ms });
    },
    reached(requestNo, stage) {
      const name = `${requestNo}:${stage}`;
      return Promise.race([
        stages.when(name),
        exited.then(() => {
          if (stages.fired(name)) return;
          throw new Error(`the tracker process exited before request ${requestNo} was ${stage}`);
        }),
      ]);
    },
    hasReached: (requestNo, stage) => stages.fired(`${requestNo}:${stage}`),
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
