/**
 * What the watch mode shows, as a pure function of its state: one screen of text. The shell clears
 * the terminal before each screen (except below a lesson's output, which stays readable).
 */

import {
  displayWidth,
  stripAnsi,
  truncate,
  wrap,
  wrapHanging,
  wrapKeepingSpaces,
} from "../core/text.ts";
import type { Exercise, Lesson } from "./catalog.ts";
import { PARALLEL_CHECKS } from "./status.ts";
import { allPass, type Paint, painter, plural, progressBar } from "./style.ts";
import { type CheckStatus, currentExercise, statusOf, type WatchState } from "./watch-core.ts";

export interface ScreenContext {
  color: boolean;
  /** Terminal width in columns. */
  width: number;
  /** Terminal height in rows; without it (a pipe, a log) the screen is as tall as it needs. */
  rows?: number;
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
/** The fewest rows the screen is fitted to, whatever the terminal says (header, a marker, the footer). */
const MIN_ROWS = 8;

/**
 * A run of lines that may be shortened when the screen is taller than the terminal: its first lines
 * are kept and the rest replaced by one line saying how many are left out (`more`), or, without
 * `more`, the run is left out whole.
 */
interface Cut {
  lines: string[];
  /** Runs give up lines in this order, the lowest first. */
  order: number;
  /** Lines always kept (before the marker). */
  keep: number;
  /** The most lines shown even when there is room (the rest are counted in the marker). */
  cap?: number;
  more?: (hidden: number) => string;
  /** Lines shown, set by fitRows. */
  show?: number;
}
type Line = string | Cut;

export function renderScreen(state: WatchState, ctx: ScreenContext): Screen {
  const paint = painter(ctx.color);
  // Prose is wrapped to at most 100 columns (easier to read), and never wider than the terminal; a line
  // that must stay one line (the list, the key bar) is cut with "…" rather than broken by the terminal.
  const columns = Math.max(40, ctx.width);
  const width = Math.min(columns, 100) - 2;
  const out: Line[] = [];
  const para = (
    text: string,
    indent = "  ",
    style?: Parameters<Paint>[0],
    hanging = indent,
  ): string[] =>
    wrap(text, width - Math.max(displayWidth(indent), displayWidth(hanging))).map(
      (line, i) => (i === 0 ? indent : hanging) + (style ? paint(style, line) : line),
    );
  const add = (...args: Parameters<typeof para>): void => void out.push(...para(...args));
  // The text ends with a newline, so the cursor takes one more row below the last line.
  const room = ctx.rows === undefined ? Infinity : Math.max(MIN_ROWS, ctx.rows) - 1;
  const footer = (ctx.notice ? 2 : 0) + 2;
  const done = (lines: Line[], clear: boolean): Screen => ({
    text: `${fitRows(lines, room, footer, paint)
      .map((l) => truncate(l, columns - 1))
      .join("\n")}\n`,
    clear,
  });
  const exercise = currentExercise(state);

  if (state.view === "lesson" && exercise) {
    const lesson = lessonOf(ctx, exercise);
    if (state.lessonRunning) {
      out.push(
        ...beside(
          `Lesson ${exercise.lesson}${lesson ? ` · ${lesson.title}` : ""}`,
          `(the same as ${lessonCommand(exercise, lesson)}; q quits)`,
          columns,
          paint,
          "bold",
        ),
        "",
      );
      return done(out, true);
    }
    const exit = state.lessonExit === 0 ? "" : ` (exit code ${state.lessonExit ?? "none"})`;
    out.push("");
    add(
      `Lesson ${exercise.lesson} ended${exit}. Press Enter to go back to exercise ${exercise.id}.`,
      "",
      "bold",
    );
    out.push(keyBar(state, paint));
    return done(out, false);
  }

  out.push(header(state, paint));
  out.push("");
  // The exercise just solved, with its solution: on top of the next one, or while all are re-checked.
  if (
    state.solved &&
    state.view === "exercise" &&
    (state.solved !== exercise?.id || state.phase !== "working")
  ) {
    const solved = state.exercises.find((e) => e.id === state.solved)!;
    out.push(
      `${paint("green", `✓ Exercise ${solved.id} passes!`)} Compare your answer with ${solved.solution}.`,
      "",
    );
  }

  if (state.view === "list") {
    // The list's rows get what the header, its title and the footer leave.
    listView(state, paint, out, columns - 1, room - out.length - 2 - footer);
  } else if (state.exercises.length === 0) {
    out.push("  There are no exercises yet: run a lesson with npm run lesson.");
  } else if (state.phase === "checking-all") {
    add(
      state.checkingAll === "start"
        ? `Checking your exercises (${PARALLEL_CHECKS} at a time) to find the first one to do…`
        : "Every exercise seems to pass: checking them all once more before calling it done…",
    );
    out.push("");
    // Marks and ids as one word each, so that a narrow terminal wraps between exercises, never inside one.
    for (const line of wrap(
      state.exercises.map((e) => `${statusOf(state, e.id)}:${e.id}`).join("  "),
      width - 2,
    )) {
      const marked = line.replace(
        /(\w+):(\d\d[a-z])/g,
        (_m, status: CheckStatus, id: string) => `${mark(status, paint)} ${id}`,
      );
      out.push(`  ${marked}`);
    }
  } else if (state.phase === "finished") {
    out.push(
      paint("green", `★ Finished: ${allPass(state.exercises.length)}, checked again just now.`),
      "",
    );
    add(
      "Compare your answers with the reference ones in solutions/. The lessons still run on their own (npm run lesson <n>), and npm run progress shows the whole picture.",
    );
  } else if (exercise) {
    exerciseView(state, exercise, ctx, paint, para, out, width);
  }
  // The footer: `footer` lines, never shortened.
  if (ctx.notice) out.push("", paint("yellow", `  ${ctx.notice}`));
  out.push("", keyBar(state, paint));
  return done(out, true);
}

/**
 * The screen's lines, no more than `room`: the runs that may be shortened give up lines in their
 * order until the screen fits; if it still does not, the middle is cut below what fits, so that the
 * header (the first line) and the footer (the last `footer` lines, with the keys) always show.
 */
function fitRows(lines: Line[], room: number, footer: number, paint: Paint): string[] {
  const cuts = lines.filter((l): l is Cut => typeof l !== "string");
  const height = (c: Cut): number =>
    c.show! < c.lines.length ? c.show! + (c.more ? 1 : 0) : c.lines.length;
  for (const c of cuts) c.show = Math.min(c.lines.length, c.cap ?? Infinity);
  let total = lines.reduce((n, l) => n + (typeof l === "string" ? 1 : height(l)), 0);
  for (const c of [...cuts].sort((a, b) => a.order - b.order)) {
    if (total <= room) break;
    const before = height(c);
    if (!c.more) c.show = 0;
    // Hiding one line behind a marker saves nothing: go on until the run is short enough or at its floor.
    else while (c.show! > c.keep && total - before + height(c) > room) c.show!--;
    // A marker right under a blank line would look like a gap: the blank goes too.
    while (
      c.more &&
      c.show! > 0 &&
      c.show! < c.lines.length &&
      stripAnsi(c.lines[c.show! - 1]!).trim() === ""
    )
      c.show!--;
    if (c.more && height(c) >= before) c.show = Math.min(c.lines.length, c.cap ?? Infinity);
    total += height(c) - before;
  }
  const out = lines.flatMap((l) => {
    if (typeof l === "string") return [l];
    const shown = l.lines.slice(0, l.show);
    return l.show! < l.lines.length && l.more
      ? [...shown, paint("gray", l.more(l.lines.length - l.show!))]
      : shown;
  });
  if (out.length <= room) return out;
  const middle = out.slice(1, out.length - footer);
  const keep = Math.max(0, room - footer - 2);
  return [
    out[0]!,
    ...middle.slice(0, keep),
    paint("gray", `  … ${more(middle.length - keep)} (a taller terminal shows them)`),
    ...out.slice(out.length - footer),
  ];
}

/** "1 more line", "3 more lines". */
function more(n: number): string {
  return `${n} more line${n === 1 ? "" : "s"}`;
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

/**
 * One row per exercise, its title wrapped under itself rather than cut; the lesson and the file follow
 * when they fit on the title's line (the id says the lesson, the exercise's own screen shows the file).
 * When the rows do not fit in `height` lines, those around the current exercise show, with how many
 * are left out above and below.
 */
function listView(
  state: WatchState,
  paint: Paint,
  out: Line[],
  columns: number,
  height: number,
): void {
  out.push("  Your exercises (✓ passes, ✗ does not yet, ⧗ being checked):", "");
  const rows = state.exercises.map((e, i) => {
    const here = i === state.current ? paint("bold", "▶") : " ";
    const lead = `  ${here} ${mark(statusOf(state, e.id), paint)} ${e.id}  `;
    const full = `${lead}${e.title}${paint("gray", `  lesson ${e.lesson} · ${e.file}`)}`;
    return displayWidth(full) <= columns ? [full] : wrapHanging(lead, e.title, columns);
  });
  const count = (from: number, to: number): number =>
    rows.slice(from, to).reduce((n, r) => n + r.length, 0);
  let [from, to] = [0, rows.length];
  if (count(from, to) > height) {
    // Two lines for the markers; then rows below the current one and above it, in turn, while they fit.
    [from, to] = [state.current, state.current + 1];
    for (let grew = true; grew; ) {
      grew = false;
      if (to < rows.length && count(from, to + 1) <= height - 2) [to, grew] = [to + 1, true];
      if (from > 0 && count(from - 1, to) <= height - 2) [from, grew] = [from - 1, true];
    }
  }
  if (from > 0) out.push(paint("gray", `  … ${from} more above`));
  out.push(...rows.slice(from, to).flat());
  if (to < rows.length) out.push(paint("gray", `  … ${rows.length - to} more below`));
}

function exerciseView(
  state: WatchState,
  exercise: Exercise,
  ctx: ScreenContext,
  paint: Paint,
  para: (text: string, indent?: string, style?: Parameters<Paint>[0], hanging?: string) => string[],
  out: Line[],
  width: number,
): void {
  const lesson = lessonOf(ctx, exercise);
  out.push(
    ...beside(
      `Exercise ${exercise.id} · ${exercise.title}`,
      `(${state.current + 1} of ${state.exercises.length})`,
      width + 2,
      paint,
      "bold",
    ),
  );
  out.push(
    ...beside(
      `  Lesson ${exercise.lesson}${lesson ? ` · ${lesson.title}` : ""}`,
      `(r runs it, or ${lessonCommand(exercise, lesson)})`,
      width + 2,
      paint,
    ),
  );
  // On a short terminal, lines give up room in this order: the lesson's summary (r runs the lesson),
  // the reminder to save, the error's detail (all of it when the hint is asked for), the goal, the
  // hint; each shortened one says how many lines it left out and where to read them.
  if (lesson?.summary) out.push({ lines: para(lesson.summary, "    ", "gray"), order: 0, keep: 0 });
  if (exercise.goal) {
    out.push("");
    out.push({
      lines: exercise.goal
        .split("\n")
        .flatMap((line, i) => para(i === 0 ? `Goal: ${line}` : line, i === 0 ? "  " : "    ")),
      order: 3,
      keep: 1,
      more: (n) => `    … ${more(n)} (the whole goal is at the top of the file)`,
    });
  }
  out.push("", `  Edit ${paint("bold", exercise.file)}`, "");

  const check = state.checks[exercise.id];
  const report = check?.report;
  if (check?.status === "checking") {
    out.push(paint("yellow", `⧗ Checking ${exercise.id}…`));
  } else if (check?.status === "passed" && report) {
    const all = report.counts
      ? `All ${plural(report.counts.tests, "test")} pass.`
      : "Its tests pass.";
    out.push(
      `${paint("green", `✓ ${all}`)} Compare your answer with ${exercise.solution}; n goes on.`,
    );
  } else if (check?.status === "failed" && report) {
    const counts = report.counts
      ? ` ${report.counts.pass} of ${plural(report.counts.tests, "test")} pass.`
      : "";
    out.push(
      ...para(
        report.verdict ? `✗ Not yet: ${report.verdict}` : `✗ Not yet:${counts}`,
        "",
        "red",
        "  ",
      ),
    );
    const f = report.firstFailure;
    // The verdict may already be the whole story (a syntax error, a hang); then the test is not repeated.
    if (f && !(report.verdict && f.error.includes(report.verdict.replace(/^type error at /, "")))) {
      out.push(...para(`First failing test: ${f.test}`, "  ", undefined, "    "));
      const lines = f.error
        .split("\n")
        .flatMap((l) => (l.trim() === "" ? [""] : wrapKeepingSpaces(l, width - 4, 0)));
      out.push({
        lines: lines.map((line) => `    ${paint("red", line)}`),
        order: 2,
        keep: state.showHint ? 0 : 2,
        cap: ERROR_LINES,
        more: (n) => `    … ${more(n)}: npm run check ${exercise.id} shows the whole error`,
      });
    }
  } else {
    out.push(paint("gray", "· Not checked yet."));
  }
  if (state.showHint) {
    out.push("", paint("bold", "  Hint") + paint("gray", " (h hides it)"));
    // Every step, a paragraph each (as shipped, each hint is one step).
    out.push({
      lines: para(exercise.hintSteps.join("\n\n"), "    "),
      order: 4,
      keep: 1,
      more: (n) => `    … ${more(n)}: npm run hint ${exercise.id} prints it whole`,
    });
  }
  out.push({
    lines: [
      "",
      paint(
        "gray",
        state.manual
          ? "  Save the file, then press Enter to check it again."
          : "  Save the file to check it again.",
      ),
    ],
    order: 1,
    keep: 0,
  });
}

function keyBar(state: WatchState, paint: Paint): string {
  const key = (k: string, what: string): string => `${paint("bold", k)} ${what}`;
  const exercise = currentExercise(state);
  const keys: string[] = [];
  if (exercise) {
    keys.push(
      key("h", "hint"),
      key("l", state.view === "list" ? "back" : "list"),
      key("r", `run lesson ${exercise.lesson}`),
      key("n", "next"),
      key("p", "previous"),
    );
    keys.push(key("⏎", state.phase === "finished" ? "check all again" : "check"));
  }
  keys.push(key("q", "quit"));
  return keys.join(paint("gray", " · "));
}

/**
 * `main` (wrapped to `columns - 1`, never cut, its continuation lines indented by 2) and then the grey `note` on its last line when both fit,
 * else `note` wrapped below it.
 */
function beside(
  main: string,
  note: string,
  columns: number,
  paint: Paint,
  style?: Parameters<Paint>[0],
): string[] {
  const lead = /^ */.exec(main)![0];
  const lines = wrap(main.trimStart(), columns - 1 - lead.length, columns - 3 - lead.length).map(
    (l, i) => `${lead}${i === 0 ? "" : "  "}${l}`,
  );
  const last = lines.pop()!;
  const styled = (l: string): string => (style ? paint(style, l) : l);
  const head = lines.map(styled);
  if (displayWidth(last) + 2 + displayWidth(note) <= columns - 1)
    return [...head, `${styled(last)}  ${paint("gray", note)}`];
  return [...head, styled(last), ...wrap(note, columns - 5).map((l) => `    ${paint("gray", l)}`)];
}
