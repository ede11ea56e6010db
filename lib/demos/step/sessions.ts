/**
 * The demo page's sessions: each browser tab that opens /step gets one, and with it its own
 * process running one cell of lesson 08 (cell-child.ts), its own scratch folder with the cell's
 * SQLite file, and the tracker processes the cell starts. Nothing is shared between sessions, so
 * two tabs stepping two cells at once cannot disturb each other.
 *
 * A session's process stops after every event and waits for the page's Step. While it waits, the
 * session reads the cell's SQLite file (the count of reports, the idempotency-key rows): that is
 * the database after this step. Only then does the event go to the page, with what was read.
 *
 * Limits: at most `max` sessions (8) at once; a session idle for `idleMs` (10 minutes), or whose
 * tab went away, is stopped: its process and the tracker processes under it end, and its folder
 * is deleted. `stopAll()` does the same for every session (the server's shutdown).
 *
 * A server killed with SIGKILL stops nothing. Its sessions' processes still end (each exits when its
 * IPC channel and stdin close, and its exit kills the tracker processes it started), but their
 * folders stay. So a session's folder carries the server's PID in its name, and a new StepSessions
 * (the next `npm run demos`) deletes every session folder whose server no longer runs.
 */

import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import type { PolicyName } from "../../client/client.ts";
import { onJsonLines } from "../../core/child-pipe.ts";
import { spawnTsChild } from "../../core/ts-child.ts";
import type { CellEvent, StepFault } from "../../matrix/matrix.ts";
import type { VariantName } from "../../tracker/variant.ts";
import type { Lang } from "../lang.ts";
import type { CellChildConfig, FromCellChild } from "./cell-child.ts";

export const MAX_SESSIONS = 8;

/** A session's folder: `<tmp>/retry-workbook-step-<server's PID>-XXXXXX`. */
const FOLDER_PREFIX = "retry-workbook-step-";

/** Whether process `pid` runs (a zombie does not). */
function runs(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true; // no /proc: kill(pid, 0) said it is there
  }
}

/**
 * Deletes the session folders in `dir` whose server is gone (killed with SIGKILL, which left them);
 * returns their paths. A folder of a server that still runs is left alone.
 */
export function sweepLeftSessions(dir = tmpdir()): string[] {
  const swept: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return swept;
  }
  for (const name of names) {
    const m = /^retry-workbook-step-(\d+)-/.exec(name);
    if (m === null || Number(m[1]) === process.pid || runs(Number(m[1]))) continue;
    const path = join(dir, name);
    rmSync(path, { recursive: true, force: true });
    swept.push(path);
  }
  return swept;
}
export const IDLE_MS = 10 * 60_000;

export interface CellChoice {
  variant: VariantName;
  fault: StepFault;
  policy: PolicyName;
}

/** An idempotency-key row as the page shows it. */
export interface KeyRowView {
  key: string;
  state: string;
  fence: number;
  leaseUntil: number;
  status: number | null;
}

/** What the session read from the cell's SQLite file while the cell stood still. */
export interface DbSnapshot {
  reports: number;
  keys: KeyRowView[];
}

/** One step for the page: the event and the database after it. */
export interface StepMessage {
  event: CellEvent;
  db: DbSnapshot;
}

/** The end of the cell: its verdict, with the count read from the file once every process was gone. */
export interface DoneMessage {
  reports: number;
  verdict: "ok" | "duplicate" | "lost";
  fired: boolean;
  calls: string[][];
  steps: number;
}

/** What a session sends to its page, in order. */
export type SessionMessage =
  | { type: "step"; step: StepMessage }
  | { type: "done"; done: DoneMessage }
  | { type: "failed"; message: string }
  | { type: "gone" };

const CHILD_ENTRY = fileURLToPath(new URL("./cell-child.ts", import.meta.url));

export interface SessionsOptions {
  max?: number;
  idleMs?: number;
  /** The agent's seed in every cell (keys are drawn from it); default 1, as lesson 08's. */
  seed?: number;
}

export class StepSessions {
  readonly #sessions = new Map<string, StepSession>();
  readonly #max: number;
  readonly #idleMs: number;
  readonly #seed: number;
  #closed = false;

  constructor(options: SessionsOptions = {}) {
    sweepLeftSessions();
    this.#max = options.max ?? MAX_SESSIONS;
    this.#idleMs = options.idleMs ?? IDLE_MS;
    this.#seed = options.seed ?? 1;
  }

  get size(): number {
    return this.#sessions.size;
  }

  get max(): number {
    return this.#max;
  }

  /**
   * A new session running `cell`, or undefined when `max` sessions are running already. Its process
   * speaks `lang` (WORKBOOK_LANG): the trace lines it tells, which the page shows as the terminal's.
   */
  create(cell: CellChoice, lang: Lang = "en"): StepSession | undefined {
    if (this.#closed || this.#sessions.size >= this.#max) return undefined;
    // 128 random bits, URL-safe: a session cannot be guessed from another's id.
    const id = randomBytes(16).toString("base64url");
    const session = new StepSession(id, cell, lang, this.#seed, this.#idleMs, () =>
      this.#sessions.delete(id),
    );
    this.#sessions.set(id, session);
    return session;
  }

  get(id: string): StepSession | undefined {
    return this.#sessions.get(id);
  }

  /** Stops every session and refuses new ones. */
  async stopAll(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#sessions.values()].map((s) => s.stop()));
  }
}

export class StepSession {
  readonly id: string;
  readonly cell: CellChoice;
  /** The language of the trace lines the cell's process tells (the page's). */
  readonly lang: Lang;
  /** The session's scratch folder (deleted when it stops). */
  readonly dir: string;
  /** The cell's SQLite file, once the process said where. */
  db: string | undefined;
  /** The session process's PID (the in-process tracker runs there too). */
  readonly pid: number;
  /** Every tracker process PID the cell started (crash cells). */
  readonly trackerPids = new Set<number>();
  /** The steps the page has been sent. */
  readonly shown: StepMessage[] = [];
  done: DoneMessage | undefined;
  failed: string | undefined;
  /** Stopped: its process is gone (or going) and its folder deleted. */
  stopped = false;
  /** Resolves once a stop is complete: the process gone, the folder deleted. */
  readonly ended: Promise<void>;
  #ended!: () => void;

  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  /** The next step, read while the process stands still after it; at most one. */
  #ready: StepMessage | undefined;
  #wanted = 0;
  #running = false;
  readonly #listeners = new Set<(m: SessionMessage) => void>();
  readonly #idleMs: number;
  #idle: NodeJS.Timeout | undefined;
  readonly #forget: () => void;
  /** The process said "done" or "failed". */
  #finished = false;

  constructor(
    id: string,
    cell: CellChoice,
    lang: Lang,
    seed: number,
    idleMs: number,
    forget: () => void,
  ) {
    this.id = id;
    this.cell = cell;
    this.lang = lang;
    this.#idleMs = idleMs;
    this.#forget = forget;
    this.ended = new Promise((resolve) => (this.#ended = resolve));
    this.dir = mkdtempSync(join(tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
    const config: CellChildConfig = { ...cell, seed, dir: this.dir };
    // stdin: one byte per step; fd 3: the child's JSON lines; IPC: only so that it notices we are gone.
    // The page's language goes down to the cell (and to any tracker process it starts) the way a
    // command hands its --lang to its children.
    this.#child = spawnTsChild(
      CHILD_ENTRY,
      [JSON.stringify(config)],
      ["pipe", "ignore", "inherit", "pipe", "ipc"],
      { WORKBOOK_LANG: lang },
    );
    this.pid = this.#child.pid ?? 0;
    // Gone: exited, and every line it wrote read. (Not "close": when the parent disconnects the IPC
    // channel while the child exits, Node may never emit it.)
    this.#exited = Promise.all([
      new Promise((resolve) => this.#child.once("exit", resolve)),
      new Promise((resolve) => this.#child.stdio[3]?.once("close", resolve)),
    ]).then(() => undefined);
    this.#child.stdin?.on("error", () => {}); // writing to a process that just died is not our error
    void this.#exited.then(() => {
      if (!this.#finished && !this.stopped)
        this.#fail("the cell's process ended before the cell did");
    });
    onJsonLines<FromCellChild>(this.#child.stdio[3] as NodeJS.ReadableStream, (m) =>
      this.#receive(m),
    );
    this.touch();
  }

  /** Resets the idle timer (every request of the page does). */
  touch(): void {
    clearTimeout(this.#idle);
    if (this.stopped) return;
    this.#idle = setTimeout(() => void this.stop(), this.#idleMs);
    this.#idle.unref();
  }

  /** The page wants one more step. */
  step(): void {
    this.#wanted += 1;
    this.touch();
    this.#pump();
  }

  /** The page wants every step to the end. */
  run(): void {
    this.#running = true;
    this.touch();
    this.#pump();
  }

  /** Receives every message from now on; returns the function that stops that. */
  listen(listener: (m: SessionMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Ends the process (and, through it, its tracker processes), deletes the folder. Safe to call twice. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      clearTimeout(this.#idle);
      this.#forget();
      // A process waiting for its next step reads the end of stdin and exits; one busy in a step
      // notices the IPC channel closing. Either way its exit hook kills its tracker processes.
      this.#child.stdin?.end();
      if (this.#child.connected) this.#child.disconnect();
      const killer = setTimeout(() => this.#child.kill("SIGKILL"), 5_000);
      await this.#exited;
      clearTimeout(killer);
      rmSync(this.dir, { recursive: true, force: true });
      this.#broadcast({ type: "gone" });
      this.#listeners.clear();
      this.#ended();
    }
    await this.#exited;
  }

  #receive(m: FromCellChild): void {
    switch (m.type) {
      case "started":
        this.db = m.db;
        return;
      case "event":
        if (m.event.pid !== undefined && m.event.pid !== this.pid && m.event.pid > 0)
          this.trackerPids.add(m.event.pid);
        // The process stands still right after telling this event: read the database now.
        this.#ready = { event: m.event, db: this.#snapshot() };
        this.#pump();
        return;
      case "done":
        this.#finished = true;
        void this.#exited.then(() => {
          if (this.stopped) return;
          // Every process of the cell is gone: count in the file itself.
          this.done = {
            reports: this.#snapshot().reports,
            verdict: m.verdict,
            fired: m.fired,
            calls: m.calls,
            steps: this.shown.length,
          };
          this.#broadcast({ type: "done", done: this.done });
        });
        return;
      case "failed":
        this.#finished = true;
        this.#fail(m.message);
        return;
    }
  }

  #fail(message: string): void {
    this.failed = message;
    this.#broadcast({ type: "failed", message });
  }

  /** Sends the ready step if the page asked for one, and lets the process go on to the next. */
  #pump(): void {
    if (this.stopped || this.#ready === undefined || (this.#wanted === 0 && !this.#running)) return;
    const step = this.#ready;
    this.#ready = undefined;
    if (this.#wanted > 0) this.#wanted -= 1;
    this.shown.push(step);
    this.#broadcast({ type: "step", step });
    this.#child.stdin?.write("g");
  }

  #broadcast(m: SessionMessage): void {
    for (const l of this.#listeners) l(m);
  }

  /** The cell's SQLite file as it is now: reports, and the idempotency-key rows (keyed variants). */
  #snapshot(): DbSnapshot {
    if (this.db === undefined || !existsSync(this.db)) return this.#last;
    try {
      this.#last = readDb(this.db);
    } catch {
      // A file still being created by a tracker process: keep the last reading.
    }
    return this.#last;
  }
  #last: DbSnapshot = { reports: 0, keys: [] };
}

/** Reads a cell's file: `SELECT count(*) FROM reports` and the key rows. */
export function readDb(path: string): DbSnapshot {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const reports = Number(
      (db.prepare("SELECT count(*) AS n FROM reports").get() as { n: number }).n,
    );
    let keys: KeyRowView[] = [];
    const hasKeys = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idempotency_keys'")
      .get();
    if (hasKeys) {
      keys = (
        db
          .prepare(
            "SELECT key, state, fence, lease_until, status FROM idempotency_keys ORDER BY fence",
          )
          .all() as unknown as Array<{
          key: string;
          state: string;
          fence: number;
          lease_until: number;
          status: number | null;
        }>
      ).map((r) => ({
        key: r.key.slice(0, 8),
        state: r.state,
        fence: Number(r.fence),
        leaseUntil: Number(r.lease_until),
        status: r.status === null ? null : Number(r.status),
      }));
    }
    return { reports, keys };
  } finally {
    db.close();
  }
}
