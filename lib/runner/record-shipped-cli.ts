// Run by `npm install` (postinstall): records the shipped state of every exercise in .workbook/shipped/,
// which `npm run reset` restores. It never fails the install; the runner commands record what is
// missing again when they start.
import { recordShipped, SHIPPED_DIR } from "./shipped.ts";
import { plural } from "./style.ts";

try {
  const { recorded, refreshed, missing } = recordShipped();
  if (refreshed.length > 0)
    process.stdout.write(
      `retry-workbook: replaced the shipped copy of ${plural(refreshed.length, "exercise")} recorded by an older version of the workbook (its imports name files that have moved)\n`,
    );
  if (recorded.length > 0)
    process.stdout.write(
      `retry-workbook: recorded the shipped state of ${plural(recorded.length, "exercise")} in ${SHIPPED_DIR}/ (for npm run reset)\n`,
    );
  for (const e of missing)
    process.stdout.write(
      `retry-workbook: ${e.file} is already edited, so npm run reset cannot restore it\n`,
    );
} catch (err) {
  process.stderr.write(
    `retry-workbook: could not record the shipped exercises (${err instanceof Error ? err.message : String(err)}); npm run reset may not work\n`,
  );
}
