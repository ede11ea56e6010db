/**
 * Runs one exercise's tests (node:test in a child process) against the learner's file or the
 * reference answer, and says whether they passed and, if not, which test failed first and why.
 */
import { spawn } from "node:child_process";
import { sep } from "node:path";
import type { Exercise } from "../catalog.ts";
import { ROOT } from "../catalog.ts";
import type { Target } from "../exercise-target.ts";

export interface ExerciseResult {
  exercise: Exercise;
  passed: boolean;
  /** The first failing test and its error message. */
  firstFailure?: { test: string; error: string };
  /** How many tests ran, passed and failed, from node:test's summary (absent when it printed none). */
  counts?: { tests: number; pass: number; fail: number };
  /** True when the run was stopped for taking too long. */
  timedOut: boolean;
  output: string;
  ms: number;
}

export interface RunOptions {
  /** The project root the exercise paths are relative to (default: this checkout). */
  root?: string;
  /**
   * Stops the run (the watch mode cancels a check when the file changes again). The child then runs in
   * its own process group, so that whatever the tests started (a server process, say) stops with it;
   * without a signal it stays in the caller's group, where a Ctrl-C in the terminal reaches it.
   */
  signal?: AbortSignal;
}

/** The flag lost its "experimental-" prefix in Node 23. */
const ISOLATION_NONE = Number(process.versions.node.split(".")[0]) >= 23 ? "--test-isolation=none" : "--experimental-test-isolation=none";

export function runExerciseTests(exercise: Exercise, target: Target, timeoutMs = 60_000, options: RunOptions = {}): Promise<ExerciseResult> {
  const started = performance.now();
  const { root = ROOT, signal } = options;
  return new Promise((resolve) => {
    const group = signal !== undefined && process.platform !== "win32";
    // One process for the test file (no isolation): a syntax error in the learner's file is then reported
    // in the TAP output, and stopping the process stops the learner's code with it.
    const child = spawn(process.execPath, ["--import", "tsx", "--test", ISOLATION_NONE, "--test-reporter=tap", exercise.test], {
      cwd: root,
      env: childEnv({ WORKBOOK_TARGET: target, NO_COLOR: "1" }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: group,
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    const stop = (): void => {
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    signal?.addEventListener("abort", stop, { once: true });
    if (signal?.aborted) stop();
    const finish = (code: number | null, error?: Error): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      const passed = code === 0 && !timedOut && error === undefined;
      const result: ExerciseResult = { exercise, passed, timedOut, output, ms: Math.round(performance.now() - started) };
      const counts = testCounts(output);
      if (counts) result.counts = counts;
      if (!passed) {
        // Paths in errors (a syntax error names the file) are shown relative to the project.
        result.output = output.split(`${root}${sep}`).join("");
        result.firstFailure = firstFailure(result.output) ?? {
          test: "(the test file)",
          error: error ? error.message : timedOut ? `no result within ${timeoutMs} ms` : lastLines(result.output),
        };
      }
      resolve(result);
    };
    child.on("error", (err) => finish(null, err));
    child.on("close", (code) => finish(code));
  });
}

/**
 * The environment for a child test run. NODE_TEST_CONTEXT is dropped: when this code itself runs under
 * `node --test`, an inherited one would make the child report to the parent's runner instead of
 * exiting with its own result.
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/** The first "not ok" test in TAP output and its error line. */
export function firstFailure(tap: string): { test: string; error: string } | undefined {
  const lines = tap.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*not ok \d+ - (.*)$/.exec(lines[i]!);
    if (!m) continue;
    // The error is in the YAML block below: quoted on one line, or a block of deeper-indented lines
    // ("error: |-") such as an assertion's message and its "false !== true", or a syntax error.
    for (let j = i + 1; j < Math.min(lines.length, i + 40); j++) {
      const e = /^(\s*)error: (.*)$/.exec(lines[j]!);
      if (e) {
        const indent = e[1]!.length;
        const value = e[2]!.trim();
        if (!/^[|>][-+]?$/.test(value)) return { test: m[1]!, error: unquote(value) };
        const block: string[] = [];
        for (let k = j + 1; k < lines.length && (lines[k]!.trim() === "" || lines[k]!.search(/\S/) > indent); k++) block.push(lines[k]!);
        const margin = Math.min(...block.filter((l) => l.trim() !== "").map((l) => l.search(/\S/)));
        const error = block.map((l) => l.slice(margin).trimEnd()).join("\n").trim();
        return { test: m[1]!, error: error || "(see the test output)" };
      }
      if (/^\s*(not )?ok \d+/.test(lines[j]!)) break;
    }
    return { test: m[1]!, error: "(see the test output)" };
  }
  return undefined;
}

/** A one-line YAML scalar as node:test writes it: 'single' (with '' for '), "double" (JSON-like), or plain. */
function unquote(value: string): string {
  if (value.startsWith("'") && value.endsWith("'") && value.length >= 2) return value.slice(1, -1).replace(/''/g, "'");
  if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1);
    }
  }
  return value;
}

/** The counts in node:test's TAP summary ("# tests 7", "# pass 3", "# fail 4"). */
export function testCounts(tap: string): { tests: number; pass: number; fail: number } | undefined {
  const count = (name: string): number | undefined => {
    const m = new RegExp(`^# ${name} (\\d+)$`, "m").exec(tap);
    return m ? Number(m[1]) : undefined;
  };
  const tests = count("tests");
  const pass = count("pass");
  const fail = count("fail");
  if (tests === undefined || pass === undefined || fail === undefined) return undefined;
  return { tests, pass, fail };
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-5).join("\n");
}

/** Runs `work` over `items`, at most `limit` at a time, keeping the order of results. */
export async function inPool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  });
  await Promise.all(runners);
  return results;
}
