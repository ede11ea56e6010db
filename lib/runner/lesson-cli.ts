// `npm run lesson [<n>] [-- flags]`: lists the lessons, or runs one in its own process.
import { spawn } from "node:child_process";
import { runMain, UsageError } from "../core/cli.ts";
import { requireRuntime } from "../core/runtime.ts";
import { terminalWidth, wrap, wrapHanging } from "../core/text.ts";
import { colorWanted } from "../core/trace.ts";
import { findLesson, listExercises, listLessons, ROOT } from "./catalog.ts";
import { recordShippedIfPossible } from "./shipped.ts";
import { byLesson, checkAll, PARALLEL_CHECKS } from "./status.ts";
import { duration, painter } from "./style.ts";

const HELP = `npm run lesson                      list the lessons, with your exercises' status (✓/✗)
npm run lesson <n> [-- <flags>]     run lesson n (1, 01 or its slug)

Flags every lesson takes (after --):
  --seed <int>   seed for everything random (default 1)
  --step         pause after each event until Enter (on a terminal)
  --no-color     no colour (also NO_COLOR, or output that is not a terminal)
  --help         the lesson's own help and flags
Example: npm run lesson 1 -- --step
`;

async function list(): Promise<void> {
  const paint = painter(colorWanted(false));
  const exercises = listExercises(ROOT);
  recordShippedIfPossible(ROOT, exercises);
  // The status comes from running the tests now, a few at a time, so it cannot be out of date.
  const { results, ms } = await checkAll(exercises);
  // Wrapped between words to the terminal (else $COLUMNS, else 100), each part under its own indent.
  const width = terminalWidth();
  const out: string[] = ["Lessons (run one with: npm run lesson <n>)", ""];
  for (const row of byLesson(listLessons(ROOT), results)) {
    const l = row.lesson;
    if (l) {
      out.push(
        ...wrapHanging(`  ${l.number}  `, l.title, width),
        ...wrapHanging("      ", l.summary, width),
      );
    } else out.push(`  ${row.number}  (no lesson file)`);
    const marks = row.results.map(
      (r) => `${r.passed ? paint("green", "✓") : paint("red", "✗")} ${r.exercise.id}`,
    );
    if (marks.length)
      out.push(
        ...wrapHanging(
          "      exercises: ",
          `${marks.join("  ")} (npm run check ${Number(row.number)})`,
          width,
        ),
      );
  }
  if (results.length > 0) {
    out.push(
      "",
      ...wrap(
        `✓/✗: each exercise's tests, run just now (${PARALLEL_CHECKS} at a time, ${duration(ms)}). npm start picks the next one for you.`,
        width,
      ),
    );
  }
  process.stdout.write(`${out.join("\n")}\n`);
}

runMain(async () => {
  requireRuntime();
  const [first, ...rest] = process.argv.slice(2);
  if (first === undefined) return list();
  if (first === "--help" || first === "-h") return void process.stdout.write(HELP);
  if (first.startsWith("-"))
    throw new UsageError(`name the lesson first, e.g. "npm run lesson 1 -- ${first}"`);
  const lessons = listLessons();
  const lesson = findLesson(first, lessons);
  if (!lesson)
    throw new UsageError(
      `there is no lesson "${first}"; the lessons are ${lessons.map((l) => Number(l.number)).join(", ")}`,
    );
  // The lesson checks its own flags; if npm kept some (given before --), it names this command to retype.
  const env = process.env.npm_lifecycle_event
    ? {
        ...process.env,
        WORKBOOK_NPM_COMMAND: `npm run ${process.env.npm_lifecycle_event} ${first}`,
      }
    : process.env;
  const child = spawn(process.execPath, ["--import", "tsx", lesson.file, ...rest], {
    cwd: ROOT,
    stdio: "inherit",
    env,
  });
  // Ctrl-C reaches the lesson directly (same terminal); the runner just waits for it to end.
  process.on("SIGINT", () => {});
  const code = await new Promise<number>((resolve) =>
    child.on("close", (c, signal) => resolve(c ?? (signal === "SIGINT" ? 130 : 1))),
  );
  process.exitCode = code;
});
