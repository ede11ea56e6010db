// Helpers for the lesson tests: one run of a lesson, read in full by its test file
// (test/lesson-NN.test.ts), and the widths that test/full/ checks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type Ran, runTs } from "./run-helpers.ts";

/**
 * Columns a code point takes, by its Unicode properties rather than with lib/core/text.ts: two for
 * Chinese and Japanese characters, Hangul syllables, CJK punctuation and the full-width forms, and for a symbol
 * shown as an emoji; none for a combining mark or a format character (a joiner, a variation selector);
 * else one.
 */
function codePointColumns(ch: string): number {
  if (/[\p{Mn}\p{Me}\p{Cf}]/u.test(ch)) return 0;
  if (/[\uff61-\uffdc\uffe8-\uffee]/u.test(ch)) return 1; // half-width forms
  if (
    /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\uac00-\ud7a3\u3000-\u303f\uff00-\uffef\p{Emoji_Presentation}]/u.test(
      ch,
    )
  )
    return 2;
  return 1;
}

/** Columns a line takes (see `codePointColumns`), colour codes none. */
export const columns = (line: string): number =>
  [...withoutColour(line)].reduce((n, ch) => n + codePointColumns(ch), 0);

/** The text without its colour codes (removed here too, not with lib/core/text.ts). */
export const withoutColour = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, "");

/** The lines of `text` wider than `width`, numbered, colour removed: for an assertion's message. */
export function linesWiderThan(text: string, width: number): string[] {
  return text
    .split("\n")
    .flatMap((l, i) =>
      columns(l) > width ? [`line ${i + 1} (${columns(l)} columns): ${withoutColour(l)}`] : [],
    );
}

export interface LessonRun extends Ran {
  /** What the lesson printed, as printed (colour codes included when the run had colour). */
  raw: string;
  /** How long the run was given before it was killed, ms. */
  limitMs: number;
}

/**
 * Runs a lesson once. By default its lines are read whole (COLUMNS=1000, no colour, as runTs does);
 * with `width`, it is piped at that many columns with colour forced, as a learner's terminal would
 * show it, and `stdout` is its output with the colour codes removed (`raw` keeps them).
 */
export async function runLesson(
  args: string[],
  options: { timeoutMs?: number; env?: Record<string, string>; width?: number } = {},
): Promise<LessonRun> {
  const width: Record<string, string> =
    options.width === undefined
      ? {}
      : { COLUMNS: String(options.width), FORCE_COLOR: "1", NO_COLOR: "" };
  const limitMs = options.timeoutMs ?? 60_000;
  const ran = await runTs(args, { timeoutMs: limitMs, env: { ...width, ...options.env } });
  return { ...ran, raw: ran.stdout, stdout: withoutColour(ran.stdout), limitMs };
}

/** The test every lesson run gets: "<what> runs, exits 0 on its own, writes nothing to stderr". */
export function testRunsCleanly(what: string, ran: LessonRun): void {
  test(`${what} runs, exits 0 on its own, writes nothing to stderr`, () => {
    assert.equal(
      ran.timedOut,
      false,
      `${what} did not exit within ${ran.limitMs / 1000} s (a leaked server or timer?)`,
    );
    assert.equal(ran.stderr, "");
    assert.equal(ran.code, 0);
    assert.ok(ran.stdout.length > 500);
  });
}

/** For a run piped at `width` columns with colour forced: "<what> fits in <width> columns, colour codes aside". */
export function testFitsColumns(what: string, ran: LessonRun, width: number): void {
  test(`${what} fits in ${width} columns, colour codes aside`, () => {
    assert.ok(ran.raw.split("\n").length > 20, "the lesson printed its trace");
    assert.ok(ran.raw.includes("\u001b["), "the run had colour");
    const wide = linesWiderThan(ran.raw, width);
    assert.deepEqual(wide.slice(0, 5), [], `${wide.length} line(s) wider than ${width} columns`);
  });
}
