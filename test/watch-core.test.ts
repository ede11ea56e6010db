// The watch mode's rules, tested on its pure state machine: events in, state and effects out.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Exercise, Lesson } from "../lib/runner/catalog.ts";
import {
  type CheckReport,
  type Effect,
  initialState,
  parseKeys,
  step,
  type WatchEvent,
  type WatchState,
} from "../lib/runner/watch-core.ts";
import { renderScreen } from "../lib/runner/watch-screen.ts";

function exercise(id: string): Exercise {
  const name = `${id}-thing`;
  return {
    id,
    lesson: id.slice(0, 2),
    name,
    title: `Title of ${id}`,
    hintSteps: [`Hint for ${id}`],
    goal: `Goal of ${id}`,
    pure: true,
    file: `exercises/${name}.ts`,
    test: `exercises/${name}.test.ts`,
    solution: `solutions/${name}.ts`,
  };
}

const EXERCISES = ["01a", "01b", "02a"].map(exercise);
const LESSONS: Lesson[] = ["01", "02"].map((n) => ({
  number: n,
  slug: "x",
  file: `lessons/${n}-x.ts`,
  title: `Lesson title ${n}`,
  summary: "Summary.",
  run: `npm run lesson ${Number(n)}`,
}));
const PASS: CheckReport = {
  passed: true,
  timedOut: false,
  counts: { tests: 3, pass: 3, fail: 0 },
  ms: 1,
};
const FAIL: CheckReport = {
  passed: false,
  timedOut: false,
  counts: { tests: 3, pass: 1, fail: 2 },
  firstFailure: { test: "does it", error: "TODO: write it" },
  ms: 1,
};

/** Feeds events one after the other; returns the final state and every effect, in order. */
function run(state: WatchState, ...events: WatchEvent[]): { state: WatchState; effects: Effect[] } {
  const effects: Effect[] = [];
  for (const e of events) {
    const r = step(state, e);
    state = r.state;
    effects.push(...r.effects);
  }
  return { state, effects };
}

const checks = (effects: Effect[]) =>
  effects.filter((e): e is Extract<Effect, { type: "check" }> => e.type === "check");
const runOf = (state: WatchState, id: string) => state.checks[id]!.run;
const finished = (state: WatchState, id: string, report: CheckReport): WatchEvent => ({
  type: "check-finished",
  id,
  run: runOf(state, id),
  report,
});
const screen = (state: WatchState) =>
  renderScreen(state, { color: false, width: 100, lessons: LESSONS }).text;

/** Started, with 01a passing and 01b failing, so 01b is on screen. */
function atSecond(): WatchState {
  let s = run(initialState(EXERCISES), { type: "start" }).state;
  s = run(s, finished(s, "01a", PASS)).state;
  s = run(s, finished(s, "01b", FAIL)).state;
  return s;
}

test("start checks every exercise in order, in the background, and draws", () => {
  const { state, effects } = run(initialState(EXERCISES), { type: "start" });
  assert.equal(state.phase, "checking-all");
  assert.deepEqual(
    checks(effects).map((c) => [c.id, c.urgent]),
    [
      ["01a", false],
      ["01b", false],
      ["02a", false],
    ],
  );
  assert.ok(effects.some((e) => e.type === "render"));
  assert.match(screen(state), /Checking your exercises/);
});

test("the first exercise that does not pass is shown as soon as it is known, whatever order results come in", () => {
  let s = run(initialState(EXERCISES), { type: "start" }).state;
  s = run(s, finished(s, "01b", FAIL)).state;
  assert.equal(
    s.phase,
    "checking-all",
    "01a is not known yet, so 01b cannot be called the first to do",
  );
  s = run(s, finished(s, "01a", PASS)).state;
  assert.equal(s.phase, "working");
  assert.equal(s.exercises[s.current]!.id, "01b");
  assert.match(screen(s), /Exercise 01b · Title of 01b/);
  assert.match(screen(s), /✗ Not yet: 1 of 3 tests pass/);
  assert.match(screen(s), /TODO: write it/);
  assert.match(screen(s), /Lesson 01 · Lesson title 01/);
});

test("when every exercise passes at start, the finished banner shows", () => {
  let s = run(initialState(EXERCISES), { type: "start" }).state;
  for (const e of EXERCISES) s = run(s, finished(s, e.id, PASS)).state;
  assert.equal(s.phase, "finished");
  assert.match(screen(s), /★ Finished: all 3 exercises pass/);
});

test("saves are debounced: a burst of changes gives one urgent check per file, and the last file is shown", () => {
  const s0 = atSecond();
  const burst = run(
    s0,
    { type: "file-changed", id: "02a" },
    { type: "file-changed", id: "02a" },
    { type: "file-changed", id: "01a" },
  );
  assert.equal(checks(burst.effects).length, 0, "nothing runs before the files go quiet");
  assert.equal(
    burst.effects.filter((e) => e.type === "debounce").length,
    3,
    "each change restarts the timer",
  );
  const quiet = run(burst.state, { type: "debounce-elapsed" });
  assert.deepEqual(
    checks(quiet.effects).map((c) => [c.id, c.urgent]),
    [
      ["02a", true],
      ["01a", true],
    ],
  );
  assert.equal(quiet.state.exercises[quiet.state.current]!.id, "01a");
  assert.deepEqual(quiet.state.pending, []);
  assert.deepEqual(
    run(quiet.state, { type: "debounce-elapsed" }).effects,
    [],
    "a timer with nothing pending does nothing",
  );
});

test("a change during a check cancels it, and the cancelled run's report is ignored", () => {
  let s = atSecond();
  s = run(s, { type: "file-changed", id: "01b" }, { type: "debounce-elapsed" }).state;
  const firstRun = runOf(s, "01b");
  const again = run(s, { type: "file-changed", id: "01b" }, { type: "debounce-elapsed" });
  assert.deepEqual(
    again.effects.find((e) => e.type === "cancel"),
    { type: "cancel", id: "01b", run: firstRun },
  );
  const late = run(again.state, { type: "check-finished", id: "01b", run: firstRun, report: PASS });
  assert.equal(
    late.state.checks["01b"]!.status,
    "checking",
    "the old version's result must not count",
  );
  assert.deepEqual(late.effects, []);
});

test("unknown files and events after quitting are ignored", () => {
  const s = atSecond();
  assert.deepEqual(run(s, { type: "file-changed", id: "99z" }).effects, []);
  const quit = run(s, { type: "key", key: "q" });
  assert.deepEqual(quit.effects, [{ type: "quit" }]);
  assert.deepEqual(
    run(quit.state, { type: "file-changed", id: "01b" }, { type: "key", key: "n" }).effects,
    [],
  );
});

test("the solution is pointed at only after the exercise passes, and then the runner moves on", () => {
  let s = atSecond();
  assert.doesNotMatch(screen(s), /solutions\//, "no solution before a pass");
  s = run(s, { type: "file-changed", id: "01b" }, { type: "debounce-elapsed" }).state;
  assert.doesNotMatch(screen(s), /solutions\//);
  const passed = run(s, finished(s, "01b", PASS));
  s = passed.state;
  assert.equal(s.exercises[s.current]!.id, "02a", "moves on to the next exercise not passing");
  assert.equal(s.solved, "01b");
  assert.deepEqual(
    checks(passed.effects).map((c) => c.id),
    [],
    "02a is still being checked from the start",
  );
  assert.match(
    screen(s).replace(/\s+/g, " "),
    /✓ Exercise 01b passes! Compare your answer with solutions\/01b-thing\.ts/,
  );
  assert.doesNotMatch(screen(s), /solutions\/02a/, "but not the next one's solution");
});

test("after a pass the solved exercise has the screen, the next one named; the next key or save shows that one, without the banner", () => {
  let s = atSecond();
  s = run(s, { type: "key", key: "enter" }).state;
  s = run(s, finished(s, "01b", PASS), finished(s, "02a", FAIL)).state;
  const moment = screen(s);
  assert.match(moment, /✓ Exercise 01b passes!/);
  assert.match(moment, /Next: exercise 02a · Title of 02a/);
  assert.doesNotMatch(moment, /Goal of 02a|TODO: write it/, "the next exercise is not shown yet");
  assert.match(moment, /⏎ next exercise/);

  const enter = run(s, { type: "key", key: "enter" });
  assert.deepEqual(
    checks(enter.effects),
    [],
    "Enter only shows the next exercise: it is checked already",
  );
  assert.equal(
    run(s, { type: "key", key: "n" }).state.current,
    s.current,
    "n, too, shows the exercise named: the next one",
  );
  for (const shown of [
    enter.state,
    run(s, { type: "key", key: "h" }).state,
    run(s, { type: "file-changed", id: "02a" }, { type: "debounce-elapsed" }).state,
  ]) {
    const text = screen(shown);
    assert.doesNotMatch(text, /passes!/, "the banner goes once the next exercise is shown");
    assert.match(text, /Exercise 02a · Title of 02a/);
    assert.equal(shown.solved, undefined);
  }
  assert.match(screen(enter.state), /TODO: write it/);
  assert.match(
    screen(run(s, { type: "key", key: "h" }).state),
    /Hint for 02a/,
    "h does its own job too",
  );
});

test("h shows the hint a step at a time: each h the next step, and after the last one it hides", () => {
  const steps = ["First, a nudge.", "Then the order of the checks.", "At last, the code."];
  const three = EXERCISES.map((e) => (e.id === "01b" ? { ...e, hintSteps: steps } : e));
  let s = run(initialState(three), { type: "start" }).state;
  s = run(s, finished(s, "01a", PASS), finished(s, "01b", FAIL)).state;
  const seen: string[] = [];
  for (let i = 0; i < 4; i++) {
    s = run(s, { type: "key", key: "h" }).state;
    seen.push(screen(s));
  }
  for (const [i, step] of steps.entries()) {
    assert.match(
      seen[i]!,
      new RegExp(`Hint, step ${i + 1} of 3 \\(h(?: hides it|: the next step)\\)`),
    );
    assert.ok(seen[i]!.includes(step), `step ${i + 1} on screen`);
    for (const other of steps.filter((x) => x !== step))
      assert.ok(!seen[i]!.includes(other), `only step ${i + 1}: ${seen[i]}`);
  }
  assert.match(seen[0]!, /\(h: the next step\)/);
  assert.match(seen[2]!, /\(h hides it\)/);
  assert.doesNotMatch(seen[3]!, /Hint/, "after the last step, h hides the hint");
  // Another exercise starts from its first step again.
  s = run(s, { type: "key", key: "h" }, { type: "key", key: "h" }, { type: "key", key: "n" }).state;
  assert.equal(s.hintStep, 0);
});

test("moving on skips exercises that pass and wraps around to an earlier one", () => {
  let s = run(initialState(EXERCISES), { type: "start" }).state;
  s = run(s, finished(s, "01a", FAIL), finished(s, "01b", PASS), finished(s, "02a", FAIL)).state;
  assert.equal(s.exercises[s.current]!.id, "01a");
  s = run(s, { type: "key", key: "enter" }).state;
  const moved = run(s, finished(s, "01a", PASS));
  assert.equal(moved.state.exercises[moved.state.current]!.id, "02a", "01b passes already");
  assert.deepEqual(
    checks(moved.effects).map((c) => [c.id, c.urgent]),
    [["02a", true]],
    "the next one is checked afresh",
  );

  // Enter shows 02a, named after the pass; then n goes on from there.
  s = run(
    moved.state,
    { type: "key", key: "enter" },
    { type: "key", key: "n" },
    { type: "key", key: "n" },
  ).state;
  assert.equal(s.exercises[s.current]!.id, "01b");
  s = run(s, { type: "key", key: "n" }).state;
  assert.equal(s.exercises[s.current]!.id, "02a", "n wraps around");
  s = run(s, { type: "key", key: "p" }).state;
  assert.equal(s.exercises[s.current]!.id, "01b", "p goes back one");
  const back = run(s, { type: "key", key: "p" }, { type: "key", key: "p" });
  assert.equal(back.state.exercises[back.state.current]!.id, "02a", "p wraps around backwards");
  assert.match(screen(back.state), /p previous/);
});

test("an exercise that passed before and passes again stays on screen (n goes on)", () => {
  let s = atSecond();
  s = run(s, { type: "key", key: "n" }, { type: "key", key: "n" }).state; // to 01a, which passed at start
  assert.equal(s.exercises[s.current]!.id, "01a");
  s = run(s, finished(s, "01a", PASS)).state;
  assert.equal(s.exercises[s.current]!.id, "01a");
  assert.match(screen(s), /✓ All 3 tests pass\. Compare your answer with solutions\/01a-thing\.ts/);
});

test("the finished banner comes only after a full re-check, which can still find a failure", () => {
  let s = run(initialState(EXERCISES), { type: "start" }).state;
  s = run(s, finished(s, "01a", PASS), finished(s, "01b", PASS), finished(s, "02a", FAIL)).state;
  s = run(s, { type: "key", key: "enter" }).state;
  const last = run(s, finished(s, "02a", PASS));
  s = last.state;
  assert.equal(s.phase, "checking-all", "no banner yet: the others' results may be stale");
  assert.equal(s.checkingAll, "final");
  assert.deepEqual(
    checks(last.effects).map((c) => c.id),
    ["01a", "01b"],
  );
  assert.doesNotMatch(screen(s), /Finished/);
  assert.match(screen(s), /checking them all once more/);
  assert.match(screen(s), /Compare your answer with solutions\/02a-thing\.ts/);

  // 01a was broken meanwhile (say, in --manual mode where no save is seen): back to it, no banner.
  const broken = run(s, finished(s, "01b", PASS), finished(s, "01a", FAIL)).state;
  assert.equal(broken.phase, "working");
  assert.equal(broken.exercises[broken.current]!.id, "01a");

  const done = run(s, finished(s, "01b", PASS), finished(s, "01a", PASS)).state;
  assert.equal(done.phase, "finished");
  assert.match(screen(done), /★ Finished: all 3 exercises pass, checked again just now/);
  // Enter after the banner checks everything again.
  assert.deepEqual(
    checks(run(done, { type: "key", key: "enter" }).effects).map((c) => c.id),
    ["01a", "01b", "02a"],
  );
});

test("with a single exercise, its pass is the full re-check", () => {
  let s = run(initialState([exercise("01a")]), { type: "start" }).state;
  s = run(s, finished(s, "01a", FAIL), { type: "key", key: "enter" }).state;
  s = run(s, finished(s, "01a", PASS)).state;
  assert.equal(s.phase, "finished");
});

test("after the banner, a failing save brings the work back; a passing one keeps the banner", () => {
  let s = run(initialState(EXERCISES), { type: "start" }).state;
  for (const e of EXERCISES) s = run(s, finished(s, e.id, PASS)).state;
  s = run(s, { type: "file-changed", id: "01b" }, { type: "debounce-elapsed" }).state;
  assert.equal(run(s, finished(s, "01b", PASS)).state.phase, "finished");
  const failed = run(s, finished(s, "01b", FAIL)).state;
  assert.equal(failed.phase, "working");
  assert.equal(failed.exercises[failed.current]!.id, "01b");
});

test("keys: h toggles the hint, l the list, n goes to the next exercise and checks it", () => {
  let s = atSecond();
  s = run(s, { type: "key", key: "h" }).state;
  assert.equal(s.hintStep, 1);
  assert.match(screen(s), /Hint for 01b/);
  s = run(s, { type: "key", key: "h" }).state;
  assert.doesNotMatch(screen(s), /Hint for 01b/);
  s = run(s, { type: "key", key: "l" }).state;
  assert.equal(s.view, "list");
  const list = screen(s);
  assert.match(list, /✓ 01a/);
  assert.match(list, /▶ ✗ 01b/);
  assert.match(list, /⧗ 02a/);
  assert.equal(run(s, { type: "key", key: "l" }).state.view, "exercise");
  assert.equal(run(s, { type: "key", key: "escape" }).state.view, "exercise");
  const next = run(s, { type: "key", key: "n" });
  assert.equal(next.state.exercises[next.state.current]!.id, "02a");
  assert.equal(next.state.view, "exercise");
  assert.deepEqual(checks(next.effects), [], "02a is being checked already: no second run");
  assert.deepEqual(run(s, { type: "key", key: "x" }).effects, [], "unknown keys do nothing");
});

test("r runs the exercise's lesson; other keys wait until it ends; q still quits", () => {
  const s0 = atSecond();
  const started = run(s0, { type: "key", key: "r" });
  assert.deepEqual(
    started.effects.find((e) => e.type === "run-lesson"),
    { type: "run-lesson", lesson: "01" },
  );
  assert.equal(started.state.lessonRunning, true);
  assert.match(screen(started.state), /^Lesson 01 · Lesson title 01/);
  assert.deepEqual(
    run(started.state, { type: "key", key: "n" }, { type: "key", key: "r" }).effects,
    [],
  );
  // A save during the lesson is checked, but the screen stays the lesson's until it ends.
  const during = run(
    started.state,
    { type: "file-changed", id: "01b" },
    { type: "debounce-elapsed" },
  );
  assert.equal(checks(during.effects).length, 1);
  assert.equal(during.effects.filter((e) => e.type === "render").length, 0);
  const ended = run(started.state, { type: "lesson-finished", code: 0 });
  assert.deepEqual(ended.effects, [{ type: "render" }]);
  const below = renderScreen(ended.state, { color: false, width: 100, lessons: LESSONS });
  assert.equal(below.clear, false, "the lesson's output stays readable");
  assert.match(below.text, /Lesson 01 ended\. Press Enter to go back to exercise 01b/);
  assert.equal(run(ended.state, { type: "key", key: "x" }).state.view, "exercise");
  assert.deepEqual(run(started.state, { type: "key", key: "ctrl-c" }).effects, [{ type: "quit" }]);
});

test("end of input quits in --manual mode only", () => {
  assert.deepEqual(
    run(initialState(EXERCISES, { manual: true }), { type: "input-ended" }).effects,
    [{ type: "quit" }],
  );
  assert.deepEqual(run(initialState(EXERCISES), { type: "input-ended" }).effects, []);
});

test("the footer says how to re-check: save, or Enter in --manual mode", () => {
  assert.match(screen(atSecond()), /Save the file to check it again/);
  let m = run(initialState(EXERCISES, { manual: true }), { type: "start" }).state;
  m = run(m, finished(m, "01a", FAIL)).state;
  assert.match(screen(m), /press Enter to check it again/);
});

test("no exercises: nothing to check, and the screen says so", () => {
  const { state, effects } = run(initialState([]), { type: "start" });
  assert.deepEqual(checks(effects), []);
  assert.match(screen(state), /no exercises yet/);
  assert.deepEqual(run(state, { type: "key", key: "n" }, { type: "key", key: "h" }).effects, []);
});

test("parseKeys: raw keys, Ctrl-C, Enter and arrows; piped lines", () => {
  assert.deepEqual(parseKeys("hN\r\x03", true), ["h", "n", "enter", "ctrl-c"]);
  assert.deepEqual(parseKeys("\x1b[A", true), []);
  assert.deepEqual(parseKeys("\x1b", true), ["escape"]);
  assert.deepEqual(parseKeys("", false), ["enter"]);
  assert.deepEqual(parseKeys(" Quit\r", false), ["q"]);
});

test("a result for an exercise that is not on screen still redraws: the header counts them all", () => {
  const s = atSecond(); // 01b on screen; 02a still being checked
  assert.match(screen(s), /checking/);
  const r = run(s, finished(s, "02a", PASS));
  assert.ok(
    r.effects.some((e) => e.type === "render"),
    "no redraw after 02a's result",
  );
  assert.doesNotMatch(screen(r.state), /checking…/, "the header still says it is checking");
  assert.match(screen(r.state), /2\/3/);
});

test("the solved banner goes once another exercise's file changes (a reset in another terminal), and when the solved one fails again", () => {
  let s = atSecond();
  s = run(s, { type: "key", key: "enter" }).state;
  s = run(s, finished(s, "01b", PASS)).state;
  assert.match(screen(s), /✓ Exercise 01b passes!/);
  // npm run reset 01a, from another terminal: 01a's file changes and fails its check.
  s = run(s, { type: "file-changed", id: "01a" }, { type: "debounce-elapsed" }).state;
  s = run(s, finished(s, "01a", FAIL)).state;
  assert.equal(s.exercises[s.current]!.id, "01a");
  assert.doesNotMatch(screen(s), /Exercise 01b passes/, "a stale banner above another exercise");

  let t = atSecond();
  t = run(t, { type: "key", key: "enter" }).state;
  t = run(t, finished(t, "01b", PASS), { type: "key", key: "enter" }).state; // 02a on screen; 01b solved
  t = run(
    t,
    { type: "file-changed", id: "01b" },
    { type: "debounce-elapsed" },
    { type: "file-changed", id: "02a" },
    { type: "debounce-elapsed" },
  ).state;
  assert.equal(t.solved, undefined);
});

test("the screen fits the terminal at 40, 80 and 120 columns, with colour too: no line wider, no word cut by the terminal", () => {
  const long = (id: string): Exercise => ({
    ...exercise(id),
    title: "Take over a claim whose lease has run out, and prove the old holder cannot finish",
    file: `exercises/${id}-take-over.ts`,
    goal: "A paragraph of goal text that goes on for a while, so that it has to be wrapped at every width the test uses, including the narrow ones. ".repeat(
      2,
    ),
  });
  const many = [
    "01a",
    "02a",
    "02b",
    "03a",
    "03b",
    "04a",
    "04b",
    "04c",
    "05a",
    "05b",
    "06a",
    "06b",
    "07a",
    "08a",
  ].map(long);
  const stuck: CheckReport = {
    passed: false,
    timedOut: true,
    verdict:
      'the test "a test whose name is itself rather long, as learners write them" ran for 12.7 s without ending and was stopped (an endless loop?)',
    firstFailure: {
      test: "a test whose name is itself rather long, as learners write them",
      error:
        "AssertionError: a message that is long enough to need wrapping when the terminal is narrow, really\n  an indented second line",
    },
    ms: 1,
  };
  let s = run(initialState(many), { type: "start" }).state;
  const views: WatchState[] = [s]; // checking all: the marks of fourteen exercises
  s = run(s, ...many.map((e) => finished(s, e.id, e.id === "05b" ? stuck : PASS))).state;
  views.push(s, run(s, { type: "key", key: "h" }).state, run(s, { type: "key", key: "l" }).state);
  for (const width of [40, 80, 120]) {
    for (const color of [false, true]) {
      for (const v of views) {
        const text = renderScreen(v, { color, width, lessons: LESSONS }).text;
        for (const line of text.split("\n")) {
          const shown = line.replace(/\x1b\[[0-9;]*m/g, "");
          assert.ok(
            [...shown].length <= width,
            `${width} columns: ${JSON.stringify(shown)} is ${[...shown].length} wide`,
          );
        }
        assert.doesNotMatch(text, /05b-take-over\.t\n/, "a file name cut in two");
      }
    }
  }
  for (const width of [40, 80]) {
    // What the learner must read is wrapped onto its own line, not cut off.
    const lessonScreen = renderScreen(run(s, { type: "key", key: "r" }).state, {
      color: false,
      width,
      lessons: LESSONS,
    }).text.replace(/\s+/g, " ");
    assert.match(lessonScreen, /\(the same as npm run lesson 5; q quits\)/, `${width} columns`);
    assert.match(
      renderScreen(s, { color: false, width, lessons: LESSONS }).text.replace(/\s+/g, " "),
      /\(r runs it, or npm run lesson 5\)/,
      `${width} columns`,
    );
  }
  const stuckScreen = renderScreen(s, { color: false, width: 80, lessons: LESSONS }).text;
  assert.match(
    stuckScreen.replace(/\s+/g, " "),
    /✗ Not yet: the test "a test whose name is itself rather long, as learners write them" ran for 12\.7 s without ending/,
  );
  assert.doesNotMatch(stuckScreen, /did not finish in time/);
});

test("the list at 80 columns leaves a file name out rather than cutting it", async () => {
  const { shippedExercises } = await import("./temp-project.ts");
  const all = shippedExercises();
  const s = run(run(initialState(all), { type: "start" }).state, { type: "key", key: "l" }).state;
  for (const width of [80, 120]) {
    const text = renderScreen(s, { color: false, width, lessons: LESSONS }).text;
    const rows = text.split("\n").filter((l) => / \d\d[a-z] {2}/.test(l));
    assert.equal(rows.length, all.length, text);
    for (const row of rows)
      assert.doesNotMatch(row, /exercises\/[^ ]*…$/, `${width} columns: a file name cut: ${row}`);
    for (const e of all) {
      const row = rows.find((r) => r.includes(` ${e.id}  `))!;
      assert.ok(!row.includes("exercises/") || row.includes(e.file), row);
    }
  }
});
