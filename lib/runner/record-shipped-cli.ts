// Run by `npm install` (postinstall): records the shipped state of every exercise in .workbook/shipped/,
// which `npm run reset` restores. It never fails the install; the runner commands record what is
// missing again when they start.
import { t } from "../core/i18n.ts";
import { recordShipped, SHIPPED_DIR } from "./shipped.ts";

try {
  const { recorded, refreshed, missing } = recordShipped();
  if (refreshed.length > 0)
    process.stdout.write(
      `retry-workbook: ${t(
        "replaced the shipped copy of {n, plural, one {# exercise} other {# exercises}} recorded by an older version of the workbook (its imports name files that have moved)",
        { n: refreshed.length },
      )}\n`,
    );
  if (recorded.length > 0)
    process.stdout.write(
      `retry-workbook: ${t(
        "recorded the shipped state of {n, plural, one {# exercise} other {# exercises}} in {folder} (for npm run reset)",
        { n: recorded.length, folder: `${SHIPPED_DIR}/` },
      )}\n`,
    );
  for (const e of missing)
    process.stdout.write(
      `retry-workbook: ${t("{file} is already edited, so npm run reset cannot restore it", { file: e.file })}\n`,
    );
} catch (err) {
  process.stderr.write(
    `retry-workbook: ${t(
      "could not record the shipped exercises ({reason}); npm run reset may not work",
      { reason: err instanceof Error ? err.message : String(err) },
    )}\n`,
  );
}
