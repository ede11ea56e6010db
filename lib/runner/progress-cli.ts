// `npm run progress`: every lesson and exercise with ✓ or ✗, found out by running the tests now (no
// stored flag that could be stale), a progress bar, and the finished banner when everything passes.

import { parseCommand, runMain } from "../core/cli.ts";
import { requireRuntime } from "../core/runtime.ts";
import { colorWanted } from "../core/trace.ts";
import { listExercises, listLessons, ROOT } from "./catalog.ts";
import { recordShippedIfPossible } from "./shipped.ts";
import { byLesson, checkAll, PARALLEL_CHECKS } from "./status.ts";
import { allPass, duration, painter, progressBar } from "./style.ts";

runMain(async () => {
  requireRuntime();
  const { values } = parseCommand({
    usage: "npm run progress [-- --no-color]",
    description: `Runs the tests of every exercise (${PARALLEL_CHECKS} at a time) and shows each lesson and exercise with ✓ or ✗, a progress bar, and what to do next.`,
    options: { "no-color": { type: "boolean" } },
    optionHelp: { "no-color": "no colour (also NO_COLOR, or when output is not a terminal)" },
  });
  const paint = painter(colorWanted(values["no-color"] === true));
  const exercises = listExercises(ROOT);
  recordShippedIfPossible(ROOT, exercises);
  const { results, ms } = await checkAll(exercises);
  const rows = byLesson(listLessons(ROOT), results);
  const ok = paint("green", "✓");
  const no = paint("red", "✗");

  process.stdout.write(
    `Your progress (each exercise's tests were run just now, ${PARALLEL_CHECKS} at a time, in ${duration(ms)})\n\n`,
  );
  for (const row of rows) {
    const title = row.lesson?.title ?? "(no lesson file)";
    if (row.results.length === 0) {
      process.stdout.write(
        `${paint("gray", "·")} ${row.number}  ${title}${paint("gray", "  (no exercises)")}\n`,
      );
      continue;
    }
    process.stdout.write(`${row.done ? ok : no} ${row.number}  ${title}\n`);
    for (const r of row.results)
      process.stdout.write(`      ${r.passed ? ok : no} ${r.exercise.id}  ${r.exercise.title}\n`);
  }

  const passed = results.filter((r) => r.passed).length;
  const withExercises = rows.filter((r) => r.results.length > 0);
  const lessonsDone = withExercises.filter((r) => r.done).length;
  process.stdout.write(
    `\n${paint("green", progressBar(passed, results.length))}  exercises passing: ${passed}/${results.length} · lessons done: ${lessonsDone}/${withExercises.length}\n\n`,
  );
  const next = results.find((r) => !r.passed);
  if (next) {
    const e = next.exercise;
    process.stdout.write(
      `Next: exercise ${e.id}, ${e.file} (npm start shows it; npm run hint ${e.id} helps).\n`,
    );
  } else if (results.length > 0) {
    process.stdout.write(
      paint(
        "green",
        `★ Finished: ${allPass(results.length)}, checked just now. Compare your answers with solutions/.\n`,
      ),
    );
  }
});
