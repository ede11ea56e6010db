/**
 * What the watch mode shows, as a pure function of its state: one screen of text, in the language
 * chosen (lib/core/i18n.ts). The shell clears the terminal before each screen (except below a lesson's
 * output, which stays readable).
 */

import { t } from "../core/i18n.ts";
import {
  displayWidth,
  padEnd,
  stripAnsi,
  truncate,
  wrap,
  wrapHanging,
  wrapKeepingSpaces,
} from "../core/text.ts";
import type { Exercise, Lesson } from "./catalog.ts";
import { PARALLEL_CHECKS } from "./status.ts";
import { labelColumn, labelled, type Paint, painter, progressBar, sentences } from "./style.ts";
import {
  type CheckReport,
  type CheckStatus,
  currentExercise,
  justSolved,
  statusOf,
  type WatchState,
} from "./watch-core.ts";

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
/** The most lines of each compared value (actual, expected) kept on a short terminal. */
const VALUE_LINES = 3;
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

/** What a part of the screen writes its prose with: wrapped to the width, indented, maybe styled. */
type Para = (
  text: string,
  indent?: string,
  style?: Parameters<Paint>[0],
  hanging?: string,
) => string[];

// On a short terminal, runs give up lines in this order: the lesson's summary (r runs the lesson), the
// reminder to save, the goal, the error's message, the hint, the compared values. What is kept of each
// (the goal's first line, the failing test, its actual and expected values or else the error's first
// line, the hint's first line) shows before anything else that can be cut.
const ORDER = { summary: 0, save: 1, goal: 2, error: 3, hint: 4, values: 5 } as const;

export function renderScreen(state: WatchState, ctx: ScreenContext): Screen {
  const paint = painter(ctx.color);
  // Prose is wrapped to at most 100 columns (easier to read), and never wider than the terminal; a line
  // that must stay one line (the list, the key bar) is cut with "…" rather than broken by the terminal.
  const columns = Math.max(40, ctx.width);
  const width = Math.min(columns, 100) - 2;
  const out: Line[] = [];
  const para: Para = (text, indent = "  ", style, hanging = indent) =>
    wrap(text, width - Math.max(displayWidth(indent), displayWidth(hanging))).map(
      (line, i) => (i === 0 ? indent : hanging) + (style ? paint(style, line) : line),
    );
  const add = (...args: Parameters<Para>): void => void out.push(...para(...args));
  // The text ends with a newline, so the cursor takes one more row below the last line.
  const room = ctx.rows === undefined ? Infinity : Math.max(MIN_ROWS, ctx.rows) - 1;
  const notice = ctx.notice ? para(ctx.notice, "  ", "yellow") : [];
  const footer = (notice.length > 0 ? notice.length + 1 : 0) + 2;
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
      const title = beside(
        lessonTitle(exercise, lesson),
        t("(the same as {command}; q quits)", { command: lessonCommand(exercise, lesson) }),
        columns,
        paint,
        "bold",
      );
      out.push(...title.lines, ...title.below, "");
      return done(out, true);
    }
    const values = { number: exercise.lesson, id: exercise.id };
    out.push("");
    add(
      state.lessonExit === 0
        ? t("Lesson {number} ended. Press Enter to go back to exercise {id}.", values)
        : t("Lesson {number} ended (exit code {code}). Press Enter to go back to exercise {id}.", {
            ...values,
            code: String(state.lessonExit ?? t("none")),
          }),
      "",
      "bold",
    );
    out.push(keyBar(state, paint));
    return done(out, false);
  }

  out.push(header(state, paint));
  out.push("");
  const solved = justSolved(state);
  if (solved && exercise) {
    solvedView(solved, exercise, para, out);
  } else {
    // The exercise just solved, above the check of them all or the finished banner.
    if (state.solved && state.view === "exercise" && state.phase !== "working") {
      const file = state.exercises.find((e) => e.id === state.solved)!.solution;
      out.push(
        ...para(
          sentences(
            paint("green", t("✓ Exercise {id} passes!", { id: state.solved })),
            t("Compare your answer with {file}.", { file }),
          ),
          "",
        ),
        "",
      );
    }
    if (state.view === "list") {
      // The list's rows get what the header, its title and the footer leave.
      listView(state, paint, out, columns - 1, room - out.length - 2 - footer);
    } else if (state.exercises.length === 0) {
      add(t("There are no exercises yet: run a lesson with npm run lesson."));
    } else if (state.phase === "checking-all") {
      add(
        state.checkingAll === "start"
          ? t("Checking your exercises ({n} at a time) to find the first one to do…", {
              n: PARALLEL_CHECKS,
            })
          : t("Every exercise seems to pass: checking them all once more before calling it done…"),
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
        ...para(
          t(
            "★ Finished: {n, plural, one {the exercise passes} other {all # exercises pass}}, checked again just now.",
            { n: state.exercises.length },
          ),
          "",
          "green",
        ),
        "",
      );
      add(
        t(
          "Compare your answers with the reference ones in solutions/. The lessons still run on their own (npm run lesson <n>), and npm run progress shows the whole picture.",
        ),
      );
    } else if (exercise) {
      exerciseView(state, exercise, ctx, paint, para, out, width);
    }
  }
  // The footer: `footer` lines, never shortened.
  if (notice.length > 0) out.push("", ...notice);
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
    paint(
      "gray",
      `  … ${t("{n, plural, one {# more line} other {# more lines}} (a taller terminal shows them)", { n: middle.length - keep })}`,
    ),
    ...out.slice(out.length - footer),
  ];
}

function header(state: WatchState, paint: Paint): string {
  const total = state.exercises.length;
  const passed = state.exercises.filter((e) => statusOf(state, e.id) === "passed").length;
  const checking = state.exercises.some((e) => statusOf(state, e.id) === "checking");
  return `${paint("bold", "retry-workbook")}  ${paint("green", progressBar(passed, total, 20))} ${t("{passed}/{total} exercises pass", { passed, total })}${checking ? paint("gray", `  ${t("(checking…)")}`) : ""}`;
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

/** "Lesson 02 · How long to wait: backoff and jitter", in the chosen language. */
function lessonTitle(exercise: Exercise, lesson: Lesson | undefined): string {
  return lesson
    ? t("Lesson {number} · {title}", { number: exercise.lesson, title: lesson.title })
    : t("Lesson {number}", { number: exercise.lesson });
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
  out.push(
    ...wrapHanging("  ", t("Your exercises (✓ passes, ✗ does not yet, ⧗ being checked):"), columns),
    "",
  );
  const rows = state.exercises.map((e, i) => {
    const here = i === state.current ? paint("bold", "▶") : " ";
    const lead = `  ${here} ${mark(statusOf(state, e.id), paint)} ${e.id}  `;
    const where = t("lesson {number} · {file}", { number: e.lesson, file: e.file });
    const full = `${lead}${e.title}${paint("gray", `  ${where}`)}`;
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
  if (from > 0) out.push(paint("gray", `  … ${t("{n} more above", { n: from })}`));
  out.push(...rows.slice(from, to).flat());
  if (to < rows.length)
    out.push(paint("gray", `  … ${t("{n} more below", { n: rows.length - to })}`));
}

/** The moment after a pass: the exercise solved, its solution, and the next exercise, named. */
function solvedView(solved: Exercise, next: Exercise, para: Para, out: Line[]): void {
  out.push(
    ...para(t("✓ Exercise {id} passes!", { id: solved.id }), "", "green"),
    ...para(t("Compare your answer with {file}.", { file: solved.solution })),
    "",
    ...para(t("Next: exercise {id} · {title}", { id: next.id, title: next.title }), "  ", "bold"),
    ...para(t("Press Enter to see it; its file is {file}.", { file: next.file })),
  );
}

function exerciseView(
  state: WatchState,
  exercise: Exercise,
  ctx: ScreenContext,
  paint: Paint,
  para: Para,
  out: Line[],
  width: number,
): void {
  const lesson = lessonOf(ctx, exercise);
  const title = beside(
    t("Exercise {id} · {title}", { id: exercise.id, title: exercise.title }),
    t("({n} of {total})", { n: state.current + 1, total: state.exercises.length }),
    width + 2,
    paint,
    "bold",
  );
  out.push(...title.lines, ...title.below);
  const lessonLine = beside(
    `  ${lessonTitle(exercise, lesson)}`,
    t("(r runs it, or {command})", { command: lessonCommand(exercise, lesson) }),
    width + 2,
    paint,
  );
  out.push(...lessonLine.lines);
  // The note below the lesson's title (when it does not fit beside it) and the summary go first.
  const summary = lesson?.summary ? para(lesson.summary, "    ", "gray") : [];
  if (lessonLine.below.length + summary.length > 0)
    out.push({ lines: [...lessonLine.below, ...summary], order: ORDER.summary, keep: 0 });
  if (exercise.goal) {
    out.push("");
    out.push({
      lines: exercise.goal
        .split("\n")
        .flatMap((line, i) =>
          para(i === 0 ? t("Goal: {goal}", { goal: line }) : line, i === 0 ? "  " : "    "),
        ),
      order: ORDER.goal,
      keep: 1,
      more: (n) =>
        `    … ${t("{n, plural, one {# more line} other {# more lines}} (the whole goal is at the top of the file)", { n })}`,
    });
  }
  out.push("", `  ${t("Edit {file}", { file: paint("bold", exercise.file) })}`, "");

  const check = state.checks[exercise.id];
  const report = check?.report;
  if (check?.status === "checking") {
    out.push(paint("yellow", t("⧗ Checking {id}…", { id: exercise.id })));
  } else if (check?.status === "passed" && report) {
    const all = report.counts
      ? t("✓ {n, plural, one {The test passes.} other {All # tests pass.}}", {
          n: report.counts.tests,
        })
      : t("✓ Its tests pass.");
    out.push(
      ...para(
        sentences(
          paint("green", all),
          t("Compare your answer with {file}; n goes on.", { file: exercise.solution }),
        ),
        "",
        undefined,
        "  ",
      ),
    );
  } else if (check?.status === "failed" && report) {
    failureView(report, exercise, paint, para, out, width);
  } else {
    out.push(paint("gray", t("· Not checked yet.")));
  }
  if (state.hintStep > 0) {
    const steps = exercise.hintSteps.length;
    const step = Math.min(state.hintStep, steps);
    const title =
      steps === 1
        ? t("Hint (h hides it)")
        : step < steps
          ? t("Hint, step {step} of {steps} (h: the next step)", { step, steps })
          : t("Hint, step {step} of {steps} (h hides it)", { step, steps });
    out.push("", ...para(title, "  ", "bold"));
    // One step at a time: the step asked for, a paragraph per line the manifest keeps (a formula).
    out.push({
      lines: exercise.hintSteps[step - 1]!.split("\n").flatMap((l) =>
        l === "" ? [""] : para(l, "    "),
      ),
      order: ORDER.hint,
      keep: 1,
      more: (n) =>
        `    … ${
          steps === 1
            ? t(
                "{n, plural, one {# more line} other {# more lines}}: npm run hint {id} prints it whole",
                {
                  n,
                  id: exercise.id,
                },
              )
            : t(
                "{n, plural, one {# more line} other {# more lines}}: npm run hint {id} -- --step {step} prints it whole",
                { n, id: exercise.id, step },
              )
        }`,
    });
  }
  out.push({
    lines: [
      "",
      paint(
        "gray",
        `  ${
          state.manual
            ? t("Save the file, then press Enter to check it again.")
            : t("Save the file to check it again.")
        }`,
      ),
    ],
    order: ORDER.save,
    keep: 0,
  });
}

/**
 * Why the exercise does not pass: the verdict, then the first failing test's name and, for a failed
 * comparison, the values it got and wanted; the error's message below them is what goes first on a
 * short terminal. Without compared values, the message's first line stays.
 */
function failureView(
  report: CheckReport,
  exercise: Exercise,
  paint: Paint,
  para: Para,
  out: Line[],
  width: number,
): void {
  const counts = report.counts
    ? t("✗ Not yet: {pass} of {n, plural, one {# test} other {# tests}} pass.", {
        pass: report.counts.pass,
        n: report.counts.tests,
      })
    : t("✗ Not yet.");
  out.push(
    ...para(
      report.verdict ? t("✗ Not yet: {verdict}", { verdict: report.verdict }) : counts,
      "",
      "red",
      "  ",
    ),
  );
  const f = report.firstFailure;
  // The verdict may already be the whole story (a syntax error, a hang); then the test is not repeated.
  if (!f || report.verdictCovers) return;
  out.push(...para(t("First failing test: {name}", { name: f.test }), "  ", undefined, "    "));
  const hasValues = f.actual !== undefined && f.expected !== undefined;
  if (hasValues) {
    const labels = [t("actual:"), t("expected:")];
    const column = labelColumn(labels);
    for (const [i, value] of [f.actual!, f.expected!].entries()) {
      const label = padEnd(labelled(labels[i]!), column);
      const lines = wrapKeepingSpaces(value, width - 4 - column, 0);
      out.push({
        lines: lines.map((l, k) => `    ${k === 0 ? label : " ".repeat(column)}${paint("red", l)}`),
        order: ORDER.values,
        keep: VALUE_LINES,
        more: (n) =>
          `    … ${t("{n, plural, one {# more line} other {# more lines}}: npm run check {id} shows the whole error", { n, id: exercise.id })}`,
      });
    }
  }
  const lines = f.error
    .split("\n")
    .flatMap((l) => (l.trim() === "" ? [""] : wrapKeepingSpaces(l, width - 4, 0)));
  out.push({
    lines: lines.map((line) => `    ${paint("red", line)}`),
    order: ORDER.error,
    keep: hasValues ? 0 : 1,
    cap: ERROR_LINES,
    more: (n) =>
      `    … ${t("{n, plural, one {# more line} other {# more lines}}: npm run check {id} shows the whole error", { n, id: exercise.id })}`,
  });
}

function keyBar(state: WatchState, paint: Paint): string {
  const key = (k: string, what: string): string => `${paint("bold", k)} ${what}`;
  const exercise = currentExercise(state);
  const keys: string[] = [];
  if (justSolved(state)) {
    // After a pass: the next exercise is one key away.
    keys.push(key("⏎", t("next exercise")), key("l", t("list")));
  } else if (exercise) {
    keys.push(
      key("h", t("hint")),
      key("l", state.view === "list" ? t("back") : t("list")),
      key("r", t("run lesson {number}", { number: exercise.lesson })),
      key("n", t("next")),
      key("p", t("previous")),
    );
    keys.push(key("⏎", state.phase === "finished" ? t("check all again") : t("check")));
  }
  keys.push(key("q", t("quit")));
  return keys.join(paint("gray", " · "));
}

/**
 * `main` (wrapped to `columns - 1`, never cut, its continuation lines indented by 2) and then the grey
 * `note` on its last line when both fit (`lines`), else `note` wrapped below it (`below`), for the
 * caller to show or leave out.
 */
function beside(
  main: string,
  note: string,
  columns: number,
  paint: Paint,
  style?: Parameters<Paint>[0],
): { lines: string[]; below: string[] } {
  const lead = /^ */.exec(main)![0];
  const lines = wrap(main.trimStart(), columns - 1 - lead.length, columns - 3 - lead.length).map(
    (l, i) => `${lead}${i === 0 ? "" : "  "}${l}`,
  );
  const last = lines.pop()!;
  const styled = (l: string): string => (style ? paint(style, l) : l);
  const head = lines.map(styled);
  if (displayWidth(last) + 2 + displayWidth(note) <= columns - 1)
    return { lines: [...head, `${styled(last)}  ${paint("gray", note)}`], below: [] };
  return {
    lines: [...head, styled(last)],
    below: wrap(note, columns - 5).map((l) => `    ${paint("gray", l)}`),
  };
}
