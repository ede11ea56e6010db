// `npm run hint <exercise>`: prints an exercise's hint (hints live in the exercise files' headers).
import { findExercises, listExercises } from "../catalog.ts";
import { UsageError, parseCommand, runMain } from "../cli.ts";
import { wrap } from "../trace.ts";

runMain(() => {
  const { positionals } = parseCommand({
    usage: "npm run hint <exercise>",
    description: "Prints the hint for an exercise, e.g. npm run hint 01a (or all hints of lesson 1: npm run hint 1).",
    options: {},
    optionHelp: {},
    positionals: true,
  });
  const all = listExercises();
  const ids = all.map((e) => e.id).join(", ");
  if (positionals.length !== 1) throw new UsageError(`name one exercise: ${ids}`);
  const found = findExercises(positionals[0]!, all);
  if (found.length === 0) throw new UsageError(`no exercise "${positionals[0]}"; the exercises are ${ids}`);
  for (const e of found) {
    process.stdout.write(`Exercise ${e.id} · ${e.title} (lesson ${e.lesson}, file ${e.file})\n\n`);
    for (const line of wrap(e.hint || "(no hint for this one)", 92)) process.stdout.write(`  ${line}\n`);
    process.stdout.write("\n");
  }
});
