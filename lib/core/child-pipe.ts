/**
 * A TypeScript module of this project run as a child process that reports to its parent, for the
 * processes a lesson kills with SIGKILL (the tracker, the outbox dispatcher):
 *
 * - child → parent: one JSON line per message on a pipe (fd 3), written synchronously (`tellParent`),
 *   so every message the child wrote before it died reaches the parent, a SIGKILL notwithstanding;
 * - parent → child: IPC messages (`child.send`), when the child needs telling anything;
 * - no child outlives its parent: the parent kills every live child when it exits, and a child
 *   should exit when its IPC channel closes (`process.on("disconnect", …)`).
 */
import type { ChildProcess } from "node:child_process";
import { writeSync } from "node:fs";
import { spawnTsChild } from "./ts-child.ts";

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnedChild {
  readonly child: ChildProcess;
  /** Resolves once the child is gone and every line it wrote has been delivered. */
  readonly exited: Promise<ChildExit>;
}

const EVENTS_FD = 3;

/**
 * Starts `entry` (a .ts file) with one command-line argument, `arg`, and calls `onMessage` with
 * each JSON line the child tells, in order.
 */
export function spawnEntry<M>(
  entry: string,
  arg: string,
  onMessage: (message: M) => void,
  options: { stdin?: "ignore" | "pipe" } = {},
): SpawnedChild {
  const child = spawnTsChild(
    entry,
    [arg],
    [options.stdin ?? "ignore", "inherit", "inherit", "pipe", "ipc"],
  );
  const exited = new Promise<ChildExit>((resolve) => {
    // "close" comes after "exit" and after the child's pipes are drained: no message is left unread.
    child.once("close", (code, signal) => resolve({ code, signal }));
  });

  onJsonLines(child.stdio[EVENTS_FD] as NodeJS.ReadableStream, onMessage);
  return { child, exited };
}

export { liveChildren } from "./ts-child.ts";

/** Reads a stream of JSON lines (what a child tells its parent on fd 3): one message per non-empty line. */
export function onJsonLines<M>(
  stream: NodeJS.ReadableStream,
  onMessage: (message: M) => void,
): void {
  let buffered = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() !== "") onMessage(JSON.parse(line) as M);
    }
  });
}

/**
 * The child's side: writes one message synchronously, so it is in the pipe before anything else
 * happens, a SIGKILL included. The pipe may be non-blocking: a full one (EAGAIN) is retried after a
 * short pause.
 */
export function tellParent(message: unknown): void {
  const bytes = Buffer.from(`${JSON.stringify(message)}\n`);
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
