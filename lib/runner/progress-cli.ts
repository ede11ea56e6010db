// `npm run progress`: every lesson and exercise with ✓ or ✗, found out by running the tests now (no
// stored flag that could be stale), a progress bar, and the finished banner when everything passes.

import { noColorHelp, parseCommand, runMain } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
import { requireRuntime } from "../core/runtime.ts";
import { terminalWidth, wrap, wrapHanging } from "../core/text.ts";
import { colorWanted } from "../core/trace.ts";
import { listExercises, listLessons, ROOT } from "./catalog.ts";
import { recordShippedIfPossible } from "./shipped.ts";
import { byLesson, checkAll, PARALLEL_CHECKS } from "./status.ts";
import { duration, painter, progressBar } from "./style.ts";

runMain(async () => {
  requireRuntime();
  const { values } = parseCommand({
    usage: t("npm run progress [-- --no-color]"),
    description: t(
      "Runs the tests of every exercise ({n} at a time) and shows each lesson and exercise with ✓ or ✗, a progress bar, and what to do next.",
      { n: PARALLEL_CHECKS },
    ),
    options: { "no-color": { type: "boolean" } },
    optionHelp: { "no-color": noColorHelp() },
  });
  const paint = painter(colorWanted(values["no-color"] === true));
  const exercises = listExercises(ROOT);
  recordShippedIfPossible(ROOT, exercises);
  const { results, ms } = await checkAll(exercises);
  const rows = byLesson(listLessons(ROOT), results);
  const ok = paint("green", "✓");
  const no = paint("red", "✗");
  // Every line wraps between words to the terminal, titles under themselves.
  const width = terminalWidth();
  const write = (lines: string[]): void => void process.stdout.write(`${lines.join("\n")}\n`);

  write(
    wrap(
      t("Your progress (each exercise's tests were run just now, {n} at a time, in {time})", {
        n: PARALLEL_CHECKS,
        time: duration(ms),
      }),
      width,
    ),
  );
  write([""]);
  for (const row of rows) {
    const title = row.lesson?.title ?? t("(no lesson file)");
    if (row.results.length === 0) {
      write(
        wrapHanging(
          `${paint("gray", "·")} ${row.number}  `,
          `${title}${paint("gray", `  ${t("(no exercises)")}`)}`,
          width,
        ),
      );
      continue;
    }
    write(wrapHanging(`${row.done ? ok : no} ${row.number}  `, title, width));
    for (const r of row.results)
      write(wrapHanging(`      ${r.passed ? ok : no} ${r.exercise.id}  `, r.exercise.title, width));
  }

  const passed = results.filter((r) => r.passed).length;
  const withExercises = rows.filter((r) => r.results.length > 0);
  const lessonsDone = withExercises.filter((r) => r.done).length;
  write([""]);
  write(
    wrapHanging(
      `${paint("green", progressBar(passed, results.length))}  `,
      t("exercises passing: {passed}/{total} · lessons done: {done}/{lessons}", {
        passed,
        total: results.length,
        done: lessonsDone,
        lessons: withExercises.length,
      }),
      width,
    ),
  );
  write([""]);
  const next = results.find((r) => !r.passed);
  if (next) {
    const e = next.exercise;
    write(
      wrap(
        t("Next: exercise {id}, {file} (npm start shows it; npm run hint {id} helps).", {
          id: e.id,
          file: e.file,
        }),
        width,
      ),
    );
  } else if (results.length > 0) {
    write(
      wrap(
        t(
          "★ Finished: {n, plural, one {the exercise passes} other {all # exercises pass}}, checked just now. Compare your answers with solutions/.",
          { n: results.length },
        ),
        width,
      ).map((l) => paint("green", l)),
    );
  }
});
