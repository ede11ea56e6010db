/**
 * Runs one exercise's tests (node:test in a child process) against the learner's file or the
 * reference answer, and says whether they passed and, if not, which test failed first and why.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve as resolvePath, sep } from "node:path";
import { currentLang, t } from "../core/i18n.ts";
import type { Exercise } from "./catalog.ts";
import { ROOT } from "./catalog.ts";
import type { Target } from "./exercise-target.ts";
import { duration } from "./style.ts";
import { EVENT_MARK } from "./test-events-mark.ts";

/** The first failing test: its name, its error message and, for a failed comparison, both sides. */
export interface Failure {
  test: string;
  error: string;
  /** The value the test got, as node:test printed it (one line), when an assertion compared two. */
  actual?: string;
  /** The value the test wanted, likewise. */
  expected?: string;
}

export interface ExerciseResult {
  exercise: Exercise;
  passed: boolean;
  /** The first failing test and its error message. */
  firstFailure?: Failure;
  /** How many tests ran, passed and failed, from node:test's summary (absent when it printed none). */
  counts?: { tests: number; pass: number; fail: number };
  /** True when the run was stopped: a test that never ended, or a file that never exited after its tests. */
  timedOut: boolean;
  /**
   * One line saying why it does not pass when the failing test alone would not say it: a syntax error,
   * a type error, a test that hangs (named, with how long it ran), or every test done but the file
   * never ending (something left open).
   */
  verdict?: string;
  /** The verdict says all that the first failure would (a syntax error, a hang): the failure is not repeated. */
  verdictCovers?: boolean;
  /** The first type error, `file:line:col message` (only when the run type-checked). */
  typeError?: string;
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
  /** Also type-check the file with tsc (npm run check and the watch mode do). */
  typeCheck?: boolean;
  /**
   * How long the process may go on after every test it queued has ended before it counts as left
   * open (a server not closed), at the least (see stillOpenGraceMs). Node exits at once when nothing
   * is left, so this is a grace for a busy machine, not a wait for anything.
   */
  stillOpenMs?: number;
}

/** The flag lost its "experimental-" prefix in Node 23. */
const ISOLATION_NONE =
  Number(process.versions.node.split(".")[0]) >= 23
    ? "--test-isolation=none"
    : "--experimental-test-isolation=none";
const TEST_EVENTS = new URL("./test-events.ts", import.meta.url).href;
const STILL_OPEN_MS = 5_000;

/**
 * The grace after the last test's end before a run counts as left open: `least`, or on a busy machine
 * more. Ending a run (node:test's summary, the process's exit) takes about as long as starting it did,
 * and both grow with the machine's load: at a load of 30 on two cores a run that passed took more than
 * 5 s to end. So the grace is also three times the time the process took to start its first test.
 */
export function stillOpenGraceMs(least: number, startupMs: number | undefined): number {
  return Math.max(least, 3 * (startupMs ?? 0));
}

/**
 * Exercises whose answer is pure functions (`pure = true` in the manifest: no server, no database, no
 * child process) run their tests in well under a second, so a run that takes longer than PURE_LIMIT_MS
 * is stuck, not slow. The others start trackers, notifiers or SQLite files and get the longer limit.
 */
export const PURE_LIMIT_MS = 15_000;
export const SERVER_LIMIT_MS = 60_000;

/** How long one check of this exercise may run before it is stopped. */
export function checkLimitMs(exercise: Pick<Exercise, "pure">): number {
  return exercise.pure ? PURE_LIMIT_MS : SERVER_LIMIT_MS;
}

export async function runExerciseTests(
  exercise: Exercise,
  target: Target,
  timeoutMs = checkLimitMs(exercise),
  options: RunOptions = {},
): Promise<ExerciseResult> {
  const started = performance.now();
  const { root = ROOT } = options;
  const [run, typeError] = await Promise.all([
    runTests(exercise, target, timeoutMs, options),
    options.typeCheck
      ? typeCheck(exercise, target, root, options.signal)
      : Promise.resolve(undefined),
  ]);
  const result: ExerciseResult = { ...run, exercise, ms: Math.round(performance.now() - started) };
  if (typeError !== undefined) {
    result.typeError = typeError;
    if (result.passed) {
      result.passed = false;
      result.firstFailure = { test: t("the type check (tsc)"), error: typeError };
      result.verdictCovers = true;
    }
    if (result.verdict === undefined)
      result.verdict = t("type error at {where}", { where: typeError });
  }
  return result;
}

type TestRun = Omit<ExerciseResult, "exercise" | "ms">;

function runTests(
  exercise: Exercise,
  target: Target,
  timeoutMs: number,
  options: RunOptions,
): Promise<TestRun> {
  const { root = ROOT, signal, stillOpenMs = STILL_OPEN_MS } = options;
  return new Promise((resolve) => {
    const group = signal !== undefined && process.platform !== "win32";
    // One process for the test file (no isolation): a syntax error in the learner's file is then reported
    // in the TAP output, and stopping the process stops the learner's code with it. test-events.ts
    // says on stderr, as they happen, which tests start and end.
    const spawnedAt = performance.now();
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--import",
        TEST_EVENTS,
        "--test",
        ISOLATION_NONE,
        "--test-reporter=tap",
        exercise.test,
      ],
      {
        cwd: root,
        env: childEnv({ WORKBOOK_TARGET: target, NO_COLOR: "1" }),
        stdio: ["ignore", "pipe", "pipe"],
        detached: group,
      },
    );
    let output = "";
    const progress = new TestProgress();
    let stderrLine = "";
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString();
      armStillOpen();
    });
    child.stderr.on("data", (c: Buffer) => {
      // Reporter events are whole lines; anything else on stderr is the tests' own output.
      stderrLine += c.toString();
      const lines = stderrLine.split("\n");
      stderrLine = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith(EVENT_MARK))
          progress.add(line.slice(EVENT_MARK.length), performance.now());
        else output += `${line}\n`;
      }
      armStillOpen();
    });
    const stop = (): void => {
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    };
    let stopped: "time" | "still-open" | undefined;
    const timer = setTimeout(() => {
      stopped = "time";
      stop();
    }, timeoutMs);
    let openTimer: NodeJS.Timeout | undefined;
    function armStillOpen(): void {
      clearTimeout(openTimer);
      if (!progress.allEnded()) return;
      const startup = progress.firstStart();
      openTimer = setTimeout(
        () => {
          stopped ??= "still-open";
          stop();
        },
        stillOpenGraceMs(stillOpenMs, startup === undefined ? undefined : startup - spawnedAt),
      );
    }
    signal?.addEventListener("abort", stop, { once: true });
    if (signal?.aborted) stop();
    const finish = (code: number | null, error?: Error): void => {
      clearTimeout(timer);
      clearTimeout(openTimer);
      signal?.removeEventListener("abort", stop);
      if (stderrLine && !stderrLine.startsWith(EVENT_MARK)) output += stderrLine;
      const now = performance.now();
      const passed = code === 0 && stopped === undefined && error === undefined;
      const result: TestRun = { passed, timedOut: stopped !== undefined, output };
      const counts = testCounts(output) ?? (stopped ? tapCounts(output) : undefined);
      if (counts) result.counts = counts;
      if (!passed) {
        // Paths in errors (a syntax error names the file) are shown relative to the project.
        result.output = output.split(`${root}${sep}`).join("");
        const failure = firstFailure(result.output);
        const syntax = failure ? syntaxError(failure.error) : undefined;
        if (syntax) result.verdict = t("syntax error at {where}", { where: syntax });
        else if (stopped === "still-open") result.verdict = stillOpenVerdict(tapCounts(output));
        else if (stopped === "time")
          result.verdict = hangVerdict(progress.running(), now, timeoutMs);
        if (syntax) {
          result.firstFailure = { test: failure!.test, error: result.verdict! };
          result.verdictCovers = true;
        } else if (failure) result.firstFailure = failure;
        else {
          result.firstFailure = {
            test: progress.running()?.name ?? t("(the test file)"),
            error: error ? error.message : (result.verdict ?? lastLines(result.output)),
          };
          if (!error && result.verdict !== undefined) result.verdictCovers = true;
        }
      }
      resolve(result);
    };
    child.on("error", (err) => finish(null, err));
    child.on("close", (code) => finish(code));
  });
}

/** What test-events.ts said so far: the tests running now (outermost first), and whether any has ended. */
class TestProgress {
  #running: { name: string; since: number }[] = [];
  #ended = 0;
  #firstStart: number | undefined;

  add(json: string, at: number): void {
    let e: { type: string; name: string };
    try {
      e = JSON.parse(json) as typeof e;
    } catch {
      return;
    }
    if (e.type === "start") {
      this.#running.push({ name: e.name, since: at });
      this.#firstStart ??= at;
    }
    if (e.type === "end") {
      const i = this.#running.findLastIndex((r) => r.name === e.name);
      if (i >= 0) this.#running.splice(i);
      this.#ended++;
    }
  }

  /** When the first test started. */
  firstStart(): number | undefined {
    return this.#firstStart;
  }

  /** Tests have run, and none is running now. */
  allEnded(): boolean {
    return this.#ended > 0 && this.#running.length === 0;
  }

  /** The innermost test running now. */
  running(): { name: string; since: number } | undefined {
    return this.#running.at(-1);
  }
}

/** The top-level results in TAP output printed so far (node:test prints its summary only at the end). */
function tapCounts(tap: string): { tests: number; pass: number; fail: number } {
  const pass = [...tap.matchAll(/^ok \d+ - /gm)].length;
  const fail = [...tap.matchAll(/^not ok \d+ - /gm)].length;
  return { tests: pass + fail, pass, fail };
}

function stillOpenVerdict(c: { tests: number; pass: number; fail: number }): string {
  return c.fail === 0
    ? t(
        "{tests, plural, one {the test passes} other {all # tests pass}}, but the test file never ended: something is still open (a server not closed? a timer?)",
        { tests: c.tests },
      )
    : t(
        "{pass} of {tests} tests pass, but the test file never ended: something is still open (a server not closed? a timer?)",
        { pass: c.pass, tests: c.tests },
      );
}

function hangVerdict(
  running: { name: string; since: number } | undefined,
  now: number,
  limitMs: number,
): string {
  if (!running)
    return t(
      "no test started within {time}: the file's own top-level code never ends (an endless loop?)",
      { time: duration(limitMs) },
    );
  return t(
    "the test {name} ran for {time} without ending and was stopped (an endless loop? a promise that never settles?)",
    { name: `"${running.name}"`, time: duration(now - running.since) },
  );
}

/**
 * esbuild's "Transform failed … file:line:col: ERROR: message" as "file:line:col: message", with the
 * column counted from 1 as editors do (esbuild counts it from 0).
 */
export function syntaxError(error: string): string | undefined {
  const m = /Transform failed with \d+ errors?:\s*\n?\s*(\S+?):(\d+):(\d+): ERROR: (.*)/.exec(
    error,
  );
  return m ? `${m[1]}:${m[2]}:${Number(m[3]) + 1}: ${m[4]!.trim()}` : undefined;
}

/**
 * Type-checks the exercise file (and, for the learner's, its test, which is typed against it) with the
 * project's tsconfig.json. Resolves with the first error as `file:line:col message`, or undefined
 * (no error, or no tsc to run).
 */
export function typeCheck(
  exercise: Exercise,
  target: Target,
  root = ROOT,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  if (!existsSync(tsc)) return Promise.resolve(undefined);
  const file = target === "exercises" ? exercise.file : exercise.solution;
  const files = target === "exercises" ? [file, exercise.test] : [file];
  // A tsconfig per exercise, beside the ignored .workbook/ copies, so that tsc uses the project's options.
  const config = join(root, ".workbook", "tsc", `${exercise.name}.${target}.json`);
  try {
    mkdirSync(dirname(config), { recursive: true });
    writeFileSync(
      config,
      JSON.stringify({
        extends: "../../tsconfig.json",
        include: [],
        files: files.map((f) => `../../${f}`),
      }),
    );
  } catch {
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    // tsc speaks Chinese too: its messages in the workbook's language.
    const locale = currentLang() === "zh" ? ["--locale", "zh-cn"] : [];
    const child = spawn(
      process.execPath,
      [tsc, "--noEmit", "--pretty", "false", ...locale, "-p", config],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "ignore"],
        ...(signal ? { signal } : {}),
      },
    );
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.on("error", () => resolve(undefined));
    child.on("close", () => resolve(firstTypeError(out, root)));
  });
}

/** tsc's first "file(line,col): error TSnnnn: message" as "file:line:col message", its continuation lines kept. */
export function firstTypeError(output: string, root = ROOT): string | undefined {
  const lines = output.split("\n");
  const i = lines.findIndex((l) => /^.+\(\d+,\d+\): error TS\d+: /.test(l));
  if (i < 0) return undefined;
  const m = /^(.+)\((\d+),(\d+)\): error TS\d+: (.*)$/.exec(lines[i]!)!;
  const more = [];
  for (let k = i + 1; k < lines.length && /^\s+\S/.test(lines[k]!); k++)
    more.push(lines[k]!.trimEnd());
  const file = relative(root, resolvePath(root, m[1]!)).split(sep).join("/");
  return [`${file}:${m[2]}:${m[3]} ${m[4]}`, ...more].join("\n");
}

/**
 * The environment for a child test run. NODE_TEST_CONTEXT is dropped: when this code itself runs under
 * `node --test`, an inherited one would make the child report to the parent's runner instead of
 * exiting with its own result.
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  // Node's test runner on a terminal sets FORCE_COLOR for its test files; a child asked for no
  // colour would then get both, and Node warns on stderr that NO_COLOR is ignored.
  if (extra.NO_COLOR !== undefined && extra.NO_COLOR !== "" && extra.FORCE_COLOR === undefined)
    delete env.FORCE_COLOR;
  return env;
}

/**
 * The first "not ok" test in TAP output: its name, its error and, when an assertion compared two values
 * (assert.equal, deepEqual…), the two as node:test wrote them.
 */
export function firstFailure(tap: string): Failure | undefined {
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
        if (!/^[|>][-+]?$/.test(value))
          return withValues({ test: m[1]!, error: unquote(value) }, lines, j + 1, indent);
        const block: string[] = [];
        for (
          let k = j + 1;
          k < lines.length && (lines[k]!.trim() === "" || lines[k]!.search(/\S/) > indent);
          k++
        )
          block.push(lines[k]!);
        const margin = Math.min(...block.filter((l) => l.trim() !== "").map((l) => l.search(/\S/)));
        const error = block
          .map((l) => l.slice(margin).trimEnd())
          .join("\n")
          .trim();
        return withValues(
          { test: m[1]!, error: error || t("(see the test output)") },
          lines,
          j + 1,
          indent,
        );
      }
      if (/^\s*(not )?ok \d+/.test(lines[j]!)) break;
    }
    return { test: m[1]!, error: t("(see the test output)") };
  }
  return undefined;
}

/**
 * Adds `actual` and `expected` to a failure, from the YAML block that node:test writes under it
 * (`expected: 1600`, `actual: 3200`, `operator: 'strictEqual'`), read from line `from` on, at the
 * error's indent. Left out for assertions whose two sides say nothing (assert.ok's false against true,
 * assert.fail) and for values it cannot show (a regular expression, a Map).
 */
function withValues(
  failure: Failure,
  lines: readonly string[],
  from: number,
  indent: number,
): Failure {
  const fields = new Map<string, string>();
  for (let k = from; k < lines.length; k++) {
    const line = lines[k]!;
    if (/^\s*\.\.\.$/.test(line) || (line.trim() !== "" && line.search(/\S/) < indent)) break;
    const f = new RegExp(`^ {${indent}}(actual|expected|operator):(.*)$`).exec(line);
    if (!f) continue;
    const block: string[] = [];
    for (let b = k + 1; b < lines.length && lines[b]!.search(/\S/) > indent; b++)
      block.push(lines[b]!);
    const shown = yamlValue(f[2]!.trim(), block);
    if (shown !== undefined) fields.set(f[1]!, shown);
  }
  const operator = fields.get("operator");
  const actual = fields.get("actual");
  const expected = fields.get("expected");
  if (
    actual === undefined ||
    expected === undefined ||
    operator === "'=='" ||
    operator === "'fail'"
  )
    return failure;
  return { ...failure, actual, expected };
}

/** The most characters of a value shown on the screen; npm run check shows the whole error. */
const VALUE_CHARS = 300;

/**
 * One value of node:test's YAML, on one line, the way JavaScript writes it: a scalar as it is ("3200",
 * "'done'"), a block of `key: value` lines as `{ key: value }`, or as `[…]` when the keys are 0, 1, 2….
 */
function yamlValue(inline: string, block: readonly string[]): string | undefined {
  let shown: string | undefined;
  if (inline === "|-" || inline === "|") shown = JSON.stringify(dedent(block).join("\n"));
  else if (inline !== "") shown = inline === "~" ? "null" : inline;
  else if (block.length > 0) shown = yamlMap(dedent(block));
  if (shown === undefined) return undefined;
  return shown.length > VALUE_CHARS ? `${shown.slice(0, VALUE_CHARS - 1)}…` : shown;
}

function dedent(block: readonly string[]): string[] {
  const margin = Math.min(...block.filter((l) => l.trim() !== "").map((l) => l.search(/\S/)));
  return block.map((l) => l.slice(margin).trimEnd());
}

/** Lines `key: value` (nested by indent) as `{ key: value, … }` or `[…]`. */
function yamlMap(lines: readonly string[]): string | undefined {
  const entries: [string, string][] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^\s:][^:]*):(.*)$/.exec(lines[i]!);
    if (!m) continue;
    const nested: string[] = [];
    for (let k = i + 1; k < lines.length && /^\s/.test(lines[k]!); k++) nested.push(lines[k]!);
    i += nested.length;
    const value = yamlValue(m[2]!.trim(), nested);
    entries.push([m[1]!, value ?? "{}"]);
  }
  if (entries.length === 0) return undefined;
  if (entries.every(([key], i) => key === String(i)))
    return `[${entries.map(([, v]) => v).join(", ")}]`;
  return `{ ${entries.map(([k, v]) => `${k}: ${v}`).join(", ")} }`;
}

/** A one-line YAML scalar as node:test writes it: 'single' (with '' for '), "double" (JSON-like), or plain. */
function unquote(value: string): string {
  if (value.startsWith("'") && value.endsWith("'") && value.length >= 2)
    return value.slice(1, -1).replace(/''/g, "'");
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
export async function inPool<T, R>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
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
