// A throw-away copy of the workbook for tests of the runner, so that they never touch the real
// exercises/. It holds the code (lib/, lessons/), node_modules linked, and two exercises: the first
// real one and a clone of it under another id, so that "the next exercise" exists whatever exercises
// the workbook has, and the tests take the same time however many it gets; its manifest
// (exercises/info.toml) holds their two entries.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Exercise, listExercises, ROOT } from "../lib/runner/catalog.ts";
import { childEnv } from "../lib/runner/exercise-run.ts";
import { MANIFEST, parseManifest } from "../lib/runner/manifest.ts";
import { shippedExerciseFiles } from "../lib/runner/shipped.ts";

export interface TempProject {
  root: string;
  /** The two exercises, in order: the first real one and its clone. */
  exercises: Exercise[];
  /** Writes the reference answer over the learner's file. */
  solve(e: Exercise): void;
  read(relative: string): Buffer;
  remove(): void;
}

/** A temporary folder with the workbook's code (lib/, lessons/, package.json, tsconfig.json, node_modules linked). */
function projectSkeleton(): string {
  const root = mkdtempSync(join(tmpdir(), "retry-workbook-runner-"));
  for (const dir of ["lib", "lessons"])
    cpSync(join(ROOT, dir), join(root, dir), { recursive: true });
  for (const file of ["package.json", "tsconfig.json"]) cpSync(join(ROOT, file), join(root, file));
  symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"), "dir");
  mkdirSync(join(root, "exercises"));
  mkdirSync(join(root, "solutions"));
  return root;
}

export function tempProject(): TempProject {
  const root = projectSkeleton();
  // The exercise and the manifest as shipped, never the learner's copies (which may be solved or broken).
  const shipped = new Map(shippedExerciseFiles(ROOT).map((f) => [f.path, f.data]));
  const manifest = shipped.get(MANIFEST)?.toString("utf8");
  if (!manifest) throw new Error(`the workbook has no ${MANIFEST}`);
  const fileOf = (id: string): string | undefined =>
    [...shipped.keys()].find((p) => p.startsWith(`exercises/${id}-`) && !p.endsWith(".test.ts"));
  const first = parseManifest(manifest).find((e) => {
    const file = fileOf(e.id);
    return file !== undefined && shipped.has(file.replace(/\.ts$/, ".test.ts"));
  });
  if (!first) throw new Error("the workbook has no exercise to copy");
  const name = fileOf(first.id)!.slice("exercises/".length, -".ts".length);
  const cloneId = `${first.lesson}${first.id.endsWith("z") ? "y" : "z"}`;
  const cloneName = `${cloneId}-${name.slice(4)}`;
  const copy = (from: string, to: string, rename: boolean): void => {
    let text = (shipped.get(from) ?? readFileSync(join(ROOT, from))).toString("utf8");
    if (rename) {
      text = text
        .split(name)
        .join(cloneName)
        .split(`exercise ${first.id}`)
        .join(`exercise ${cloneId}`)
        .split(`Exercise ${first.id}`)
        .join(`Exercise ${cloneId}`);
    }
    writeFileSync(join(root, to), text);
  };
  for (const rename of [false, true]) {
    const to = rename ? cloneName : name;
    copy(`exercises/${name}.ts`, `exercises/${to}.ts`, rename);
    copy(`exercises/${name}.test.ts`, `exercises/${to}.test.ts`, rename);
    copy(`solutions/${name}.ts`, `solutions/${to}.ts`, rename);
  }
  // The manifest: the first exercise's table as shipped, and the same table for the clone, after it.
  const table = manifest
    .split(/^(?=\[\[exercises\]\]$)/m)
    .find((t) => new RegExp(`^id = "${first.id}"$`, "m").test(t))!;
  const clone = table
    .replace(/^id = ".*"$/m, `id = "${cloneId}"`)
    .replace(/^order = .*$/m, `order = ${first.order + 1}`);
  writeFileSync(join(root, MANIFEST), `${table.trimEnd()}\n\n${clone}`);
  return withHelpers(root, 2);
}

/**
 * A temporary copy of the whole workbook with every exercise as shipped (from git's HEAD or the copies
 * recorded at install, see lib/runner/shipped.ts) and the reference solutions: what the project's own
 * tests check, so that they pass whatever the learner did to their exercises/.
 */
export function shippedProject(): TempProject {
  const root = projectSkeleton();
  for (const f of shippedExerciseFiles(ROOT)) writeFileSync(join(root, f.path), f.data);
  // The Chinese of the exercises' checks (not a file the learner edits).
  cpSync(join(ROOT, "exercises", "zh.po"), join(root, "exercises", "zh.po"));
  cpSync(join(ROOT, "solutions"), join(root, "solutions"), { recursive: true });
  return withHelpers(root);
}

/**
 * The exercises as shipped, read from the manifest and the files of exercises/ as shipped (put in a
 * temporary folder for the time it takes): for tests that show their titles, goals and hints but run
 * nothing.
 */
export function shippedExercises(): Exercise[] {
  const root = mkdtempSync(join(tmpdir(), "retry-workbook-exercises-"));
  try {
    mkdirSync(join(root, "exercises"));
    for (const f of shippedExerciseFiles(ROOT)) writeFileSync(join(root, f.path), f.data);
    return listExercises(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function withHelpers(root: string, expected?: number): TempProject {
  const exercises = listExercises(root);
  if (expected !== undefined && exercises.length !== expected)
    throw new Error(
      `the temporary project should have ${expected} exercises, has ${exercises.length}`,
    );
  return {
    root,
    exercises,
    solve: (e) => writeFileSync(join(root, e.file), readFileSync(join(root, e.solution))),
    read: (relative) => readFileSync(join(root, relative)),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A runner command started in the temporary project, with its output collected as it comes. */
export interface Session {
  child: ChildProcessWithoutNullStreams;
  output(): string;
  /**
   * Resolves once the output after `from` matches `pattern`, with the offset just past the match (the
   * `from` of the next wait); rejects if the process ends first. No clock involved: the test's own
   * timeout is the limit.
   */
  waitFor(pattern: RegExp, from?: number): Promise<number>;
  send(line: string): void;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startSession(
  root: string,
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Session {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, script), ...args], {
    cwd: root,
    env: childEnv({ NO_COLOR: "1", ...env }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let text = "";
  const waiters = new Set<() => void>();
  const collect = (c: Buffer): void => {
    text += c.toString();
    for (const w of [...waiters]) w();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  let ended = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => {
      ended = true;
      for (const w of [...waiters]) w();
      resolve({ code, signal });
    }),
  );
  return {
    child,
    output: () => text,
    waitFor: (pattern, from = 0) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const m = pattern.exec(text.slice(from));
          if (m) {
            waiters.delete(check);
            resolve(from + m.index + m[0].length);
          } else if (ended) {
            waiters.delete(check);
            reject(new Error(`the process ended before ${pattern} appeared; its output:\n${text}`));
          }
        };
        waiters.add(check);
        check();
      }),
    send: (line) => child.stdin.write(`${line}\n`),
    exited,
  };
}

/** Runs a command in the temporary project to its end, with `input` on stdin (then end of input). */
export async function runIn(
  root: string,
  script: string,
  args: string[] = [],
  input = "",
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const s = startSession(root, script, args, env);
  s.child.stdin.end(input);
  const { code } = await s.exited;
  return { code, output: s.output() };
}

let shipped: ReturnType<typeof shippedExerciseFiles> | undefined;

/** The text of an exercise file as shipped (never the learner's working copy), by its path. */
export function shippedText(path: string): string {
  // Read once per process: finding what shipped asks git for every file of exercises/.
  shipped ??= shippedExerciseFiles(ROOT);
  const file = shipped.find((f) => f.path === path);
  if (!file) throw new Error(`${path} is not a shipped exercise file`);
  return file.data.toString("utf8");
}
