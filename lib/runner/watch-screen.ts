/**
 * What the watch mode shows, as a pure function of its state: one screen of text. The shell clears
 * the terminal before each screen (except below a lesson's output, which stays readable).
 */
import type { Exercise, Lesson } from "../catalog.ts";
import { wrap } from "../trace.ts";
import { PARALLEL_CHECKS } from "./status.ts";
import { allPass, painter, plural, progressBar, type Paint } from "./style.ts";
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
  const width = Math.max(40, Math.min(ctx.width, 100)) - 2;
  const out: string[] = [];
  const para = (text: string, indent = "  ", style?: Parameters<Paint>[0]): void => {
    for (const line of wrap(text, width - indent.length)) out.push(indent + (style ? paint(style, line) : line));
  };
  const exercise = currentExercise(state);

  if (state.view === "lesson" && exercise) {
    const lesson = lessonOf(ctx, exercise);
    if (state.lessonRunning) {
      out.push(paint("bold", `Lesson ${exercise.lesson}${lesson ? ` · ${lesson.title}` : ""}`) + paint("gray", `  (the same as ${lessonCommand(exercise, lesson)}; q quits)`), "");
      return { text: out.join("\n") + "\n", clear: true };
    }
    const exit = state.lessonExit === 0 ? "" : ` (exit code ${state.lessonExit ?? "none"})`;
    out.push("", paint("bold", `Lesson ${exercise.lesson} ended${exit}. Press Enter to go back to exercise ${exercise.id}.`));
    out.push(keyBar(state, paint));
    return { text: out.join("\n") + "\n", clear: false };
  }

  out.push(header(state, paint));
  out.push("");
  // The exercise just solved, with its solution: on top of the next one, or while all are re-checked.
  if (state.solved && state.view === "exercise" && (state.solved !== exercise?.id || state.phase !== "working")) {
    const solved = state.exercises.find((e) => e.id === state.solved)!;
    out.push(paint("green", `✓ Exercise ${solved.id} passes!`) + ` Compare your answer with ${solved.solution}.`, "");
  }

  if (state.view === "list") {
    listView(state, paint, out);
  } else if (state.exercises.length === 0) {
    out.push("  There are no exercises yet: run a lesson with npm run lesson.");
  } else if (state.phase === "checking-all") {
    out.push(
      state.checkingAll === "start"
        ? `  Checking your exercises (${PARALLEL_CHECKS} at a time) to find the first one to do…`
        : "  Every exercise seems to pass: checking them all once more before calling it done…",
      "",
      "  " + state.exercises.map((e) => `${mark(statusOf(state, e.id), paint)} ${e.id}`).join("  "),
    );
  } else if (state.phase === "finished") {
    out.push(paint("green", `★ Finished: ${allPass(state.exercises.length)}, checked again just now.`), "");
    para("Compare your answers with the reference ones in solutions/. The lessons still run on their own (npm run lesson <n>), and npm run progress shows the whole picture.");
  } else if (exercise) {
    exerciseView(state, exercise, ctx, paint, para, out);
  }
  if (ctx.notice) out.push("", paint("yellow", `  ${ctx.notice}`));
  out.push("", keyBar(state, paint));
  return { text: out.join("\n") + "\n", clear: true };
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

function listView(state: WatchState, paint: Paint, out: string[]): void {
  out.push("  Your exercises (✓ passes, ✗ does not yet, ⧗ being checked):", "");
  state.exercises.forEach((e, i) => {
    const here = i === state.current ? paint("bold", "▶") : " ";
    out.push(`  ${here} ${mark(statusOf(state, e.id), paint)} ${e.id}  ${e.title}${paint("gray", `  lesson ${e.lesson} · ${e.file}`)}`);
  });
}

function exerciseView(
  state: WatchState,
  exercise: Exercise,
  ctx: ScreenContext,
  paint: Paint,
  para: (text: string, indent?: string, style?: Parameters<Paint>[0]) => void,
  out: string[],
): void {
  const lesson = lessonOf(ctx, exercise);
  out.push(paint("bold", `Exercise ${exercise.id} · ${exercise.title}`) + paint("gray", `  (${state.current + 1} of ${state.exercises.length})`));
  out.push(`  Lesson ${exercise.lesson}${lesson ? ` · ${lesson.title}` : ""}` + paint("gray", `  (r runs it, or ${lessonCommand(exercise, lesson)})`));
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
    out.push(paint("red", report.timedOut ? "✗ Not yet: the tests did not finish in time (an endless loop?)." : `✗ Not yet:${counts}`));
    const f = report.firstFailure;
    if (f) {
      out.push(`  First failing test: ${f.test}`);
      for (const line of f.error.split("\n").slice(0, ERROR_LINES)) out.push(`    ${paint("red", line)}`);
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
    keys.push(key("h", "hint"), key("l", state.view === "list" ? "back" : "list"), key("r", `run lesson ${exercise.lesson}`), key("n", "next"));
    keys.push(key("⏎", state.phase === "finished" ? "check all again" : "check"));
  }
  keys.push(key("q", "quit"));
  return keys.join(paint("gray", " · "));
}
