// `npm run translations [-- --update]`: every message of the code set beside its Chinese catalogue.
// Without --update it says what is missing or stale and exits 1 if anything is; with --update it
// writes the catalogues afresh from the code (new messages untranslated, translations kept), for a
// translator to fill in.
import { checkCatalogues, updateCatalogues } from "../core/catalogues.ts";
import { parseCommand, runMain } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
import { ROOT } from "./catalog.ts";

runMain(() => {
  const { values } = parseCommand({
    usage: t("npm run translations -- [--update]"),
    description: t(
      'Checks the Chinese catalogues (lessons/zh/*.po, lib/<folder>/zh.po, exercises/zh.po) against the code: every t("…") must have its translation, every translation its English, and the values in braces must be the same in both.',
    ),
    options: { update: { type: "boolean" } },
    optionHelp: {
      update: t(
        "write the catalogues afresh from the code: new messages added untranslated, translations of messages that are gone dropped",
      ),
    },
  });
  if (values.update) {
    const { added, dropped } = updateCatalogues(ROOT, "zh");
    for (const d of dropped)
      process.stdout.write(
        `${t("dropped from {catalogue}: {message}", { catalogue: d.catalogue, message: d.id.replace(/\s+/g, " ").slice(0, 80) })}\n`,
      );
    process.stdout.write(
      `${t("{added} message(s) to translate, {dropped} translation(s) dropped", { added: added.length, dropped: dropped.length })}\n`,
    );
  }
  const { problems } = checkCatalogues(ROOT, "zh");
  for (const p of problems) process.stdout.write(`${p.where}: ${p.text}\n`);
  process.stdout.write(
    `${problems.length === 0 ? t("every message has its Chinese") : t("{n} problem(s)", { n: problems.length })}\n`,
  );
  if (problems.length > 0) process.exitCode = 1;
});
