/**
 * The shipped state of each exercise, for `npm run reset`.
 *
 * The one source of truth is the exercise file as the project ships it (`exercises/NNx-slug.ts`, the
 * file test/exercises.test.ts proves to fail). A byte-for-byte copy of it is recorded in the ignored
 * folder `.workbook/shipped/` by `npm install` (postinstall) and, for an exercise that arrives later,
 * by the first runner command that sees it. A copy is only recorded while the file still throws its
 * TODO error, and an existing copy is never overwritten, so the learner's work can never become the
 * "shipped" state. Not `git show HEAD:…`: a learner who commits their answers moves HEAD, and a
 * download without git has no HEAD at all.
 *
 * A reset never loses work: the learner's version is first copied to `.workbook/backups/`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ROOT, listExercises, type Exercise } from "../catalog.ts";

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
  /** Exercises with no shipped copy that could not get one (their file no longer looks shipped). */
  missing: Exercise[];
}

/** Records the shipped copy of every exercise that has none yet. Never overwrites a copy. */
export function recordShipped(root = ROOT, exercises = listExercises(root)): Recorded {
  const out: Recorded = { recorded: [], missing: [] };
  for (const e of exercises) {
    const copy = join(root, shippedCopy(e));
    if (existsSync(copy)) continue;
    const source = readFileSync(join(root, e.file));
    if (!looksShipped(source.toString("utf8"), e.id)) {
      out.missing.push(e);
      continue;
    }
    writeWhole(copy, source);
    out.recorded.push(e);
  }
  return out;
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
    for (let n = 2; existsSync(join(root, backup)); n++) backup = `${BACKUP_DIR}/${exercise.name}.${stamp}-${n}.ts`;
    writeWhole(join(root, backup), current);
  }
  writeWhole(path, shipped);
  return backup ? { changed: true, backup } : { changed: true };
}
