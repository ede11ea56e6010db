/**
 * What the watch mode shows, as a pure function of its state: one screen of text. The shell clears
 * the terminal before each screen (except below a lesson's output, which stays readable).
 */
import type { Exercise, Lesson } from "./catalog.ts";
import { PARALLEL_CHECKS } from "./status.ts";
import { allPass, painter, plural, progressBar, type Paint } from "./style.ts";
import { fitLine, visibleWidth, wrapWords } from "./text.ts";
import { currentExercise, statusOf, type CheckStatus, type WatchState } from "./watch-core.ts";

export interface ScreenContext {
  color: boolean;
  /** Terminal width in columns. */
  width: number;
  lessons: readonly Lesson[];
  /** A standing note shown above the key bar (e.g. why file watching is off). */
  notice?: string;
}

export interface Screen {
  text: string;
  /** Clear the terminal first. */
  clear: boolean;
}

/** The most lines of an error message shown under a failing test. */
const ERROR_LINES = 12;

export function renderScreen(state: WatchState, ctx: ScreenContext): Screen {
  const paint = painter(ctx.color);
  // Prose is wrapped to at most 100 columns (easier to read), and never wider than the terminal; a line
  // that must stay one line (the list, the key bar) is cut with "…" rather than broken by the terminal.
  const columns = Math.max(40, ctx.width);
  const width = Math.min(columns, 100) - 2;
  const out: string[] = [];
  const para = (text: string, indent = "  ", style?: Parameters<Paint>[0], hanging = indent): void => {
    wrapWords(text, width - Math.max(indent.length, hanging.length)).forEach((line, i) => out.push((i === 0 ? indent : hanging) + (style ? paint(style, line) : line)));
  };
  const done = (text: string, clear: boolean): Screen => ({
    text: text.split("\n").map((l) => fitLine(l, columns - 1)).join("\n"),
    clear,
  });
  const exercise = currentExercise(state);

  if (state.view === "lesson" && exercise) {
    const lesson = lessonOf(ctx, exercise);
    if (state.lessonRunning) {
      out.push(...beside(paint("bold", `Lesson ${exercise.lesson}${lesson ? ` · ${lesson.title}` : ""}`), `(the same as ${lessonCommand(exercise, lesson)}; q quits)`, columns, paint), "");
      return done(out.join("\n") + "\n", true);
    }
    const exit = state.lessonExit === 0 ? "" : ` (exit code ${state.lessonExit ?? "none"})`;
    out.push("");
    para(`Lesson ${exercise.lesson} ended${exit}. Press Enter to go back to exercise ${exercise.id}.`, "", "bold");
    out.push(keyBar(state, paint));
    return done(out.join("\n") + "\n", false);
  }

  out.push(header(state, paint));
  out.push("");
  // The exercise just solved, with its solution: on top of the next one, or while all are re-checked.
  if (state.solved && state.view === "exercise" && (state.solved !== exercise?.id || state.phase !== "working")) {
    const solved = state.exercises.find((e) => e.id === state.solved)!;
    out.push(paint("green", `✓ Exercise ${solved.id} passes!`) + ` Compare your answer with ${solved.solution}.`, "");
  }

  if (state.view === "list") {
    listView(state, paint, out, columns - 1);
  } else if (state.exercises.length === 0) {
    out.push("  There are no exercises yet: run a lesson with npm run lesson.");
  } else if (state.phase === "checking-all") {
    para(
      state.checkingAll === "start"
        ? `Checking your exercises (${PARALLEL_CHECKS} at a time) to find the first one to do…`
        : "Every exercise seems to pass: checking them all once more before calling it done…",
    );
    out.push("");
    // Marks and ids as one word each, so that a narrow terminal wraps between exercises, never inside one.
    for (const line of wrapWords(state.exercises.map((e) => `${statusOf(state, e.id)}:${e.id}`).join("  "), width - 2)) {
      out.push("  " + line.replace(/(\w+):(\d\d[a-z])/g, (_m, status: CheckStatus, id: string) => `${mark(status, paint)} ${id}`));
    }
  } else if (state.phase === "finished") {
    out.push(paint("green", `★ Finished: ${allPass(state.exercises.length)}, checked again just now.`), "");
    para("Compare your answers with the reference ones in solutions/. The lessons still run on their own (npm run lesson <n>), and npm run progress shows the whole picture.");
  } else if (exercise) {
    exerciseView(state, exercise, ctx, paint, para, out, width);
  }
  if (ctx.notice) out.push("", paint("yellow", `  ${ctx.notice}`));
  out.push("", keyBar(state, paint));
  return done(out.join("\n") + "\n", true);
}

function header(state: WatchState, paint: Paint): string {
  const total = state.exercises.length;
  const passed = state.exercises.filter((e) => statusOf(state, e.id) === "passed").length;
  const checking = state.exercises.some((e) => statusOf(state, e.id) === "checking");
  return `${paint("bold", "retry-workbook")}  ${paint("green", progressBar(passed, total, 20))} ${passed}/${total} exercises pass${checking ? paint("gray", "  (checking…)") : ""}`;
}

function mark(status: CheckStatus, paint: Paint): string {
  switch (status) {
    case "passed":
      return paint("green", "✓");
    case "failed":
      return paint("red", "✗");
    case "checking":
      return paint("yellow", "⧗");
    default:
      return paint("gray", "·");
  }
}

function lessonOf(ctx: ScreenContext, exercise: Exercise): Lesson | undefined {
  return ctx.lessons.find((l) => l.number === exercise.lesson);
}

function lessonCommand(exercise: Exercise, lesson: Lesson | undefined): string {
  return lesson?.run ?? `npm run lesson ${Number(exercise.lesson)}`;
}

function listView(state: WatchState, paint: Paint, out: string[], room: number): void {
  out.push("  Your exercises (✓ passes, ✗ does not yet, ⧗ being checked):", "");
  state.exercises.forEach((e, i) => {
    const here = i === state.current ? paint("bold", "▶") : " ";
    const row = `  ${here} ${mark(statusOf(state, e.id), paint)} ${e.id}  ${e.title}`;
    const full = `${row}${paint("gray", `  lesson ${e.lesson} · ${e.file}`)}`;
    // A file name is left out whole rather than cut (the exercise's own screen shows it).
    out.push(visibleWidth(full) <= room ? full : `${row}${paint("gray", `  lesson ${e.lesson}`)}`);
  });
}

function exerciseView(
  state: WatchState,
  exercise: Exercise,
  ctx: ScreenContext,
  paint: Paint,
  para: (text: string, indent?: string, style?: Parameters<Paint>[0], hanging?: string) => void,
  out: string[],
  width: number,
): void {
  const lesson = lessonOf(ctx, exercise);
  out.push(...beside(paint("bold", `Exercise ${exercise.id} · ${exercise.title}`), `(${state.current + 1} of ${state.exercises.length})`, width + 2, paint));
  out.push(...beside(`  Lesson ${exercise.lesson}${lesson ? ` · ${lesson.title}` : ""}`, `(r runs it, or ${lessonCommand(exercise, lesson)})`, width + 2, paint));
  if (lesson?.summary) para(lesson.summary, "    ", "gray");
  if (exercise.goal) {
    out.push("");
    exercise.goal.split("\n").forEach((line, i) => para(i === 0 ? `Goal: ${line}` : line, i === 0 ? "  " : "    "));
  }
  out.push("", `  Edit ${paint("bold", exercise.file)}`, "");

  const check = state.checks[exercise.id];
  const report = check?.report;
  if (check?.status === "checking") {
    out.push(paint("yellow", `⧗ Checking ${exercise.id}…`));
  } else if (check?.status === "passed" && report) {
    const all = report.counts ? `All ${plural(report.counts.tests, "test")} pass.` : "Its tests pass.";
    out.push(paint("green", `✓ ${all}`) + ` Compare your answer with ${exercise.solution}; n goes on.`);
  } else if (check?.status === "failed" && report) {
    const counts = report.counts ? ` ${report.counts.pass} of ${plural(report.counts.tests, "test")} pass.` : "";
    para(report.verdict ? `✗ Not yet: ${report.verdict}` : `✗ Not yet:${counts}`, "", "red", "  ");
    const f = report.firstFailure;
    // The verdict may already be the whole story (a syntax error, a hang); then the test is not repeated.
    if (f && !(report.verdict && f.error.includes(report.verdict.replace(/^type error at /, "")))) {
      para(`First failing test: ${f.test}`, "  ", undefined, "    ");
      const lines = f.error.split("\n").flatMap((l) => (l.trim() === "" ? [""] : wrapWords(l, width - 4)));
      for (const line of lines.slice(0, ERROR_LINES)) out.push(`    ${paint("red", line)}`);
    }
  } else {
    out.push(paint("gray", "· Not checked yet."));
  }
  if (state.showHint) {
    out.push("", paint("bold", "  Hint") + paint("gray", " (h hides it)"));
    para(exercise.hint || "(no hint for this one)", "    ");
  }
  out.push("", paint("gray", state.manual ? "  Save the file, then press Enter to check it again." : "  Save the file to check it again."));
}

function keyBar(state: WatchState, paint: Paint): string {
  const key = (k: string, what: string): string => `${paint("bold", k)} ${what}`;
  const exercise = currentExercise(state);
  const keys: string[] = [];
  if (exercise) {
    keys.push(key("h", "hint"), key("l", state.view === "list" ? "back" : "list"), key("r", `run lesson ${exercise.lesson}`), key("n", "next"), key("p", "previous"));
    keys.push(key("⏎", state.phase === "finished" ? "check all again" : "check"));
  }
  keys.push(key("q", "quit"));
  return keys.join(paint("gray", " · "));
}

/** `main` and then the grey `note` on the same line when both fit in `columns - 1`, else `note` wrapped below it. */
function beside(main: string, note: string, columns: number, paint: Paint): string[] {
  if (visibleWidth(main) + 2 + visibleWidth(note) <= columns - 1) return [`${main}  ${paint("gray", note)}`];
  return [main, ...wrapWords(note, columns - 5).map((l) => `    ${paint("gray", l)}`)];
}
