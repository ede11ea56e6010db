// `npm run check [<n>]`: runs the tests of the learner's exercises (all, or one lesson's, or one).

import { parseCommand, runMain, UsageError } from "../core/cli.ts";
import { requireRuntime } from "../core/runtime.ts";
import { displayWidth, terminalWidth, truncate, wrapKeepingSpaces } from "../core/text.ts";
import { colorWanted } from "../core/trace.ts";
import { findExercises, listExercises, ROOT } from "./catalog.ts";
import { recordShippedIfPossible } from "./shipped.ts";
import { checkAll } from "./status.ts";
import { painter, type Style } from "./style.ts";

runMain(async () => {
  requireRuntime();
  const { values, positionals } = parseCommand({
    usage: "npm run check [<n>] [-- --no-color]",
    description:
      "Runs the tests of your exercises: all of them, lesson n's (1 or 01), or one exercise (01a).",
    options: { "no-color": { type: "boolean" } },
    optionHelp: { "no-color": "no colour" },
    positionals: true,
  });
  if (positionals.length > 1) throw new UsageError("give at most one lesson or exercise");
  const all = listExercises();
  const chosen = positionals[0] === undefined ? all : findExercises(positionals[0], all);
  if (chosen.length === 0) {
    throw new UsageError(
      `no exercise matches "${positionals[0]}"; try a lesson number (${[...new Set(all.map((e) => Number(e.lesson)))].join(", ")}) or an exercise id (${all.map((e) => e.id).join(", ")})`,
    );
  }
  const paint = painter(colorWanted(values["no-color"] === true));
  recordShippedIfPossible(ROOT, all);

  const { results } = await checkAll(chosen);
  const width = terminalWidth();
  const write = (line: string): void => void process.stdout.write(`${truncate(line, width)}\n`);
  /** `label` then `text` wrapped under itself; each line of the text keeps its own indentation and spaces. */
  const block = (label: string, text: string, style?: Style): void => {
    const pad = " ".repeat(displayWidth(label));
    const lines = text
      .split("\n")
      .flatMap((l) => (l.trim() === "" ? [""] : wrapKeepingSpaces(l, width - pad.length, 0)));
    for (const [i, l] of lines.entries())
      write(`${i === 0 ? label : pad}${style && l ? paint(style, l) : l}`);
  };
  let solved = 0;
  for (const r of results) {
    const e = r.exercise;
    if (r.passed) {
      solved++;
      write(
        `${paint("green", "✓")} ${e.id}  ${e.title}  ${paint("gray", `(lesson ${e.lesson}; compare with ${e.solution})`)}`,
      );
    } else {
      write(`${paint("red", "✗")} ${e.id}  ${e.title}  ${paint("gray", `(lesson ${e.lesson})`)}`);
      if (r.verdict) block("    ", r.verdict, "red");
      const f = r.firstFailure;
      if (f && !(r.verdict && f.error.includes(r.verdict.replace(/^type error at /, "")))) {
        block("    failing: ", f.test);
        block("             ", f.error, "red");
      }
      write(`    edit:    ${e.file}`);
      write(`    hint:    npm run hint ${e.id}`);
    }
  }
  process.stdout.write(
    `\n${solved} of ${results.length} exercise${results.length === 1 ? "" : "s"} solved.\n`,
  );
  if (solved < results.length) process.exitCode = 1;
});
