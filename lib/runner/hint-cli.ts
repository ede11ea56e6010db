// `npm run hint [<exercise>]`: prints an exercise's hint (hints live in the manifest, exercises/info.toml,
// not in the files the learner edits). With no argument, the hint of the current exercise: the first
// that does not pass yet, as npm start would show it.

import { parseCommand, runMain, UsageError } from "../core/cli.ts";
import { requireRuntime } from "../core/runtime.ts";
import { terminalWidth, wrap } from "../core/text.ts";
import { type Exercise, findExercises, listExercises, ROOT } from "./catalog.ts";
import { firstNotPassing } from "./status.ts";

runMain(async () => {
  const { positionals } = parseCommand({
    usage: "npm run hint [<exercise>]",
    description:
      "Prints the hint for an exercise, e.g. npm run hint 01a (all hints of lesson 1: npm run hint 1). With no exercise, the hint for the first one that does not pass yet (its tests are run to find it).",
    options: {},
    optionHelp: {},
    positionals: true,
  });
  const all = listExercises();
  const ids = all.map((e) => e.id).join(", ");
  if (positionals.length > 1) throw new UsageError(`name one exercise: ${ids}`);
  const width = Math.min(terminalWidth(), 100);
  const show = (e: Exercise): void => {
    // Wrapped, not cut: the file to edit must be readable at any width.
    for (const line of wrap(
      `Exercise ${e.id} · ${e.title} (lesson ${e.lesson}, file ${e.file})`,
      width,
    ))
      process.stdout.write(`${line}\n`);
    process.stdout.write("\n");
    // Every step, a paragraph each (as shipped, each hint is one step); a line the manifest keeps (a
    // formula) stays a line.
    for (const paragraph of e.hintSteps.join("\n\n").split("\n")) {
      if (paragraph === "") process.stdout.write("\n");
      else for (const line of wrap(paragraph, width - 2)) process.stdout.write(`  ${line}\n`);
    }
    process.stdout.write("\n");
  };
  if (positionals.length === 0) {
    requireRuntime();
    if (process.stderr.isTTY)
      process.stderr.write("Finding your current exercise (the first that does not pass yet)…\n");
    const current = await firstNotPassing(all, { root: ROOT });
    if (!current) {
      process.stdout.write(
        `Every exercise passes. For the hint of one of them: npm run hint <exercise> (${ids}).\n`,
      );
      return;
    }
    show(current.exercise);
    return;
  }
  const found = findExercises(positionals[0]!, all);
  if (found.length === 0)
    throw new UsageError(`no exercise "${positionals[0]}"; the exercises are ${ids}`);
  for (const e of found) show(e);
});
