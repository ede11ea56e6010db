// Helpers for the project's own tests: run a workbook command as a child process and collect its output.
import assert from "node:assert/strict";
import {
  type ChildProcessByStdio,
  type ChildProcessWithoutNullStreams,
  spawn,
} from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import { ROOT } from "../lib/runner/catalog.ts";
import { childEnv } from "../lib/runner/exercise-run.ts";

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

/**
 * Runs `node --import tsx <args>` in the project root, killing it after `timeoutMs`. Its output is
 * as wide as it likes (COLUMNS=1000) unless `env` says otherwise, so that tests that read a lesson's
 * lines read them whole, whatever terminal runs the tests; test/full/lessons-width.test.ts checks
 * the wrapping.
 */
export function runTs(
  args: string[],
  options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], {
      cwd: ROOT,
      env: childEnv({ NO_COLOR: "1", COLUMNS: "1000", ...options.env }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 30_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout,
        stderr,
        ms: Math.round(performance.now() - started),
        timedOut,
      });
    });
  });
}

/** The cells of the table row whose first cell starts with `label`. */
export function tableRow(output: string, label: string): string[] | undefined {
  const line = output.split("\n").find((l) => l.trim().startsWith(label) && l.includes("│"));
  return line?.split("│").map((c) => c.trim());
}

/**
 * The processes still running whose environment holds `marker` (e.g. "WORKBOOK_RUN_MARK=<id>", given
 * to a run through `env`: every child it starts inherits it). Linux only: reads /proc.
 */
export function processesMarked(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1");
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      if (environ.split("\0").includes(marker) && !/^\d+ \(.*\) Z/.test(stat))
        found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Whether `pid` runs: signal 0 reaches it and it is not a zombie waiting to be reaped. */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/**
 * Waits until `pid` no longer runs; fails after `ms`. A killed process disappears when the kernel
 * gets to it, after the kill has returned: this waits for that, with a deadline; it orders nothing.
 */
export async function gone(pid: number, what = "process", ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (running(pid)) {
    if (Date.now() > deadline) assert.fail(`${what} ${pid} still runs after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The URL a workbook server prints on its stdout (`http://127.0.0.1:<port>`), once it has. */
export function printedUrl(
  child: ChildProcessWithoutNullStreams | ChildProcessByStdio<null, Readable, Readable>,
): Promise<{ url: string; stdout: () => string }> {
  let stdout = "";
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(stdout);
      if (m !== null) resolve({ url: m[0], stdout: () => stdout });
    });
    child.on("exit", () => reject(new Error(`exited before printing its URL: ${stdout}`)));
  });
}
