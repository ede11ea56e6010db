// A lesson reads in one sitting: at most 350 lines, no source line wider than 100 columns (counted
// by display width: a Chinese character takes two), and its title written once, in the JSDoc header
// (@title), which lessonSetup and the runner's catalog read. Machinery that builds sentences or
// tables out of a run lives in lib/, beside its subject.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseHeader } from "../lib/core/header.ts";
import { displayWidth } from "../lib/core/text.ts";
import { ROOT } from "../lib/runner/catalog.ts";

const MAX_LINES = 350;
const MAX_COLUMNS = 100;

/** The file's lines, without the empty one after the final newline. */
const linesOf = (source: string): string[] => source.replace(/\n$/, "").split("\n");

/** What is over the budget in one lesson's source: one line of text per problem. */
function overBudget(file: string, source: string): string[] {
  const problems: string[] = [];
  const lines = linesOf(source);
  if (lines.length > MAX_LINES)
    problems.push(`${file}: ${lines.length} lines (${MAX_LINES} at most)`);
  for (const [i, line] of lines.entries()) {
    const width = displayWidth(line);
    if (width > MAX_COLUMNS)
      problems.push(`${file}:${i + 1}: ${width} columns (${MAX_COLUMNS} at most)`);
  }
  const titles = parseHeader(source).tags.get("title") ?? [];
  if (titles.length !== 1) return [...problems, `${file}: ${titles.length} @title tags (one)`];
  const title = titles[0]!;
  const header = /\/\*\*[\s\S]*?\*\//.exec(source)![0];
  // Whitespace joined, so that a title wrapped across lines is found too.
  const inHeader = header.replace(/\n\s*\*\s?/g, " ").replace(/\s+/g, " ");
  if (inHeader.split(title).length - 1 !== 1)
    problems.push(`${file}: the header writes "${title}" again`);
  const below = source.slice(source.indexOf(header) + header.length).replace(/\s+/g, " ");
  if (below.includes(title)) problems.push(`${file}: "${title}" is written again below the header`);
  return problems;
}

test("the budget finds a long lesson, a wide line (by display width) and a title written twice", () => {
  const header = ["/**", " * @title Twice told", " * @run npm run lesson 99", " */"];
  const fine = [
    ...header,
    "const { trace, heading } = lessonSetup(import.meta);",
    "trace.title(heading);",
  ];
  assert.deepEqual(overBudget("fine.ts", fine.join("\n")), []);
  const long = [...fine, ...Array.from({ length: MAX_LINES }, (_, i) => `// ${i}`)];
  assert.deepEqual(overBudget("long.ts", long.join("\n")), [
    `long.ts: ${long.length} lines (${MAX_LINES} at most)`,
  ]);
  // "// " and 48 Chinese characters are 99 columns; with 49, 101: 52 characters, too wide.
  const wide = [...fine, `// ${"重".repeat(48)}`, `// ${"重".repeat(49)}`];
  assert.deepEqual(overBudget("wide.ts", wide.join("\n")), [
    `wide.ts:8: 101 columns (${MAX_COLUMNS} at most)`,
  ]);
  const twice = [...fine, 'trace.line("Twice', ' told");'];
  assert.deepEqual(overBudget("twice.ts", twice.join("\n")), [
    'twice.ts: "Twice told" is written again below the header',
  ]);
});

test(`every lesson: at most ${MAX_LINES} lines, ${MAX_COLUMNS} columns a line, its title once`, () => {
  const lessons = readdirSync(join(ROOT, "lessons")).filter((f) => /^\d\d-[a-z0-9-]+\.ts$/.test(f));
  assert.ok(lessons.length >= 11, `found ${lessons.length} lessons`);
  const problems = lessons
    .sort()
    .flatMap((f) => overBudget(`lessons/${f}`, readFileSync(join(ROOT, "lessons", f), "utf8")));
  assert.deepEqual(problems, [], `over the budget:\n${problems.join("\n")}`);
});
