// `npm run hint [<exercise>]`: an exercise's hint, a step at a time (hints live in the manifest,
// exercises/info.toml, not in the files the learner edits). The first ask gives the first step, a
// nudge; asking again gives the steps so far and the next one (hints-seen.ts remembers how far);
// `--step <n>` the steps up to n, `--all` every step. With no exercise, the current one: the first that
// does not pass yet, as npm start would show it.

import { intFlag, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
import { requireRuntime } from "../core/runtime.ts";
import { terminalWidth, wrap } from "../core/text.ts";
import { type Exercise, findExercises, listExercises, ROOT } from "./catalog.ts";
import { readHintsSeen, recordHintSeen } from "./hints-seen.ts";
import { firstNotPassing } from "./status.ts";

runMain(async () => {
  const { values, positionals } = parseCommand({
    usage: t("npm run hint [<exercise>] [-- --all | --step <n>]"),
    description: t(
      "Prints the hint for an exercise a step at a time, e.g. npm run hint 01a (for each exercise of lesson 1: npm run hint 1). The first time, the first step: a nudge. Asking again prints the next step, closer to the answer. With no exercise, the hint for the first one that does not pass yet (its tests are run to find it).",
    ),
    options: { all: { type: "boolean" }, step: { type: "string" } },
    optionHelp: {
      all: t("every step of the hint"),
      step: t("the steps up to this one (1 is the first)"),
    },
    positionals: true,
  });
  const all = listExercises();
  const ids = all.map((e) => e.id).join(", ");
  if (positionals.length > 1) throw new UsageError(t("name one exercise: {ids}", { ids }));
  if (values.all === true && values.step !== undefined)
    throw new UsageError(t("give either --all or --step, not both"));
  const asked = values.step === undefined ? undefined : intFlag("step", values.step, 1, 1, 99);
  const width = Math.min(terminalWidth(), 100);
  const seen = readHintsSeen(ROOT);
  const write = (line: string): void => void process.stdout.write(`${line}\n`);
  const show = (e: Exercise): void => {
    const steps = e.hintSteps.length;
    const upTo = Math.min(
      steps,
      values.all === true ? steps : (asked ?? Math.min(steps, (seen[e.id] ?? 0) + 1)),
    );
    // Wrapped, not cut: the file to edit must be readable at any width.
    for (const line of wrap(
      t("Exercise {id} · {title} (lesson {number}, file {file})", {
        id: e.id,
        title: e.title,
        number: e.lesson,
        file: e.file,
      }),
      width,
    ))
      write(line);
    for (const [i, step] of e.hintSteps.slice(0, upTo).entries()) {
      write("");
      if (steps > 1) write(t("Step {step} of {steps}", { step: i + 1, steps }));
      // A line the manifest keeps (a formula) stays a line; a blank one parts paragraphs.
      for (const paragraph of step.split("\n")) {
        if (paragraph === "") write("");
        else for (const line of wrap(paragraph, width - 2)) write(`  ${line}`);
      }
    }
    write("");
    if (upTo < steps) {
      for (const line of wrap(
        t("Still stuck? Ask again for step {next} of {steps}: npm run hint {id}", {
          next: upTo + 1,
          steps,
          id: e.id,
        }),
        width,
      ))
        write(line);
      write("");
    }
    recordHintSeen(ROOT, e.id, upTo);
  };
  if (positionals.length === 0) {
    requireRuntime();
    if (process.stderr.isTTY)
      process.stderr.write(
        `${t("Finding your current exercise (the first that does not pass yet)…")}\n`,
      );
    const current = await firstNotPassing(all, { root: ROOT });
    if (!current) {
      for (const line of wrap(
        t("Every exercise passes. For the hint of one of them: npm run hint <exercise> ({ids}).", {
          ids,
        }),
        width,
      ))
        write(line);
      return;
    }
    show(current.exercise);
    return;
  }
  const found = findExercises(positionals[0]!, all);
  if (found.length === 0)
    throw new UsageError(
      t("no exercise {query}; the exercises are {ids}", { query: `"${positionals[0]}"`, ids }),
    );
  for (const e of found) show(e);
});
