/**
 * Starting a TypeScript entry file of this project in a child process that does not outlive this
 * one: every child still running when this process exits is killed with SIGKILL. (A child should
 * also exit by itself when its IPC channel closes, for the case where this process is killed.)
 */
import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Runs `entry` (a .ts file) with `args` in a new Node process; `env` is added to this one's. */
export function spawnTsChild(
  entry: string,
  args: readonly string[],
  stdio: StdioOptions,
  env: NodeJS.ProcessEnv = {},
): ChildProcess {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const c of live) c.kill("SIGKILL");
    });
  }
  // Plain `node` runs the child: it strips the types itself, which starts faster than a loader (an
  // older Node without type stripping gets the tsx loader), and Node's compile cache, in its default
  // place, spares later children the work of the first.
  const loader = process.features.typescript ? [] : ["--import", "tsx"];
  const child = spawn(process.execPath, [...loader, entry, ...args], {
    stdio,
    env: { NODE_COMPILE_CACHE: join(tmpdir(), "node-compile-cache"), ...process.env, ...env },
  });
  live.add(child);
  child.once("close", () => live.delete(child));
  return child;
}

/** How many children this process started are still running (tests check that none is left). */
export function liveChildren(): number {
  return live.size;
}
