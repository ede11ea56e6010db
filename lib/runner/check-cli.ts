// `npm run check [<n>]`: runs the tests of the learner's exercises (all, or one lesson's, or one).

import { noColorHelp, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
import { requireRuntime } from "../core/runtime.ts";
import { displayWidth, padEnd, terminalWidth, wrapKeepingSpaces } from "../core/text.ts";
import { colorWanted } from "../core/trace.ts";
import { findExercises, listExercises, ROOT } from "./catalog.ts";
import { recordShippedIfPossible } from "./shipped.ts";
import { checkAll } from "./status.ts";
import { labelColumn, labelled, painter, type Style } from "./style.ts";

runMain(async () => {
  requireRuntime();
  const { values, positionals } = parseCommand({
    usage: t("npm run check [<n>] [-- --no-color]"),
    description: t(
      "Runs the tests of your exercises: all of them, lesson n's (1 or 01), or one exercise (01a).",
    ),
    options: { "no-color": { type: "boolean" } },
    optionHelp: { "no-color": noColorHelp() },
    positionals: true,
  });
  if (positionals.length > 1) throw new UsageError(t("give at most one lesson or exercise"));
  const all = listExercises();
  const chosen = positionals[0] === undefined ? all : findExercises(positionals[0], all);
  if (chosen.length === 0) {
    throw new UsageError(
      t("no exercise matches {query}; try a lesson number ({lessons}) or an exercise id ({ids})", {
        query: `"${positionals[0]}"`,
        lessons: [...new Set(all.map((e) => Number(e.lesson)))].join(", "),
        ids: all.map((e) => e.id).join(", "),
      }),
    );
  }
  const paint = painter(colorWanted(values["no-color"] === true));
  recordShippedIfPossible(ROOT, all);

  const { results } = await checkAll(chosen);
  // Every line wraps between words to the terminal (else $COLUMNS, else 100), never cut: piped into a
  // file, the path to compare with must still be whole.
  const width = terminalWidth();
  const write = (line: string): void => void process.stdout.write(`${line}\n`);
  /** `label` then `text` under itself; each line of the text keeps its own indentation and spaces. */
  const block = (label: string, text: string, style?: Style): void => {
    const pad = " ".repeat(displayWidth(label));
    const lines = text
      .split("\n")
      .flatMap((l) => (l.trim() === "" ? [""] : wrapKeepingSpaces(l, width - pad.length, 0)));
    for (const [i, l] of lines.entries())
      write(`${i === 0 ? label : pad}${style && l ? paint(style, l) : l}`);
  };
  /** A row of the summary: the mark and id, then the title and a grey note wrapped under the title. */
  const row = (lead: string, title: string, note: string): void => {
    const pad = " ".repeat(displayWidth(lead));
    const words = `${title}  ${paint("gray", note)}`;
    for (const [i, l] of wrapKeepingSpaces(words, width - pad.length, 0).entries())
      write(`${i === 0 ? lead : pad}${l}`);
  };
  // The labels of a failure's lines, in one column.
  const labels = {
    failing: t("failing:"),
    actual: t("actual:"),
    expected: t("expected:"),
    edit: t("edit:"),
    hint: t("hint:"),
  };
  const column = labelColumn(Object.values(labels));
  const label = (text: string): string => `    ${padEnd(labelled(text), column)}`;
  const under = " ".repeat(4 + column);
  let solved = 0;
  for (const r of results) {
    const e = r.exercise;
    if (r.passed) {
      solved++;
      row(
        `${paint("green", "✓")} ${e.id}  `,
        e.title,
        t("(lesson {number}; compare with {file})", { number: e.lesson, file: e.solution }),
      );
    } else {
      row(`${paint("red", "✗")} ${e.id}  `, e.title, t("(lesson {number})", { number: e.lesson }));
      if (r.verdict) block("    ", r.verdict, "red");
      const f = r.firstFailure;
      if (f && !r.verdictCovers) {
        block(label(labels.failing), f.test);
        if (f.actual !== undefined && f.expected !== undefined) {
          block(label(labels.actual), f.actual, "red");
          block(label(labels.expected), f.expected, "red");
        }
        block(under, f.error, "red");
      }
      block(label(labels.edit), e.file);
      block(label(labels.hint), `npm run hint ${e.id}`);
    }
  }
  process.stdout.write(
    `\n${t("{solved} of {n, plural, one {# exercise} other {# exercises}} solved.", { solved, n: results.length })}\n`,
  );
  if (solved < results.length) process.exitCode = 1;
});
