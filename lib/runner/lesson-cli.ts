// `npm run lesson [<n>] [-- flags]`: lists the lessons, or runs one in its own process. The flags
// before the lesson's number are this command's (--lang, --no-color, --help); those after it are the
// lesson's, handed on as they are (`npm run lesson 3 -- --lang zh` runs lesson 03 in Chinese).
import { spawn } from "node:child_process";
import { langNpmKept, noColorHelp, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
import { requireRuntime } from "../core/runtime.ts";
import { terminalWidth, wrap, wrapHanging } from "../core/text.ts";
import { colorWanted } from "../core/trace.ts";
import { findLesson, listExercises, listLessons, ROOT } from "./catalog.ts";
import { recordShippedIfPossible } from "./shipped.ts";
import { byLesson, checkAll, PARALLEL_CHECKS } from "./status.ts";
import { duration, labelled, painter } from "./style.ts";

/** The command line of the list (and of --help, which also says what every lesson takes). */
function listSpec() {
  return {
    usage: t("npm run lesson [-- --no-color]   or   npm run lesson <n> [-- <the lesson's flags>]"),
    description: t(
      "Without a lesson: lists the lessons, with your exercises' status (✓/✗, their tests run now). With one (1, 01 or its slug): runs it.\n\nFlags every lesson takes (after --):\n  --seed <int>   seed for everything random (default 1)\n  --step         pause after each event until Enter (on a terminal)\n  --no-color     no colour (also NO_COLOR, or output that is not a terminal)\n  --lang zh|en   the language it speaks\n  --help         the lesson's own help and flags\n\nExample: npm run lesson 1 -- --step",
    ),
    options: { "no-color": { type: "boolean" } },
    optionHelp: { "no-color": noColorHelp() },
  } as const;
}

async function list(argv: string[]): Promise<void> {
  const { values } = parseCommand(listSpec(), argv);
  requireRuntime();
  const paint = painter(colorWanted(values["no-color"] === true));
  const exercises = listExercises(ROOT);
  recordShippedIfPossible(ROOT, exercises);
  // The status comes from running the tests now, a few at a time, so it cannot be out of date.
  const { results, ms } = await checkAll(exercises);
  // Wrapped between words to the terminal (else $COLUMNS, else 100), each part under its own indent.
  const width = terminalWidth();
  const out: string[] = [...wrap(t("Lessons (run one with: npm run lesson <n>)"), width), ""];
  for (const row of byLesson(listLessons(ROOT), results)) {
    const l = row.lesson;
    if (l) {
      out.push(
        ...wrapHanging(`  ${l.number}  `, l.title, width),
        ...wrapHanging("      ", l.summary, width),
      );
    } else out.push(...wrapHanging(`  ${row.number}  `, t("(no lesson file)"), width));
    const marks = row.results.map(
      (r) => `${r.passed ? paint("green", "✓") : paint("red", "✗")} ${r.exercise.id}`,
    );
    if (marks.length)
      out.push(
        ...wrapHanging(
          `      ${labelled(t("exercises:"))}`,
          `${marks.join("  ")} (npm run check ${Number(row.number)})`,
          width,
        ),
      );
  }
  if (results.length > 0) {
    out.push(
      "",
      ...wrap(
        t(
          "✓/✗: each exercise's tests, run just now ({n} at a time, {time}). npm start picks the next one for you.",
          { n: PARALLEL_CHECKS, time: duration(ms) },
        ),
        width,
      ),
    );
  }
  process.stdout.write(`${out.join("\n")}\n`);
}

runMain(async () => {
  const argv = process.argv.slice(2);
  // `npm run lesson 3 --lang zh` gives npm the flag (as its own --long) and only "zh" to us.
  const kept = langNpmKept(argv);
  if (kept.length > 0) {
    const lesson = argv.find((a) => /^\d/.test(a)) ?? "<n>";
    throw new UsageError(
      t("npm kept {flags} for itself; put flags after --: {command} -- {flags}", {
        flags: kept.join(" "),
        command: `npm run lesson ${lesson}`,
      }),
    );
  }
  // This command's own flags come before the lesson; --lang may be given there too, for the lesson.
  const at = argv.findIndex((a, i) => !a.startsWith("-") && !(i > 0 && argv[i - 1] === "--lang"));
  if (at < 0) return list(argv);
  const before = argv.slice(0, at);
  const outside = before.filter(
    (a, i) => !(a === "--lang" || a.startsWith("--lang=") || before[i - 1] === "--lang"),
  );
  if (outside.length > 0)
    throw new UsageError(
      t("name the lesson first, e.g. {example}", {
        example: `"npm run lesson 1 -- ${outside.join(" ")}"`,
      }),
    );
  requireRuntime();
  const first = argv[at]!;
  const lessons = listLessons();
  const lesson = findLesson(first, lessons);
  if (!lesson)
    throw new UsageError(
      t("there is no lesson {query}; the lessons are {numbers}", {
        query: `"${first}"`,
        numbers: lessons.map((l) => Number(l.number)).join(", "),
      }),
    );
  // The lesson checks its own flags; if npm kept some (given before --), it names this command to retype.
  const env = process.env.npm_lifecycle_event
    ? {
        ...process.env,
        WORKBOOK_NPM_COMMAND: `npm run ${process.env.npm_lifecycle_event} ${first}`,
      }
    : process.env;
  const child = spawn(
    process.execPath,
    ["--import", "tsx", lesson.file, ...before, ...argv.slice(at + 1)],
    { cwd: ROOT, stdio: "inherit", env },
  );
  // Ctrl-C reaches the lesson directly (same terminal); the runner just waits for it to end.
  process.on("SIGINT", () => {});
  const code = await new Promise<number>((resolve) =>
    child.on("close", (c, signal) => resolve(c ?? (signal === "SIGINT" ? 130 : 1))),
  );
  process.exitCode = code;
});
