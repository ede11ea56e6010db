// Each lesson's output beside it: the text `npm run lesson N -- --seed 1` prints, piped at 100 columns
// without colour, committed as lessons/output/NN-slug.<language>.txt so that a review sees what a
// change does to the text learners read. What differs between two runs with the same seed (times,
// durations, what the real clock and the scheduler decide) is masked here, in one place; every
// count, verdict, status code and seeded number stays as printed. test/full/ compares its runs of the
// lessons with these files (lesson-output.test.ts for lessons 01 to 08, lesson-09.test.ts,
// lesson-10.test.ts and lesson-11.test.ts for the three long ones); `npm run snapshots`
// (update-lesson-output.ts) writes them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { wrap } from "../lib/core/text.ts";
import { type Lesson, ROOT } from "../lib/runner/catalog.ts";
import { type LessonRun, runLesson } from "./lesson-run.ts";

/** The languages a lesson's output is kept in: "en", the lessons' own (a language other than en is run with --lang). */
export const OUTPUT_LANGUAGES = ["en"] as const;
export type OutputLanguage = (typeof OUTPUT_LANGUAGES)[number];

/** The folder of the files, relative to the root. */
export const OUTPUT_DIR = "lessons/output";

/** The seed, width and environment of a kept run: the default seed, piped output's default width. */
export const OUTPUT_SEED = "1";
export const OUTPUT_COLUMNS = 100;
// DATABASE_URL empty: lesson 10 starts its own PostgreSQL, as it does for a learner who set none.
const OUTPUT_ENV = { COLUMNS: String(OUTPUT_COLUMNS), NO_COLOR: "1", DATABASE_URL: "" };

/** The command that writes the files again. */
export const UPDATE_COMMAND = "npm run snapshots";

/** The file that keeps `lesson`'s output in `language`, relative to the root: "lessons/output/01-timeout-truths.en.txt". */
export function outputFile(lesson: Lesson, language: OutputLanguage = "en"): string {
  return `${OUTPUT_DIR}/${lesson.number}-${lesson.slug}.${language}.txt`;
}

/** The arguments of a kept run of `lesson` (the lesson's file first). */
export function outputArgs(
  lesson: Lesson,
  language: OutputLanguage = "en",
  seed = OUTPUT_SEED,
): string[] {
  return [lesson.file, "--seed", seed, "--lang", language];
}

/**
 * Runs `lesson` as its kept output is made: seed 1, 100 columns, no colour (`seed`: another seed,
 * for a run to set beside it).
 */
export function runForOutput(
  lesson: Lesson,
  options: { language?: OutputLanguage; seed?: string; timeoutMs?: number } = {},
): Promise<LessonRun> {
  return runLesson(outputArgs(lesson, options.language, options.seed), {
    env: OUTPUT_ENV,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

// ## The masks
// A masked value reads "<n>" (a number), "<time>" (a number and its unit) or "<measured>" (words).
// Each mask says what it hides and why that differs from run to run; a mask of one lesson is listed
// under its number.

/** A number that differs from run to run. */
const N = "<n>";
/** A number as printed: "7", "1.0", "1,863". */
const NUMBER = /\b\d+(?:[.,]\d+)*\b/g;

interface Mask {
  /** What it hides, and why that is not the same in two runs with the same seed. */
  why: string;
  apply: (text: string) => string;
}

/**
 * `apply` on the lines under the heading `from` (a whole line), up to the next section heading: a
 * line that starts in column 0 and is not a table's (a table too wide to indent starts there too).
 */
function inSection(from: string, apply: (lines: string[]) => string[]): (text: string) => string {
  return (text) => {
    const lines = text.split("\n");
    const start = lines.indexOf(from);
    if (start < 0) return text;
    let end = lines.findIndex((l, i) => i > start && /^\S/.test(l) && !/[│┼]/.test(l));
    if (end < 0) end = lines.length;
    return [
      ...lines.slice(0, start + 1),
      ...apply(lines.slice(start + 1, end)),
      ...lines.slice(end),
    ].join("\n");
  };
}

/**
 * A table line with the numbers in the cells `columns` (0 = the first) masked, each cell as wide as
 * before where its padding allows, so that the columns stay aligned.
 */
function maskCells(line: string, columns: number[]): string {
  return line
    .split("│")
    .map((cell, i) => {
      if (!columns.includes(i)) return cell;
      const masked = cell.replace(NUMBER, N).trimEnd();
      return masked.padEnd(Math.max(cell.length, masked.length + 1));
    })
    .join("│");
}

/**
 * A table whose column widths follow what was measured, one row a line: the lines of a row
 * (its first cell blank on every line after the first) joined cell by cell, cells set apart by " │ ",
 * the rule under the header as "─". `mask` is applied to every cell but the header's.
 */
function unwrapTable(lines: string[], mask: (cell: string, column: number) => string): string[] {
  const rows: string[][] = [];
  const out: string[] = [];
  const flush = (): void => {
    for (const [i, row] of rows.entries())
      out.push(
        row.map((c, column) => (out.length === 0 && i === 0 ? c : mask(c, column))).join(" │ "),
      );
    rows.length = 0;
  };
  for (const line of lines) {
    if (/┼/.test(line)) {
      flush();
      out.push("─");
      continue;
    }
    const cells = line.split("│").map((c) => c.trim());
    const last = rows.at(-1);
    if (cells[0] === "" && last !== undefined) {
      for (const [i, c] of cells.entries())
        last[i] = [last[i] ?? "", c].filter((s) => s !== "").join(" ");
    } else rows.push(cells);
  }
  flush();
  return out;
}

// An event's text starts in column 20, after its time (8 columns), two spaces, its actor (9) and a
// space; a long one goes on in lines indented 20 columns. The masks read each event as one line,
// and the masked event is wrapped again as the trace wraps it: where it breaks then depends on the
// masked text, not on how many digits a masked time had.
const EVENT_TEXT_COLUMN = 20;
// (A time reads "<n>" once masked.)
const isEvent = (line: string): boolean =>
  /^ *(?:\d+|<n>) ms {2}\S+ +$/.test(line.slice(0, EVENT_TEXT_COLUMN)) &&
  /^\S/.test(line.slice(EVENT_TEXT_COLUMN));
const isEventGoingOn = (line: string): boolean => /^ {20}\S/.test(line) && !/[│┼]/.test(line);

/** Each event on one line: its continuation lines joined to it. */
function joinEvents(text: string): string {
  const out: string[] = [];
  let inEvent = false;
  for (const line of text.split("\n")) {
    if (inEvent && isEventGoingOn(line)) out[out.length - 1] += ` ${line.trim()}`;
    else {
      out.push(line);
      inEvent = isEvent(line);
    }
  }
  return out.join("\n");
}

/** Each event wider than the output wrapped as the trace wraps it (lib/core/trace.ts, Trace.event). */
function wrapEvents(text: string): string {
  const room = OUTPUT_COLUMNS - EVENT_TEXT_COLUMN;
  return text
    .split("\n")
    .flatMap((line) => {
      if (!isEvent(line) || line.length <= OUTPUT_COLUMNS) return [line];
      const [first = "", ...rest] = wrap(line.slice(EVENT_TEXT_COLUMN), room);
      return [
        line.slice(0, EVENT_TEXT_COLUMN) + first,
        ...rest.map((l) => " ".repeat(EVENT_TEXT_COLUMN) + l),
      ];
    })
    .join("\n");
}

/** Masks for every lesson. */
const EVERY_LESSON: Mask[] = [
  {
    why: "an event's time, ms since its section began: the real clock (each event line starts with it, right-aligned in 8 columns)",
    apply: (t) => t.replace(/^ *\d+ ms(?= {2}\S)/gm, `${N} ms`.padStart(8)),
  },
  {
    why: "how long the whole run took, printed at its end",
    apply: (t) => t.replace(/\(This run took \d+ ms/g, `(This run took ${N} ms`),
  },
];

/** Masks for one lesson each, by number. */
const BY_LESSON: Record<string, Mask[]> = {
  "02": [
    {
      why: "the herd over real HTTP: which requests collide depends on when the event loop delivers them (the lesson says its counts vary); the agents' and the strategies' names, the number of entries and the prose stay",
      apply: inSection("The herd over real HTTP: ten agents, one busy server", (lines) =>
        lines.map((l) => {
          const row = /^ {2}(?:exponential|full) +/.exec(l)?.[0];
          if (row === undefined) {
            return l
              .replace(
                /: \d+ requests for (\d+) agents; (\d+) served, \d+ answered 503/,
                `: ${N} requests for $1 agents; $2 served, ${N} answered 503`,
              )
              .replace(/the peak is \d+\)/, `the peak is ${N})`)
              .replace(/^( +0) +[\d,]+ ms$/, `$1 ${N} ms`); // the chart's time axis, as long as the herd took
          }
          const rest = l.slice(row.length);
          if (/^│[^│]*│$/.test(rest)) return `${row}│<measured>│`; // a row of the chart: requests per 10 ms
          if (rest.startsWith("│")) return maskCells(l, [1, 2, 3, 4]); // a row of the table
          return row + rest.replace(NUMBER, N); // requests turned away, one number per request served
        }),
      ),
    },
    {
      why: "the same herd, in the sentence that reads it: which strategy was turned away more often decides the sentence",
      apply: (t) =>
        t.replace(
          /(?:In\s+this\s+run\s+full\s+jitter|This\s+run\s+did\s+not\s+show\s+it:)[\s\S]*?(?=\n\n)/,
          "<measured>",
        ),
    },
    {
      why: "the same herd, in the closing table's two HTTP columns (the simulator's columns are seeded and stay)",
      apply: inSection("What this run measured", (lines) =>
        lines.map((l) => (/^ {2}(exponential|full) +│/.test(l) ? maskCells(l, [3, 4]) : l)),
      ),
    },
  ],
  "04": [
    {
      why: "a lease's time left when a retry meets it (its 409 and retry-after-ms): the real clock, since the claim",
      apply: (t) =>
        t
          .replace(/lease ends in \d+ ms/g, `lease ends in ${N} ms`)
          .replace(/retry in \d+ ms/g, `retry in ${N} ms`)
          .replace(/retry-after-ms: \d+/g, `retry-after-ms: ${N}`),
    },
  ],
  "06": [
    {
      why: "a lease's time left when the harness's resend meets it: the real clock, since the claim",
      apply: (t) =>
        t
          .replace(/lease ends in \d+ ms/g, `lease ends in ${N} ms`)
          .replace(/retry in \d+ ms/g, `retry in ${N} ms`),
    },
  ],
  "09": [
    {
      why: "the close-up's attempts, ms after the first: the library's own backoff (with its own jitter) on the real clock",
      apply: (t) => t.replace(/^ {2}\+ +\d+ ms(?= {2})/gm, `  + ${`${N} ms`.padStart(7)}`),
    },
    {
      why:
        "part 2, the waits measured on the real clock: the gaps and their spread, how long a retry waited, the seconds asked" +
        " (more than 1 where the library's own first gap, as measured, is near a second); a wait's unit goes with its number" +
        " (999 ms, 1.0 s). The Retry-After verdicts (✓, ✗, waiting) and each cell's count of gaps stay. Jitter's yes/no is" +
        " masked too: at load 10 on 2 cores, timers late by tens of ms made axios, p-retry and exponential-backoff read" +
        ' "yes" on both of the lesson\'s tries. The column widths follow the measured values, so the table is kept one row a line',
      apply: inSection("2 · How long does it wait?", (lines) => {
        const end = lines.findIndex((l) => !/[│┼]/.test(l));
        const table = end < 0 ? lines : lines.slice(0, end);
        const rest = end < 0 ? [] : lines.slice(end);
        if (table.length === 0) return lines; // no table right under the heading: a file's text, masked already
        // The Retry-After columns (3 to 5) print a wait in ms below a second and in s above: there the unit goes too.
        const cell = (c: string, column: number): string =>
          (column >= 3 ? c.replace(/\b\d+(?:\.\d+)? m?s\b(?! asked)/g, "<time>") : c)
            .replace(NUMBER, N)
            .replace(/^(?:yes|no)(?= ±)/, "<measured>");
        return [
          "<the table one row a line: its column widths follow what was measured>",
          ...unwrapTable(table, cell),
          ...rest,
        ];
      }),
    },
    {
      why: "which libraries' gaps varied enough to be measured again: the scheduler's noise can make a library without jitter look jittery",
      apply: (t) =>
        t.replace(/^(.{8} {2}lesson {4}).*?: the gaps varied;/m, "$1<measured>: the gaps varied;"),
    },
    {
      why:
        "the attempts the server logged in all: it counts the runs measured again (above) and the attempts of the libraries" +
        " that retry on their own schedule while a Retry-After is watched for a fixed time (the counts per case, in part 1, stay)",
      apply: (t) =>
        t.replace(
          /done: \d+ attempts logged by the server/,
          `done: ${N} attempts logged by the server`,
        ),
    },
    {
      why: "how long the measuring took, in its closing sentence",
      apply: (t) =>
        t.replace(/Measured in \d+(?:\.\d+)? m?s against/, "Measured in <time> against"),
    },
  ],
  "10": [
    {
      why: "how long PostgreSQL took to start",
      apply: (t) => t.replace(/(PostgreSQL started on 127\.0\.0\.1 in )\d+ ms/, `$1${N} ms`),
    },
  ],
  "11": [
    {
      why:
        "the four servers run side by side: which finishes its ten cases first is the scheduler's, and how long each" +
        " took the real clock's (each server's line stays, with its count of cases; the lines are sorted)",
      apply: inSection("Measuring", (lines) => {
        const done = lines.map((l) => l.replace(/(: \d+ cases in )\d+(?:\.\d+)? s$/, "$1<time>"));
        const ran = done.filter((l) => l.endsWith("<time>")).sort();
        return [...ran, ...done.filter((l) => !l.endsWith("<time>"))];
      }),
    },
    {
      why: "how long a stuck key was refused, until the client gave up: its backoff's waits, on the real clock (the lesson says they vary)",
      apply: (t) => t.replace(/\bstuck \d+(?:\.\d+)? s\b/g, "stuck <time>"),
    },
    {
      why: "how long the measuring took, in its closing sentence",
      apply: (t) => t.replace(/^( {2}Measured in )\d+(?:\.\d+)? s\.$/m, "$1<time>."),
    },
  ],
};

/** Every mask `lesson` gets, with its reason. */
export function masksOf(lessonNumber: string): readonly Mask[] {
  return [...EVERY_LESSON, ...(BY_LESSON[lessonNumber] ?? [])];
}

/** A lesson's output as its file keeps it: the masks applied, each line without trailing spaces (padding no reader sees). */
export function maskOutput(lessonNumber: string, stdout: string): string {
  const masked = masksOf(lessonNumber).reduce((t, m) => m.apply(t), joinEvents(stdout));
  return wrapEvents(masked).replace(/[ \t]+$/gm, "");
}

// ## Comparing

/**
 * How `actual` differs from `expected`, line by line, as a reader of a diff sees it: the first few
 * hunks, each with its line numbers, a line of context either side, "-" for the lines of
 * `expected` and "+" for those of `actual` (`names` says whose they are); undefined when the texts
 * are the same.
 */
export function outputDiff(
  expected: string,
  actual: string,
  names: [string, string] = ["the file", "this run"],
  maxHunks = 4,
  maxLines = 10,
): string | undefined {
  if (expected === actual) return undefined;
  const a = expected.split("\n");
  const b = actual.split("\n");
  // The longest common subsequence of lines, from the end (the files have a few hundred lines).
  const common: number[][] = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0),
  );
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      common[i]![j] =
        a[i] === b[j]
          ? common[i + 1]![j + 1]! + 1
          : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
  const hunks: { i: number; j: number; removed: string[]; added: string[] }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    const hunk = { i, j, removed: [] as string[], added: [] as string[] };
    while ((i < a.length || j < b.length) && !(i < a.length && j < b.length && a[i] === b[j])) {
      if (j >= b.length || (i < a.length && common[i + 1]![j]! >= common[i]![j + 1]!))
        hunk.removed.push(a[i++]!);
      else hunk.added.push(b[j++]!);
    }
    hunks.push(hunk);
  }
  const line = (sign: string, n: number, text: string): string =>
    `${sign}${String(n + 1).padStart(5)}  ${text}`;
  const side = (sign: string, from: number, lines: string[]): string[] => [
    ...lines.slice(0, maxLines).map((l, k) => line(sign, from + k, l)),
    ...(lines.length > maxLines ? [`        … ${lines.length - maxLines} more`] : []),
  ];
  const changed = hunks.reduce((n, h) => n + Math.max(h.removed.length, h.added.length), 0);
  const out = [
    `${changed} line(s) differ in ${hunks.length} place(s); - ${names[0]}, + ${names[1]}, each with its own line numbers:`,
  ];
  let shown = -1; // the last line of `expected` shown as context
  for (const h of hunks.slice(0, maxHunks)) {
    if (h.i > 0 && h.i - 1 > shown) out.push(line(" ", h.i - 1, a[h.i - 1]!));
    out.push(...side("-", h.i, h.removed), ...side("+", h.j, h.added));
    shown = h.i + h.removed.length;
    if (shown < a.length) out.push(line(" ", shown, a[shown]!));
  }
  if (hunks.length > maxHunks) out.push(`  … and ${hunks.length - maxHunks} more place(s)`);
  return out.join("\n");
}

/** The kept output of `lesson`, or undefined when its file does not exist. */
export function readKeptOutput(
  lesson: Lesson,
  language: OutputLanguage = "en",
): string | undefined {
  try {
    return readFileSync(join(ROOT, outputFile(lesson, language)), "utf8");
  } catch {
    return undefined;
  }
}

/** Asserts that `ran` (a run of `lesson` by runForOutput) exited 0 and printed, masked, what its file keeps. */
export function assertKeptOutput(
  lesson: Lesson,
  ran: LessonRun,
  language: OutputLanguage = "en",
): void {
  const file = outputFile(lesson, language);
  assert.equal(
    ran.timedOut,
    false,
    `lesson ${lesson.number} did not finish within ${ran.limitMs / 1000} s`,
  );
  assert.equal(ran.code, 0, ran.stderr);
  const kept = readKeptOutput(lesson, language);
  assert.ok(
    kept !== undefined,
    `${file} does not exist: write it with ${UPDATE_COMMAND} -- ${Number(lesson.number)}`,
  );
  const diff = outputDiff(kept, maskOutput(lesson.number, ran.stdout));
  assert.ok(
    diff === undefined,
    `lesson ${lesson.number}'s output (seed ${OUTPUT_SEED}, ${OUTPUT_COLUMNS} columns, masked) is not ${file}. ${diff}\n` +
      `If the change is meant, write the file again with ${UPDATE_COMMAND} -- ${Number(lesson.number)} and commit it; if a value` +
      ` differs from run to run with the same seed, it is a bug in the lesson or a mask missing in test/lesson-output.ts.`,
  );
}

/** The test "<what>'s output is its file": `ran` compared with what `lesson`'s file keeps. */
export function testKeptOutput(
  what: string,
  lesson: Lesson,
  ran: LessonRun,
  language: OutputLanguage = "en",
): void {
  test(`${what}'s output at seed ${OUTPUT_SEED}, masked, is ${outputFile(lesson, language)}`, () =>
    assertKeptOutput(lesson, ran, language));
}
