/**
 * The shipped state of each exercise, for `npm run reset`.
 *
 * The one source of truth is the exercise file as the project ships it (`exercises/NNx-slug.ts`, the
 * file test/exercises.test.ts proves to fail). A byte-for-byte copy of it is recorded in the ignored
 * folder `.workbook/shipped/` by `npm install` (postinstall) and, for an exercise that arrives later,
 * by the first runner command that sees it. A copy is only recorded while the file still throws its
 * TODO error, and an existing copy is never overwritten, so the learner's work can never become the
 * "shipped" state; with one exception: a copy whose imports name files that no longer exist (it was
 * recorded by an older version of the workbook, whose lib/ has moved since) is replaced by the
 * shipped version that does load, from git's HEAD or the working file, if one still throws its TODO
 * error. Keeping it would make `npm run reset` restore a file that cannot even start. Not `git show HEAD:…`: a learner who commits their answers moves HEAD, and a
 * download without git has no HEAD at all.
 *
 * A reset never loses work: the learner's version is first copied to `.workbook/backups/`.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { type Exercise, listExercises, ROOT } from "./catalog.ts";
import { MANIFEST } from "./manifest.ts";

export const SHIPPED_DIR = ".workbook/shipped";
export const BACKUP_DIR = ".workbook/backups";

/** Where the shipped copy of an exercise is kept, relative to the root. */
export function shippedCopy(exercise: Exercise): string {
  return `${SHIPPED_DIR}/${basename(exercise.file)}`;
}

/** True when the source still throws the exercise's TODO error, as every shipped exercise does. */
export function looksShipped(source: string, id: string): boolean {
  return new RegExp(`throw new Error\\("TODO: .*\\(exercise ${id}\\)"\\)`).test(source);
}

/** Writes a file by renaming a finished temporary one into place, so no reader sees half of it. */
function writeWhole(path: string, data: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  writeFileSync(temp, data);
  renameSync(temp, path);
}

export interface Recorded {
  /** Exercises whose shipped copy was recorded just now. */
  recorded: Exercise[];
  /** Exercises whose copy was replaced: it imported files this version of the workbook no longer has. */
  refreshed: Exercise[];
  /** Exercises with no shipped copy that could not get one (their file no longer looks shipped). */
  missing: Exercise[];
}

/** Records the shipped copy of every exercise that has none yet. Never overwrites a copy. */
export function recordShipped(root = ROOT, exercises = listExercises(root)): Recorded {
  const out: Recorded = { recorded: [], refreshed: [], missing: [] };
  for (const e of exercises) {
    const copy = join(root, shippedCopy(e));
    if (existsSync(copy)) {
      if (importsResolve(readFileSync(copy).toString("utf8"), join(root, dirname(e.file))))
        continue;
      const path = join(root, e.file);
      const candidates = [
        fromGitHead(root, e.file),
        existsSync(path) ? readFileSync(path) : undefined,
      ];
      const loads = candidates.find(
        (c) =>
          c &&
          looksShipped(c.toString("utf8"), e.id) &&
          importsResolve(c.toString("utf8"), join(root, dirname(e.file))),
      );
      if (loads) {
        writeWhole(copy, loads);
        out.refreshed.push(e);
      }
      continue;
    }
    const source = existsSync(join(root, e.file)) ? readFileSync(join(root, e.file)) : undefined;
    if (!source || !looksShipped(source.toString("utf8"), e.id)) {
      out.missing.push(e);
      continue;
    }
    writeWhole(copy, source);
    out.recorded.push(e);
  }
  return out;
}

/** Whether every relative import of `source` (static, dynamic, or re-exported) names a file that exists, seen from `dir`. */
export function importsResolve(source: string, dir: string): boolean {
  for (const m of source.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm,
  )) {
    if (!existsSync(join(dir, m[1]!))) return false;
  }
  return true;
}

/**
 * recordShipped for the commands that merely start with it (watch, check, progress, lesson list): a
 * folder that cannot be written must not stop them; npm run reset then says what is missing.
 */
export function recordShippedIfPossible(root = ROOT, exercises = listExercises(root)): void {
  try {
    recordShipped(root, exercises);
  } catch {
    // Reported by npm run reset, which needs the copies.
  }
}

/** The shipped bytes of an exercise, or undefined when none were recorded. */
export function shippedSource(exercise: Exercise, root = ROOT): Buffer | undefined {
  const copy = join(root, shippedCopy(exercise));
  return existsSync(copy) ? readFileSync(copy) : undefined;
}

/** Whether the learner's file is byte-identical to the shipped one (undefined: nothing recorded). */
export function isAsShipped(exercise: Exercise, root = ROOT): boolean | undefined {
  const shipped = shippedSource(exercise, root);
  if (!shipped) return undefined;
  const path = join(root, exercise.file);
  return existsSync(path) && readFileSync(path).equals(shipped);
}

export class NoShippedCopy extends Error {}

export type ResetOutcome = { changed: false } | { changed: true; backup?: string };

/**
 * Puts the shipped bytes back into the exercise file. The learner's version, if any, is first copied
 * to `.workbook/backups/<name>.<time>.ts`, whose path (relative to the root) is returned.
 */
export function resetExercise(exercise: Exercise, root = ROOT, now = new Date()): ResetOutcome {
  const shipped = shippedSource(exercise, root);
  if (!shipped) {
    throw new NoShippedCopy(
      `no shipped copy of ${exercise.file} was recorded (${shippedCopy(exercise)} is missing), so it cannot be reset; ` +
        `in a git checkout, "git log -- ${exercise.file}" shows the commits to restore it from`,
    );
  }
  const path = join(root, exercise.file);
  const current = existsSync(path) ? readFileSync(path) : undefined;
  if (current?.equals(shipped)) return { changed: false };
  let backup: string | undefined;
  if (current) {
    const stamp = now.toISOString().replace(/[:.]/g, "-");
    backup = `${BACKUP_DIR}/${exercise.name}.${stamp}.ts`;
    for (let n = 2; existsSync(join(root, backup)); n++)
      backup = `${BACKUP_DIR}/${exercise.name}.${stamp}-${n}.ts`;
    writeWhole(join(root, backup), current);
  }
  writeWhole(path, shipped);
  return backup ? { changed: true, backup } : { changed: true };
}

/**
 * What ships in `exercises/`, whatever the learner has done to their copy: for the project's own tests,
 * which must test the exercises as shipped (and pass unchanged in a checkout where every exercise is
 * solved, broken or deleted).
 *
 * An exercise file comes from git's HEAD when that version still throws its TODO error, else from the
 * copy recorded at install in `.workbook/shipped/` (a learner who committed their answers moved HEAD),
 * else from the working copy if it still looks shipped (a new exercise not committed yet). A test file
 * (`*.test.ts`) and the manifest (`exercises/info.toml`) come from HEAD, else from the working copy.
 * The list of files is the union of HEAD's, the recorded copies' and the folder's.
 */
export interface ShippedFile {
  /** Relative to the root, e.g. "exercises/01a-retry-rule.ts". */
  path: string;
  data: Buffer;
  from: "git HEAD" | "recorded copy" | "working copy";
}

/** HEAD's version of a file (undefined without git, outside a repository, or when HEAD lacks it). */
function fromGitHead(root: string, relative: string): Buffer | undefined {
  const r = spawnSync("git", ["show", `HEAD:${relative}`], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
    stdio: ["ignore", "pipe", "ignore"],
  });
  return r.status === 0 && r.stdout ? r.stdout : undefined;
}

function gitHeadList(root: string, dir: string): string[] {
  const r = spawnSync("git", ["ls-tree", "--name-only", "HEAD", `${dir}/`], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return r.status === 0
    ? r.stdout
        .split("\n")
        .filter(Boolean)
        .map((p) => basename(p))
    : [];
}

const EXERCISE_FILE = /^(\d\d[a-z]-[a-z0-9-]+(\.test)?\.ts|info\.toml)$/;

export function shippedExerciseFiles(root = ROOT): ShippedFile[] {
  const names = new Set<string>(gitHeadList(root, "exercises"));
  for (const dir of ["exercises", SHIPPED_DIR]) {
    if (existsSync(join(root, dir))) for (const f of readdirSync(join(root, dir))) names.add(f);
  }
  const files: ShippedFile[] = [];
  const problems: string[] = [];
  for (const name of [...names].filter((n) => EXERCISE_FILE.test(n)).sort()) {
    const path = `exercises/${name}`;
    const working = existsSync(join(root, path)) ? readFileSync(join(root, path)) : undefined;
    if (name.endsWith(".test.ts") || path === MANIFEST) {
      const head = fromGitHead(root, path);
      if (head) files.push({ path, data: head, from: "git HEAD" });
      else if (working) files.push({ path, data: working, from: "working copy" });
      continue;
    }
    const id = name.slice(0, 3);
    const head = fromGitHead(root, path);
    const recorded = existsSync(join(root, SHIPPED_DIR, name))
      ? readFileSync(join(root, SHIPPED_DIR, name))
      : undefined;
    if (head && looksShipped(head.toString("utf8"), id))
      files.push({ path, data: head, from: "git HEAD" });
    else if (recorded) files.push({ path, data: recorded, from: "recorded copy" });
    else if (working && looksShipped(working.toString("utf8"), id))
      files.push({ path, data: working, from: "working copy" });
    else problems.push(path);
  }
  if (problems.length > 0) {
    throw new Error(
      `cannot find the shipped version of ${problems.join(", ")}: not in git's HEAD as shipped, not recorded in ${SHIPPED_DIR}/ (npm install records it), and the file is edited`,
    );
  }
  return files;
}
