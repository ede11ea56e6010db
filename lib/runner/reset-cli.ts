// `npm run reset <exercise>` / `npm run reset -- --all`: puts exercises back to their shipped state,
// after a y/n question (`--yes` skips it), keeping the learner's version in .workbook/backups/.
import { createInterface } from "node:readline";
import { npmSettingGiven, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { formatList, t } from "../core/i18n.ts";
import { terminalWidth, wrap } from "../core/text.ts";
import { type Exercise, findExercises, listExercises, ROOT } from "./catalog.ts";
import { BACKUP_DIR, isAsShipped, recordShipped, resetExercise, shippedCopy } from "./shipped.ts";

runMain(async () => {
  const { values, positionals } = parseCommand({
    usage: t("npm run reset <exercise> [-- --yes]   or   npm run reset -- --all [--yes]"),
    description: t(
      "Puts an exercise (01a), a lesson's exercises (1) or every exercise (--all) back the way the workbook shipped it. Your version is copied to .workbook/backups/ first, so nothing is lost.",
    ),
    options: { all: { type: "boolean" }, yes: { type: "boolean", short: "y" } },
    optionHelp: {
      all: t("reset every exercise"),
      yes: t("do not ask for confirmation (for scripts)"),
    },
    positionals: true,
  });
  // Every line wraps between words to the terminal, paths whole; the question too.
  const width = terminalWidth();
  const say = (text: string): void => {
    for (const line of wrap(text, width)) process.stdout.write(`${line}\n`);
  };
  const root = ROOT;
  const all = listExercises(root);
  const ids = all.map((e) => e.id).join(", ");
  let chosen: Exercise[];
  if (values.all === true) {
    if (positionals.length > 0)
      throw new UsageError(t("give either --all or an exercise, not both"));
    chosen = all;
  } else {
    // `npm run reset --all` gives --all to npm, which passes it on only as npm_config_all.
    if (positionals.length === 0 && npmSettingGiven("all"))
      throw new UsageError(
        t("npm kept {flags} for itself; put flags after --: {command} -- {flags}", {
          flags: "--all",
          command: "npm run reset",
        }),
      );
    if (positionals.length !== 1)
      throw new UsageError(t("name one exercise ({ids}), a lesson number, or --all", { ids }));
    chosen = findExercises(positionals[0]!, all);
    if (chosen.length === 0)
      throw new UsageError(
        t("no exercise matches {query}; the exercises are {ids}", {
          query: `"${positionals[0]}"`,
          ids,
        }),
      );
  }
  recordShipped(root, all);

  const unknown = chosen.filter((e) => isAsShipped(e, root) === undefined);
  for (const e of unknown)
    for (const line of wrap(
      t("error: cannot reset {id}: no shipped copy was recorded ({copy} is missing)", {
        id: e.id,
        copy: shippedCopy(e),
      }),
      width,
    ))
      process.stderr.write(`${line}\n`);
  const changed = chosen.filter((e) => isAsShipped(e, root) === false);
  for (const e of chosen.filter((x) => isAsShipped(x, root) === true))
    say(t("{id} is already as shipped ({file}).", { id: e.id, file: e.file }));
  if (changed.length === 0) {
    if (unknown.length > 0) process.exitCode = 1;
    return;
  }

  const list = formatList(changed.map((e) => `${e.id} (${e.file})`));
  if (values.yes !== true) {
    // The question wrapped between words, its last line the prompt: the terminal never breaks a path.
    const question = wrap(
      t("Reset {list} to the shipped state? Your version goes to {backups}. [y/N]", {
        list,
        backups: `${BACKUP_DIR}/`,
      }),
      width - 1,
    );
    for (const line of question.slice(0, -1)) process.stdout.write(`${line}\n`);
    const answer = await ask(`${question.at(-1)} `);
    // From a pipe, nothing echoes the answer and its Enter: the next line starts on a line of its own.
    if (answer !== undefined && process.stdin.isTTY !== true) process.stdout.write("\n");
    if (answer === undefined) {
      process.stdout.write("\n");
      say(t("No answer, nothing changed (use --yes to reset without asking)."));
      process.exitCode = 1;
      return;
    }
    // "y" or "yes" in either language's keyboard; 是 for a Chinese answer.
    if (!/^(y(es)?|是)$/i.test(answer.trim())) {
      say(t("Nothing changed."));
      return;
    }
  }
  for (const e of changed) {
    const outcome = resetExercise(e, root);
    if (outcome.changed) {
      say(
        outcome.backup
          ? t("Reset {file} to its shipped state. Your version is saved as {backup}.", {
              file: e.file,
              backup: outcome.backup,
            })
          : t("Reset {file} to its shipped state.", { file: e.file }),
      );
    }
  }
  say(
    t("{n, plural, one {# exercise} other {# exercises}} reset.", {
      n: changed.length,
    }),
  );
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
