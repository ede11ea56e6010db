/**
 * The watch mode's logic as a pure state machine: `step(state, event)` returns the next state and the
 * effects to carry out (run a check, cancel one, start the debounce timer, draw the screen, run a
 * lesson, quit). It does no I/O and reads no clock, so every rule below is tested directly; the shell
 * (watch-cli.ts) turns file-system events, key presses and finished child processes into events.
 *
 * The rules, in the learner's words:
 * - At start every exercise is checked (two at a time, in order) and the first that does not pass is
 *   shown as soon as it is known.
 * - Saving an exercise file re-checks it (after a short quiet period, since editors write in bursts)
 *   and makes it the current exercise; a check still running for an older version is cancelled.
 * - When the current exercise passes for the first time, the runner says so and points at its solution,
 *   with the next exercise that does not pass named below; that exercise is shown (and the banner goes)
 *   at the next key or save. When none is left, every exercise is checked again, and only if all pass
 *   is the finished banner shown.
 * - Keys: h hint (again: its next step, and after the last it hides), l list, r run the lesson, n next
 *   exercise, p previous one, Enter check again, q or Ctrl-C quit.
 */
import type { Exercise } from "./catalog.ts";
import type { Failure } from "./exercise-run.ts";

export type CheckStatus = "unknown" | "checking" | "passed" | "failed";

/** What the shell reports about one finished check (an ExerciseResult fits). */
export interface CheckReport {
  passed: boolean;
  timedOut: boolean;
  firstFailure?: Failure;
  counts?: { tests: number; pass: number; fail: number };
  /** Why it does not pass, when the failing test alone would not say it (see ExerciseResult). */
  verdict?: string;
  /** The verdict says it all: the failing test is not shown as well. */
  verdictCovers?: boolean;
  output?: string;
  ms: number;
}

export interface ExerciseCheck {
  status: CheckStatus;
  /** The number of the latest check asked for; reports of older (cancelled) runs are ignored. */
  run: number;
  /** The latest finished report (kept while a newer check runs). */
  report?: CheckReport;
}

/** checking-all: every exercise is being checked, at start or before the finished banner. */
export type Phase = "checking-all" | "working" | "finished" | "quit";
export type View = "exercise" | "list" | "lesson";

export interface WatchState {
  readonly exercises: readonly Exercise[];
  phase: Phase;
  /** Why every exercise is being checked: at start, or to confirm the end. */
  checkingAll: "start" | "final";
  /** Index of the exercise on screen. */
  current: number;
  view: View;
  /** The step of the current exercise's hint on screen, from 1; 0 when the hint is hidden. */
  hintStep: number;
  /** The exercise that passed last, while the runner points at its solution. */
  solved?: string;
  checks: Readonly<Record<string, ExerciseCheck>>;
  /** Exercises whose files changed since the debounce timer started. */
  pending: readonly string[];
  nextRun: number;
  lessonRunning: boolean;
  /** The exit code of the lesson that ran last. */
  lessonExit?: number | null;
  /** No file watching: Enter re-checks, and the end of input quits. */
  manual: boolean;
  debounceMs: number;
}

export type WatchEvent =
  | { type: "start" }
  | { type: "file-changed"; id: string }
  | { type: "debounce-elapsed" }
  | { type: "check-finished"; id: string; run: number; report: CheckReport }
  | { type: "key"; key: string }
  | { type: "lesson-finished"; code: number | null }
  | { type: "input-ended" };

export type Effect =
  /** Run the exercise's tests; `urgent` ones go before the background ones. */
  | { type: "check"; id: string; run: number; urgent: boolean }
  | { type: "cancel"; id: string; run: number }
  /** (Re)start the debounce timer; when it fires, send debounce-elapsed. */
  | { type: "debounce"; ms: number }
  | { type: "render" }
  | { type: "run-lesson"; lesson: string }
  | { type: "quit" };

export const DEBOUNCE_MS = 150;

export function initialState(
  exercises: readonly Exercise[],
  options: { manual?: boolean; debounceMs?: number } = {},
): WatchState {
  const checks: Record<string, ExerciseCheck> = {};
  for (const e of exercises) checks[e.id] = { status: "unknown", run: 0 };
  return {
    exercises,
    phase: "checking-all",
    checkingAll: "start",
    current: 0,
    view: "exercise",
    hintStep: 0,
    checks,
    pending: [],
    nextRun: 1,
    lessonRunning: false,
    manual: options.manual ?? false,
    debounceMs: options.debounceMs ?? DEBOUNCE_MS,
  };
}

/** The exercise on screen (undefined when there are none). */
export function currentExercise(state: WatchState): Exercise | undefined {
  return state.exercises[state.current];
}

/**
 * The moment after a pass: the solved exercise, its solution and the name of the next one fill the
 * screen, until the next key or save shows that next exercise.
 */
export function justSolved(state: WatchState): Exercise | undefined {
  if (state.solved === undefined || state.view !== "exercise" || state.phase !== "working")
    return undefined;
  if (state.solved === currentExercise(state)?.id) return undefined;
  return state.exercises.find((e) => e.id === state.solved);
}

export function statusOf(state: WatchState, id: string): CheckStatus {
  return state.checks[id]?.status ?? "unknown";
}

/** A working copy of the state that the step functions below may change. */
interface Draft extends WatchState {
  checks: Record<string, ExerciseCheck>;
  pending: string[];
}

export function step(
  state: WatchState,
  event: WatchEvent,
): { state: WatchState; effects: Effect[] } {
  if (state.phase === "quit") return { state, effects: [] };
  const s: Draft = { ...state, checks: { ...state.checks }, pending: [...state.pending] };
  const fx: Effect[] = [];
  switch (event.type) {
    case "start":
      onStart(s, fx);
      break;
    case "file-changed":
      if (!(event.id in s.checks)) return { state, effects: [] };
      s.pending = [...s.pending.filter((id) => id !== event.id), event.id];
      fx.push({ type: "debounce", ms: s.debounceMs });
      break;
    case "debounce-elapsed":
      onQuiet(s, fx);
      break;
    case "check-finished":
      onCheckFinished(s, event, fx);
      break;
    case "key":
      onKey(s, event.key, fx);
      break;
    case "lesson-finished":
      s.lessonRunning = false;
      s.lessonExit = event.code;
      if (s.view === "lesson") fx.push({ type: "render" });
      break;
    case "input-ended":
      if (s.manual) quit(s, fx);
      break;
  }
  return { state: s, effects: fx };
}

function onStart(s: Draft, fx: Effect[]): void {
  if (s.exercises.length === 0) s.phase = "finished";
  for (const e of s.exercises) startCheck(s, e.id, false, fx);
  fx.push({ type: "render" });
}

/** Asks for a fresh check of `id`, cancelling the one still running. */
function startCheck(s: Draft, id: string, urgent: boolean, fx: Effect[]): void {
  const old = s.checks[id]!;
  if (old.status === "checking") fx.push({ type: "cancel", id, run: old.run });
  const run = s.nextRun++;
  s.checks[id] = old.report
    ? { status: "checking", run, report: old.report }
    : { status: "checking", run };
  fx.push({ type: "check", id, run, urgent });
}

/** The files went quiet after changes: check each changed exercise and show the last one. */
function onQuiet(s: Draft, fx: Effect[]): void {
  if (s.pending.length === 0) return;
  for (const id of s.pending) startCheck(s, id, true, fx);
  const current = s.exercises.findIndex((e) => e.id === s.pending.at(-1));
  // The "✓ passes, compare with the solution" banner belongs to the moment after the pass: once work
  // goes on (or a reset in another terminal changes a file), it would stand in the way.
  delete s.solved;
  if (current !== s.current) s.hintStep = 0;
  s.current = current;
  s.pending = [];
  // After the finished banner, a passing save keeps the banner; a failing one brings the work back.
  if (s.phase !== "finished") s.phase = "working";
  if (!s.lessonRunning) {
    s.view = "exercise";
    fx.push({ type: "render" });
  }
}

function onCheckFinished(
  s: Draft,
  event: Extract<WatchEvent, { type: "check-finished" }>,
  fx: Effect[],
): void {
  const check = s.checks[event.id];
  if (!check || check.run !== event.run || check.status !== "checking") return; // a cancelled run
  const passedBefore = check.report?.passed === true;
  s.checks[event.id] = {
    status: event.report.passed ? "passed" : "failed",
    run: event.run,
    report: event.report,
  };
  const index = s.exercises.findIndex((e) => e.id === event.id);

  if (s.phase === "checking-all") settleCheckingAll(s);
  else if (s.phase === "working" && index === s.current && event.report.passed && !passedBefore)
    moveOn(s, fx);
  else if (s.phase === "finished" && !event.report.passed) {
    s.phase = "working";
    s.current = index;
    delete s.solved;
  }
  if (!event.report.passed && event.id === s.solved) delete s.solved; // it no longer passes

  // Every result shows: the header counts all exercises ("3/17 pass"), not just the current one.
  if (!s.lessonRunning && s.view !== "lesson") fx.push({ type: "render" });
}

/** While every exercise is checked: show the first one that does not pass as soon as it is known. */
function settleCheckingAll(s: Draft): void {
  const first = s.exercises.findIndex((e) => s.checks[e.id]!.status !== "passed");
  if (first < 0) {
    s.phase = "finished";
  } else if (s.checks[s.exercises[first]!.id]!.status === "failed") {
    s.phase = "working";
    s.current = first;
  }
}

/** The current exercise has just passed: point at its solution and go to the next one not passing. */
function moveOn(s: Draft, fx: Effect[]): void {
  const n = s.exercises.length;
  s.solved = s.exercises[s.current]!.id;
  s.hintStep = 0;
  let next = -1;
  for (let k = 1; k < n; k++) {
    const i = (s.current + k) % n;
    if (s.checks[s.exercises[i]!.id]!.status !== "passed") {
      next = i;
      break;
    }
  }
  if (next >= 0) {
    s.current = next;
    const id = s.exercises[next]!.id;
    if (s.checks[id]!.status !== "checking") startCheck(s, id, true, fx);
    return;
  }
  // Nothing left as far as we know: confirm with a full re-check before saying so.
  checkEverything(s, fx, s.exercises[s.current]!.id);
}

function checkEverything(s: Draft, fx: Effect[], except?: string): void {
  s.phase = "checking-all";
  s.checkingAll = "final";
  for (const e of s.exercises) if (e.id !== except) startCheck(s, e.id, false, fx);
  settleCheckingAll(s);
}

function quit(s: Draft, fx: Effect[]): void {
  s.phase = "quit";
  fx.push({ type: "quit" });
}

function onKey(s: Draft, key: string, fx: Effect[]): void {
  if (key === "q" || key === "ctrl-c") {
    quit(s, fx);
    return;
  }
  if (s.lessonRunning) return; // the lesson has the screen until it ends
  // After a pass, the first key shows the next exercise: Enter (or n) only that, any other key its
  // own job too.
  if (justSolved(s)) {
    delete s.solved;
    if (key === "enter" || key === "n") {
      fx.push({ type: "render" });
      return;
    }
  }
  const n = s.exercises.length;
  if (key === "l") {
    s.view = s.view === "list" ? "exercise" : "list";
    fx.push({ type: "render" });
    return;
  }
  if (n === 0) return;
  const id = s.exercises[s.current]!.id;
  switch (key) {
    case "h": {
      // Each h shows the next step of the hint; after the last one it hides the hint again.
      const steps = s.exercises[s.current]!.hintSteps.length;
      if (s.view !== "exercise") s.hintStep = Math.max(1, s.hintStep);
      else s.hintStep = s.hintStep >= steps ? 0 : s.hintStep + 1;
      s.view = "exercise";
      fx.push({ type: "render" });
      return;
    }
    case "r":
      s.lessonRunning = true;
      s.view = "lesson";
      fx.push({ type: "render" }, { type: "run-lesson", lesson: s.exercises[s.current]!.lesson });
      return;
    case "n":
    case "p": {
      s.current = (s.current + (key === "n" ? 1 : n - 1)) % n;
      s.phase = "working";
      s.view = "exercise";
      s.hintStep = 0;
      delete s.solved;
      const next = s.exercises[s.current]!.id;
      if (s.checks[next]!.status !== "checking") startCheck(s, next, true, fx);
      fx.push({ type: "render" });
      return;
    }
    case "enter":
      s.view = "exercise";
      if (s.phase === "finished") checkEverything(s, fx);
      else {
        s.phase = "working";
        startCheck(s, id, true, fx);
      }
      fx.push({ type: "render" });
      return;
    default:
      // Any other key after a lesson (or Escape in the list) brings the exercise back.
      if (s.view === "lesson" || (s.view === "list" && key === "escape")) {
        s.view = "exercise";
        fx.push({ type: "render" });
      }
  }
}

/**
 * Turns terminal input into keys. In raw mode every character is a key (Ctrl-C arrives as \x03,
 * Enter as \r; escape sequences such as arrows are skipped). From a pipe, every line is one key:
 * an empty line is Enter, otherwise its first letter.
 */
export function parseKeys(chunk: string, raw: boolean): string[] {
  const keys: string[] = [];
  if (raw) {
    if (chunk.startsWith("\x1b")) return chunk === "\x1b" ? ["escape"] : [];
    for (const ch of chunk) {
      if (ch === "\x03") keys.push("ctrl-c");
      else if (ch === "\r" || ch === "\n") keys.push("enter");
      else if (ch >= " ") keys.push(ch.toLowerCase());
    }
    return keys;
  }
  for (const line of chunk.split("\n")) {
    const t = line.trim();
    keys.push(t === "" ? "enter" : t[0]!.toLowerCase());
  }
  return keys;
}
