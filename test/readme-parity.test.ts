// README.zh-CN.md level with README.md: the same sections (## and ###) in the same order, and in each
// pair of sections the same code (inline code spans, and the lines of fenced blocks without their
// prompts and comments) and the same numbers outside code. A figure or a command added to one README
// and not the other fails here, naming the section.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../lib/runner/catalog.ts";

interface Section {
  level: number;
  title: string;
  /** The text under the heading, up to the next heading of any level. */
  body: string;
}

/** The sections of a Markdown text: each ## or ### heading (outside fenced blocks) and its text. */
function sections(markdown: string): Section[] {
  const out: Section[] = [];
  let fence: string | undefined;
  let current: Section | undefined;
  for (const line of markdown.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === undefined || marker[0] === fence[0]))
      fence = fence === undefined ? marker : undefined;
    const heading =
      fence === undefined && marker === undefined ? /^(#{2,3}) (.*)$/.exec(line) : null;
    if (heading) {
      current = { level: heading[1]!.length, title: heading[2]!.trim(), body: "" };
      out.push(current);
    } else if (current) current.body += `${line}\n`;
  }
  return out;
}

/** The code of a section: its inline code spans and its fenced blocks' lines (no prompt, no comment). */
function codeOf(body: string): Set<string> {
  const code = new Set<string>();
  const prose = body.replace(/^\s*(`{3,}|~{3,})[^\n]*\n([\s\S]*?)^\s*\1\s*$/gm, (_, _f, block) => {
    for (const line of (block as string).split("\n")) {
      const command = line
        .replace(/^\$\s+/, "")
        .replace(/\s+#\s.*$/, "")
        .replace(/\s+/g, " ")
        .trim();
      if (command !== "") code.add(command);
    }
    return "";
  });
  // A code span may go on over a line break (Markdown reads the break as a space).
  for (const m of prose.matchAll(/`([^`]+)`/g)) code.add(m[1]!.replace(/\s+/g, " ").trim());
  return code;
}

/** The numbers of a section outside code and link targets: "1,914" is 1914, "0.31" stays. */
function numbersOf(body: string): Set<string> {
  const prose = body
    .replace(/^\s*(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\s*\1\s*$/gm, " ")
    .replace(/`[^`]+`/g, " ")
    .replace(/\]\([^)]*\)/g, "]");
  return new Set(
    [...prose.matchAll(/\d+(?:[.,]\d+)*/g)].map((m) =>
      m[0].replace(/(\d),(?=\d{3}\b)/g, "$1").replace(/\.$/, ""),
    ),
  );
}

const read = (name: string): string => readFileSync(join(ROOT, name), "utf8");

test("sections, code and numbers of a Markdown text are read as written", () => {
  const md = [
    "# Title",
    "## One",
    "Run `npm run a -- --x 1` on 1,914 rows in 0.31 s ([RFC 9110](https://x/9999)).",
    "```sh",
    "$ npm run b   # 42 comments are not code",
    "## not a heading",
    "```",
    "### Two",
    "text 7",
  ].join("\n");
  const s = sections(md);
  assert.deepEqual(
    s.map((x) => [x.level, x.title]),
    [
      [2, "One"],
      [3, "Two"],
    ],
  );
  assert.deepEqual([...codeOf(s[0]!.body)].sort(), [
    "## not a heading",
    "npm run a -- --x 1",
    "npm run b",
  ]);
  assert.deepEqual([...numbersOf(s[0]!.body)].sort(), ["0.31", "1914", "9110"]);
});

test("README.zh-CN.md has README.md's sections, in the same order and at the same levels", () => {
  const en = sections(read("README.md"));
  const zh = sections(read("README.zh-CN.md"));
  assert.deepEqual(
    zh.map((s) => s.level),
    en.map((s) => s.level),
    `README.md: ${en.map((s) => `${"#".repeat(s.level)} ${s.title}`).join(" | ")}\nREADME.zh-CN.md: ${zh.map((s) => `${"#".repeat(s.level)} ${s.title}`).join(" | ")}`,
  );
});

test("each pair of sections shows the same code and the same numbers", () => {
  const en = sections(read("README.md"));
  const zh = sections(read("README.zh-CN.md"));
  const problems: string[] = [];
  en.forEach((e, i) => {
    const z = zh[i];
    if (!z) return;
    const where = `"${e.title}" / "${z.title}"`;
    const diff = (a: Set<string>, b: Set<string>): string[] => [...a].filter((x) => !b.has(x));
    const [ce, cz] = [codeOf(e.body), codeOf(z.body)];
    for (const c of diff(ce, cz))
      problems.push(`${where}: README.zh-CN.md lacks the code \`${c}\``);
    for (const c of diff(cz, ce)) problems.push(`${where}: README.md lacks the code \`${c}\``);
    const [ne, nz] = [numbersOf(e.body), numbersOf(z.body)];
    for (const n of diff(ne, nz)) problems.push(`${where}: README.zh-CN.md lacks the number ${n}`);
    for (const n of diff(nz, ne)) problems.push(`${where}: README.md lacks the number ${n}`);
  });
  assert.deepEqual(problems, []);
});
