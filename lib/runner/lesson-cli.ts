// `npm run lesson [<n>] [-- flags]`: lists the lessons, or runs one in its own process.
import { spawn } from "node:child_process";
import { findLesson, listExercises, listLessons, ROOT } from "../catalog.ts";
import { UsageError, runMain } from "../cli.ts";
import { requireRuntime } from "./runtime.ts";

const HELP = `npm run lesson                      list the lessons
npm run lesson <n> [-- <flags>]     run lesson n (1, 01 or its slug)

Flags every lesson takes (after --):
  --seed <int>   seed for everything random (default 1)
  --step         pause after each event until Enter (on a terminal)
  --no-color     no colour (also NO_COLOR, or output that is not a terminal)
  --help         the lesson's own help and flags
Example: npm run lesson 1 -- --step
`;

function list(): void {
  const exercises = listExercises();
  process.stdout.write("Lessons (run one with: npm run lesson <n>)\n\n");
  for (const l of listLessons()) {
    const ex = exercises.filter((e) => e.lesson === l.number).map((e) => e.id);
    process.stdout.write(`  ${l.number}  ${l.title}\n      ${l.summary}${ex.length ? `\n      exercises: ${ex.join(", ")} (npm run check ${Number(l.number)})` : ""}\n`);
  }
}

runMain(async () => {
  requireRuntime();
  const [first, ...rest] = process.argv.slice(2);
  if (first === undefined) return list();
  if (first === "--help" || first === "-h") return void process.stdout.write(HELP);
  if (first.startsWith("-")) throw new UsageError(`name the lesson first, e.g. "npm run lesson 1 -- ${first}"`);
  const lessons = listLessons();
  const lesson = findLesson(first, lessons);
  if (!lesson) throw new UsageError(`there is no lesson "${first}"; the lessons are ${lessons.map((l) => Number(l.number)).join(", ")}`);
  const child = spawn(process.execPath, ["--import", "tsx", lesson.file, ...rest], { cwd: ROOT, stdio: "inherit" });
  // Ctrl-C reaches the lesson directly (same terminal); the runner just waits for it to end.
  process.on("SIGINT", () => {});
  const code = await new Promise<number>((resolve) =>
    child.on("close", (c, signal) => resolve(c ?? (signal === "SIGINT" ? 130 : 1))),
  );
  process.exitCode = code;
});
