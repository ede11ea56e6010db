/**
 * Which exercises pass, found out by running their tests (never a stored flag that could lie), two at
 * a time, and grouped by lesson for `npm run progress` and `npm run lesson`.
 */
import { type Exercise, type Lesson, ROOT } from "./catalog.ts";
import { type ExerciseResult, inPool, runExerciseTests } from "./exercise-run.ts";
import { currentTarget, type Target } from "./exercise-target.ts";

/** How many exercise test runs go at once: each is a Node process; two keep a small machine responsive. */
export const PARALLEL_CHECKS = 2;

export interface Statuses {
  results: ExerciseResult[];
  /** Wall time of the whole check. */
  ms: number;
}

export async function checkAll(
  exercises: Exercise[],
  options: { root?: string; target?: Target; limit?: number; typeCheck?: boolean } = {},
): Promise<Statuses> {
  const {
    root = ROOT,
    target = currentTarget(),
    limit = PARALLEL_CHECKS,
    typeCheck = true,
  } = options;
  const started = performance.now();
  // Each exercise gets its own time limit (short for pure functions); the type check runs beside the tests.
  const results = await inPool(exercises, limit, (e) =>
    runExerciseTests(e, target, undefined, { root, typeCheck }),
  );
  return { results, ms: Math.round(performance.now() - started) };
}

export interface LessonStatus {
  number: string;
  /** Undefined for exercises whose lesson (in the manifest) has no lesson file. */
  lesson?: Lesson;
  results: ExerciseResult[];
  /** Every exercise of the lesson passes (false for a lesson without exercises). */
  done: boolean;
}

/** The lessons in order, each with its exercises' results; exercises of unknown lessons come last. */
export function byLesson(lessons: Lesson[], results: ExerciseResult[]): LessonStatus[] {
  const rows: LessonStatus[] = lessons.map((lesson) => ({
    number: lesson.number,
    lesson,
    results: [],
    done: false,
  }));
  for (const r of results) {
    let row = rows.find((x) => x.number === r.exercise.lesson);
    if (!row) {
      row = { number: r.exercise.lesson, results: [], done: false };
      rows.push(row);
    }
    row.results.push(r);
  }
  for (const row of rows) row.done = row.results.length > 0 && row.results.every((r) => r.passed);
  return rows;
}

/**
 * The first exercise, in order, that does not pass (the watch mode's "current" one), with its result;
 * undefined when all pass. Checks run two at a time in order and stop at the first that fails.
 */
export async function firstNotPassing(
  exercises: Exercise[],
  options: { root?: string; target?: Target; limit?: number } = {},
): Promise<ExerciseResult | undefined> {
  const { root = ROOT, target = currentTarget(), limit = PARALLEL_CHECKS } = options;
  let first = Infinity;
  const results: ExerciseResult[] = [];
  await inPool(
    exercises.map((e, i) => ({ e, i })),
    limit,
    async ({ e, i }) => {
      if (i > first) return;
      const r = await runExerciseTests(e, target, undefined, { root, typeCheck: true });
      results[i] = r;
      if (!r.passed) first = Math.min(first, i);
    },
  );
  return Number.isFinite(first) ? results[first] : undefined;
}
