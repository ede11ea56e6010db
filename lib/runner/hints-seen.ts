/**
 * How far into each exercise's hint the learner has read with `npm run hint`: asking again gives the
 * next step. Kept in the ignored `.workbook/hints-seen.json` ({ "05a": 2 }); a file that cannot be
 * read counts as nothing read, and one that cannot be written only means the next ask starts over.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const HINTS_SEEN = ".workbook/hints-seen.json";

/** The steps of each exercise's hint read so far. */
export function readHintsSeen(root: string): Record<string, number> {
  try {
    const data = JSON.parse(readFileSync(join(root, HINTS_SEEN), "utf8")) as unknown;
    if (typeof data !== "object" || data === null || Array.isArray(data)) return {};
    return Object.fromEntries(
      Object.entries(data).filter(
        (e): e is [string, number] => Number.isInteger(e[1]) && (e[1] as number) > 0,
      ),
    );
  } catch {
    return {};
  }
}

/** Records that the steps of `id`'s hint up to `step` were read (never fewer than before). */
export function recordHintSeen(root: string, id: string, step: number): void {
  const seen = readHintsSeen(root);
  seen[id] = Math.max(seen[id] ?? 0, step);
  try {
    mkdirSync(dirname(join(root, HINTS_SEEN)), { recursive: true });
    writeFileSync(join(root, HINTS_SEEN), `${JSON.stringify(seen, null, 2)}\n`);
  } catch {
    // A folder that cannot be written: the next ask starts from the first step again.
  }
}
