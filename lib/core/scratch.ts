/**
 * Temporary folders that go away on every way out of the process: the normal end, an error, a closed
 * pipe (`npm run lesson 2 | head` exits through process.exit) and Ctrl-C or a kill (SIGINT, SIGTERM,
 * SIGHUP). Only SIGKILL leaves one behind. The lessons keep their SQLite files in such folders.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const live = new Set<string>();
const cleanups = new Set<() => void>();
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
let installed = false;

function removeAll(): void {
  // First what runs in those folders (a database server), then the folders.
  for (const fn of [...cleanups]) {
    try {
      fn();
    } catch {
      // a clean-up that fails must not keep the others from running
    }
  }
  cleanups.clear();
  for (const dir of live) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  live.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", removeAll);
  for (const signal of SIGNALS) {
    // After the clean-up the signal is raised again with no handler left, so the process ends as the
    // signal says (a parent sees "killed by SIGINT", exit status 130 in a shell) and its children,
    // which got the same signal from the terminal, are not waited for.
    process.once(signal, () => {
      removeAll();
      process.kill(process.pid, signal);
    });
  }
}

/** A new folder `<tmp>/<prefix>XXXXXX`, removed by `remove()` or, at the latest, when the process ends. */
export function tempFolder(prefix: string): { dir: string; remove: () => void } {
  install();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  live.add(dir);
  return {
    dir,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      live.delete(dir);
    },
  };
}

/**
 * `fn` runs, synchronously, on every way out of the process, before the temp folders are removed
 * (for something that lives in one, such as a database server). Returns a function that unregisters it.
 */
export function onExitCleanup(fn: () => void): () => void {
  install();
  cleanups.add(fn);
  return () => {
    cleanups.delete(fn);
  };
}

/** A temporary folder for SQLite files, removed by `remove()` or, on any exit or Ctrl-C, as every tempFolder is. */
export function scratchDir(): { path: (name: string) => string; remove: () => void } {
  const { dir, remove } = tempFolder("retry-workbook-");
  return { path: (name) => join(dir, name), remove };
}
