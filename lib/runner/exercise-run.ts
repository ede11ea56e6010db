/**
 * Runs one exercise's tests (node:test in a child process) against the learner's file or the
 * reference answer, and says whether they passed and, if not, which test failed first and why.
 */
import { spawn } from "node:child_process";
import type { Exercise } from "../catalog.ts";
import { ROOT } from "../catalog.ts";
import type { Target } from "../exercise-target.ts";

export interface ExerciseResult {
  exercise: Exercise;
  passed: boolean;
  /** The first failing test and its error message. */
  firstFailure?: { test: string; error: string };
  /** True when the run was stopped for taking too long. */
  timedOut: boolean;
  output: string;
  ms: number;
}

export function runExerciseTests(exercise: Exercise, target: Target, timeoutMs = 60_000): Promise<ExerciseResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=tap", exercise.test], {
      cwd: ROOT,
      env: childEnv({ WORKBOOK_TARGET: target, NO_COLOR: "1" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      const passed = code === 0 && !timedOut;
      const result: ExerciseResult = { exercise, passed, timedOut, output, ms: Math.round(performance.now() - started) };
      if (!passed) result.firstFailure = firstFailure(output) ?? { test: "(the test file)", error: timedOut ? `no result within ${timeoutMs} ms` : lastLines(output) };
      resolve(result);
    });
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
    // A failing file shows up as a failing subtest first; its error is in the YAML block below.
    for (let j = i + 1; j < Math.min(lines.length, i + 40); j++) {
      const e = /^\s*error: (.*)$/.exec(lines[j]!);
      if (e) {
        let error = e[1]!.replace(/^['"|>-]+\s*/, "").replace(/['"]$/, "");
        if (error === "" || error === "|-") error = (lines[j + 1] ?? "").trim();
        return { test: m[1]!, error };
      }
      if (/^\s*(not )?ok \d+/.test(lines[j]!)) break;
    }
    return { test: m[1]!, error: "(see the test output)" };
  }
  return undefined;
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
