// What the tests ask of a Chinese run of a command (issue: the course in its own language): no run of
// four or more English words outside code, commands, identifiers and quoted titles; every line
// within the terminal's width by display width; and the same counts and verdicts as the English run
// of the same seed. Used by the lesson tests (test/full/lessons-zh.test.ts, and one lesson in npm
// test) and by `node --import tsx test/chinese-output.ts <lesson>`, which prints what is wrong.
import { STRATEGY_NAMES } from "../lib/client/backoff.ts";
import { POLICY_NAMES } from "../lib/client/client.ts";
import { FAULT_NAMES } from "../lib/tracker/faults.ts";
import { VARIANT_NAMES } from "../lib/tracker/variant.ts";
import { columns } from "./lesson-run.ts";

/**
 * The workbook's own identifiers, which stay as they are in Chinese (they are what --variant,
 * --fault, --policy and --strategies take): a column headed "exponential" is code, not English.
 */
const IDENTIFIERS = new Set<string>([
  ...STRATEGY_NAMES,
  ...POLICY_NAMES,
  ...FAULT_NAMES,
  ...VARIANT_NAMES,
]);

/** A word of English prose: letters only (an apostrophe inside, as in "agent's"), not all capitals. */
const WORD = /^[A-Za-z]+(?:['’][a-z]+)?$/;

/**
 * The runs of `min` or more English words in a row in `text`, one string each, with the line they
 * stand in. Not counted: the workbook's identifiers (IDENTIFIERS), text in quotes ("…", “…”, '…', `…`: a source's title, a quoted header), a
 * token with anything but letters (a path, a command, an identifier, a number, `key-after`, `npm`),
 * a word in capitals (SQL, HTTP, RFC); any of those ends a run, and so does a Chinese character.
 * Punctuation at a word's end (a comma, a period) does not: English left over is English.
 */
export function englishRuns(text: string, min = 4): { line: number; run: string }[] {
  const found: { line: number; run: string }[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw
      .replace(/"[^"]*"|“[^”]*”|`[^`]*`|'[^']{2,}'|‘[^’]*’|「[^」]*」/g, " | ")
      .replace(/[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+/g, " | ");
    let run: string[] = [];
    const flush = (): void => {
      if (run.length >= min) found.push({ line: i + 1, run: run.join(" ") });
      run = [];
    };
    for (const token of line.split(/\s+/)) {
      const word = token.replace(/[,.;:!?)]+$/, "").replace(/^[(]+/, "");
      if (WORD.test(word) && word !== word.toUpperCase() && !IDENTIFIERS.has(word)) run.push(word);
      else flush();
    }
    flush();
  });
  return found;
}

/** The lines of `text` wider than `width` display columns (a Chinese character takes two). */
export function widerThan(text: string, width: number): string[] {
  return text.split("\n").filter((l) => columns(l) > width);
}

/**
 * The numbers of a run that are not times: every whole number, in order, after removing times
 * ("123 ms", "1.2 s", "(12 ms)"), the trace's time column and the seconds a run took. A translation
 * may move a number within its sentence and wrap lines elsewhere, so the numbers are compared as a
 * sorted list.
 */
export function countsOf(text: string): number[] {
  const masked = text
    .replace(/^\s*\d+ ms {2}/gm, "")
    .replace(/\d+(?:[.,]\d+)?\s*(?:ms|s|µs|秒|毫秒)\b/g, "")
    .replace(/\d+(?:[.,]\d+)?\s*(?:秒|毫秒)/g, "");
  return [...masked.matchAll(/\d+/g)].map((m) => Number(m[0])).sort((a, b) => a - b);
}

/** What differs between two lists of counts, said in one line ("" when they are the same). */
export function countDifference(en: number[], zh: number[]): string {
  const tally = (xs: number[]): Map<number, number> =>
    xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<number, number>());
  const a = tally(en);
  const b = tally(zh);
  const parts: string[] = [];
  for (const n of [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => x - y)) {
    const d = (b.get(n) ?? 0) - (a.get(n) ?? 0);
    if (d !== 0) parts.push(`${n} ${d > 0 ? `${d} more` : `${-d} fewer`} in Chinese`);
  }
  return parts.join(", ");
}
