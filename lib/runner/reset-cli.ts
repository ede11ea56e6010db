// `npm run reset <exercise>` / `npm run reset -- --all`: puts exercises back to their shipped state,
// after a y/n question (`--yes` skips it), keeping the learner's version in .workbook/backups/.
import { createInterface } from "node:readline";
import { npmSettingGiven, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { type Exercise, findExercises, listExercises, ROOT } from "./catalog.ts";
import { BACKUP_DIR, isAsShipped, recordShipped, resetExercise, shippedCopy } from "./shipped.ts";
import { plural } from "./style.ts";

runMain(async () => {
  const { values, positionals } = parseCommand({
    usage: "npm run reset <exercise> [-- --yes]   or   npm run reset -- --all [--yes]",
    description:
      "Puts an exercise (01a), a lesson's exercises (1) or every exercise (--all) back the way the workbook shipped it. Your version is copied to .workbook/backups/ first, so nothing is lost.",
    options: { all: { type: "boolean" }, yes: { type: "boolean", short: "y" } },
    optionHelp: { all: "reset every exercise", yes: "do not ask for confirmation (for scripts)" },
    positionals: true,
  });
  const root = ROOT;
  const all = listExercises(root);
  const ids = all.map((e) => e.id).join(", ");
  let chosen: Exercise[];
  if (values.all === true) {
    if (positionals.length > 0) throw new UsageError("give either --all or an exercise, not both");
    chosen = all;
  } else {
    // `npm run reset --all` gives --all to npm, which passes it on only as npm_config_all.
    if (positionals.length === 0 && npmSettingGiven("all"))
      throw new UsageError("npm kept --all for itself; put flags after --: npm run reset -- --all");
    if (positionals.length !== 1)
      throw new UsageError(`name one exercise (${ids}), a lesson number, or --all`);
    chosen = findExercises(positionals[0]!, all);
    if (chosen.length === 0)
      throw new UsageError(`no exercise matches "${positionals[0]}"; the exercises are ${ids}`);
  }
  recordShipped(root, all);

  const unknown = chosen.filter((e) => isAsShipped(e, root) === undefined);
  for (const e of unknown)
    process.stderr.write(
      `error: cannot reset ${e.id}: no shipped copy was recorded (${shippedCopy(e)} is missing)\n`,
    );
  const changed = chosen.filter((e) => isAsShipped(e, root) === false);
  for (const e of chosen.filter((x) => isAsShipped(x, root) === true))
    process.stdout.write(`${e.id} is already as shipped (${e.file}).\n`);
  if (changed.length === 0) {
    if (unknown.length > 0) process.exitCode = 1;
    return;
  }

  const list = changed.map((e) => `${e.id} (${e.file})`).join(", ");
  if (values.yes !== true) {
    const answer = await ask(
      `Reset ${list} to the shipped state? Your version goes to ${BACKUP_DIR}/. [y/N] `,
    );
    if (answer === undefined) {
      process.stdout.write("\nNo answer, nothing changed (use --yes to reset without asking).\n");
      process.exitCode = 1;
      return;
    }
    if (!/^y(es)?$/i.test(answer.trim())) {
      process.stdout.write("Nothing changed.\n");
      return;
    }
  }
  for (const e of changed) {
    const outcome = resetExercise(e, root);
    if (outcome.changed) {
      process.stdout.write(
        `Reset ${e.file} to its shipped state.${outcome.backup ? ` Your version is saved as ${outcome.backup}.` : ""}\n`,
      );
    }
  }
  process.stdout.write(`${plural(changed.length, "exercise")} reset.\n`);
  if (unknown.length > 0) process.exitCode = 1;
});

/** One line from stdin, or undefined when input ends first. */
function ask(question: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const rl = createInterface({
      input: process.stdin,
      output: process.stdout,
      terminal: process.stdin.isTTY === true,
    });
    let answered = false;
    rl.question(question, (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.on("close", () => {
      if (!answered) resolve(undefined);
    });
  });
}
