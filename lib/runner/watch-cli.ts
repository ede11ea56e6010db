// `npm start` / `npm run watch`: the watch mode. It shows the first exercise that does not pass yet,
// re-checks it on every save and moves on when it passes. The decisions live in watch-core.ts (a pure
// state machine); this file only connects it to the world: the exercises folder, the keyboard, the
// screen and the child processes that run tests and lessons.
import { type ChildProcess, spawn } from "node:child_process";
import { type FSWatcher, watch } from "node:fs";
import { basename, join } from "node:path";
import { noColorHelp, parseCommand, runMain } from "../core/cli.ts";
import { currentLang, t } from "../core/i18n.ts";
import { requireRuntime } from "../core/runtime.ts";
import { terminalWidth } from "../core/text.ts";
import { colorWanted } from "../core/trace.ts";
import { listExercises, listLessons, ROOT } from "./catalog.ts";
import { runExerciseTests } from "./exercise-run.ts";
import { currentTarget } from "./exercise-target.ts";
import { recordShippedIfPossible } from "./shipped.ts";
import { PARALLEL_CHECKS } from "./status.ts";
import { type Effect, initialState, parseKeys, step, type WatchEvent } from "./watch-core.ts";
import { renderScreen } from "./watch-screen.ts";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

runMain(() => {
  requireRuntime();
  const { values } = parseCommand({
    usage: t("npm start [-- --manual] [--no-color]      (npm run watch is the same)"),
    description: t(
      "Watch mode: shows the first exercise that does not pass yet, its lesson and its test result, checks it again each time you save, and moves on when it passes. Keys: h hint (again: its next step), l list, r run the lesson, n next exercise, p previous one, Enter check again, q quit.",
    ),
    options: { manual: { type: "boolean" }, "no-color": { type: "boolean" } },
    optionHelp: {
      manual: t(
        "no file watching (for folders where it does not work): press Enter to check again",
      ),
      "no-color": noColorHelp(),
    },
  });
  const root = ROOT;
  const exercises = listExercises(root);
  const lessons = listLessons(root);
  recordShippedIfPossible(root, exercises);
  const color = colorWanted(values["no-color"] === true);
  const target = currentTarget();
  const out = process.stdout;
  const stdin = process.stdin;
  const raw = stdin.isTTY === true;
  let manual = values.manual === true;
  let notice: string | undefined;

  // Editors often save by writing a new file and renaming it over the old one, which ends a watch on
  // the file itself; watching the folder sees every save.
  let watcher: FSWatcher | undefined;
  const byFile = new Map<string, string>();
  for (const e of exercises) {
    byFile.set(basename(e.file), e.id);
    byFile.set(basename(e.test), e.id);
  }
  if (!manual) {
    try {
      watcher = watch(join(root, "exercises"), (_event, filename) => {
        const id =
          filename === null
            ? exercises[state.current]?.id
            : byFile.get(basename(filename.toString()));
        if (id) dispatch({ type: "file-changed", id });
      });
      watcher.on("error", () => {
        watcher?.close();
        watcher = undefined;
        notice = t(
          "File watching stopped working: press Enter to check again (or restart with npm start -- --manual).",
        );
      });
    } catch {
      manual = true;
      notice = t("File watching does not work here: press Enter to check again.");
    }
  }

  let state = initialState(exercises, { manual });
  const queue: Job[] = [];
  const active = new Set<Job>();
  let debounce: NodeJS.Timeout | undefined;
  let lesson: ChildProcess | undefined;
  const inbox: WatchEvent[] = [];
  let dispatching = false;

  function dispatch(event: WatchEvent): void {
    inbox.push(event);
    if (dispatching) return;
    dispatching = true;
    try {
      for (let next = inbox.shift(); next; next = inbox.shift()) {
        const r = step(state, next);
        state = r.state;
        for (const effect of r.effects) perform(effect);
      }
    } finally {
      dispatching = false;
    }
  }

  function perform(effect: Effect): void {
    switch (effect.type) {
      case "render":
        draw();
        return;
      case "check": {
        const job: Job = { id: effect.id, run: effect.run, abort: new AbortController() };
        if (effect.urgent) queue.unshift(job);
        else queue.push(job);
        pump();
        return;
      }
      case "cancel": {
        const i = queue.findIndex((j) => j.id === effect.id && j.run === effect.run);
        if (i >= 0) queue.splice(i, 1);
        for (const j of active) if (j.id === effect.id && j.run === effect.run) j.abort.abort();
        return;
      }
      case "debounce":
        clearTimeout(debounce);
        debounce = setTimeout(() => dispatch({ type: "debounce-elapsed" }), effect.ms);
        return;
      case "run-lesson":
        runLesson(effect.lesson);
        return;
      case "quit":
        shutDown();
        return;
    }
  }

  function pump(): void {
    while (active.size < PARALLEL_CHECKS && queue.length > 0) {
      const job = queue.shift()!;
      const exercise = exercises.find((e) => e.id === job.id)!;
      active.add(job);
      void runExerciseTests(exercise, target, undefined, {
        root,
        signal: job.abort.signal,
        typeCheck: true,
      }).then((report) => {
        active.delete(job);
        if (!job.abort.signal.aborted)
          dispatch({ type: "check-finished", id: job.id, run: job.run, report });
        pump();
      });
    }
  }

  function draw(): void {
    // On a terminal the screen is fitted to its rows too, so that its top does not scroll away; a pipe has none.
    const rows = out.isTTY && out.rows > 0 ? { rows: out.rows } : {};
    const screen = renderScreen(state, {
      color,
      width: terminalWidth(out),
      lessons,
      ...rows,
      ...(notice ? { notice } : {}),
    });
    // On a terminal each screen replaces the last; in a pipe or a log, a rule separates them.
    const before = screen.clear
      ? out.isTTY
        ? "\x1b[H\x1b[2J\x1b[3J"
        : `\n${"─".repeat(60)}\n`
      : "";
    out.write(before + screen.text);
  }

  function runLesson(number: string): void {
    const found = lessons.find((l) => l.number === number);
    if (!found) {
      out.write(`${t("There is no lesson {number} to run.", { number })}\n`);
      dispatch({ type: "lesson-finished", code: null });
      return;
    }
    // The lesson gets the screen but not the keyboard: keys still come here, so q can stop it.
    const child = spawn(
      process.execPath,
      // In the language of this screen, whatever chose it (--lang or the environment).
      ["--import", "tsx", found.file, "--lang", currentLang(), ...(color ? [] : ["--no-color"])],
      {
        cwd: root,
        stdio: ["ignore", "inherit", "inherit"],
        detached: process.platform !== "win32",
      },
    );
    lesson = child;
    let ended = false;
    const end = (code: number | null): void => {
      if (ended) return;
      ended = true;
      lesson = undefined;
      dispatch({ type: "lesson-finished", code });
    };
    child.on("error", () => end(null));
    child.on("close", (code) => end(code));
  }

  function shutDown(): void {
    watcher?.close();
    clearTimeout(debounce);
    queue.length = 0;
    for (const j of active) j.abort.abort();
    if (lesson?.pid !== undefined) killGroup(lesson.pid);
    if (raw) stdin.setRawMode(false);
    stdin.pause();
    stdin.destroy();
    out.off("resize", draw);
    for (const signal of SIGNALS) process.off(signal, onSigint);
    out.write(
      `\n${t("Bye. Your work is in your files; npm start picks up where you left off.")}\n`,
    );
    process.exitCode = 0;
    // Nothing should be left running; if something is, do not hang the terminal over it.
    setTimeout(() => process.exit(0), 2000).unref();
  }

  // Ctrl-C outside raw mode, a closed terminal, or a kill: stop the checks and the lesson too (they run
  // in their own process groups, so nobody else would).
  const onSigint = (): void => dispatch({ type: "key", key: "ctrl-c" });
  for (const signal of SIGNALS) process.on(signal, onSigint);
  out.on("error", () => {}); // a closed terminal must not turn the shutdown into a crash
  // The terminal must never be left in raw mode, whatever happens.
  process.on("exit", () => {
    if (raw && stdin.isRaw) stdin.setRawMode(false);
  });
  if (out.isTTY) out.on("resize", draw);

  if (raw) stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  let partial = "";
  stdin.on("data", (chunk: string) => {
    if (raw) {
      for (const key of parseKeys(chunk, true)) dispatch({ type: "key", key });
      return;
    }
    partial += chunk;
    for (let i = partial.indexOf("\n"); i >= 0; i = partial.indexOf("\n")) {
      const line = partial.slice(0, i);
      partial = partial.slice(i + 1);
      for (const key of parseKeys(line, false)) dispatch({ type: "key", key });
    }
  });
  stdin.on("end", () => dispatch({ type: "input-ended" }));

  dispatch({ type: "start" });
});

interface Job {
  id: string;
  run: number;
  abort: AbortController;
}

function killGroup(pid: number): void {
  try {
    process.kill(process.platform === "win32" ? pid : -pid, "SIGTERM");
  } catch {
    // Already gone.
  }
}
