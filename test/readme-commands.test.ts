// The Chinese README shows the same commands as the English one: every `npm …` command in a fenced
// code block of either file (a `$ ` prompt and a trailing `# comment` left out, spaces collapsed) must
// be in the other. When README.md gains a command, the failure names it and the file that lacks it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../lib/runner/catalog.ts";

/** The `npm …` commands in a Markdown text's fenced code blocks, in order, without repeats. */
function fencedNpmCommands(markdown: string): string[] {
  const found = new Set<string>();
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (
      marker !== undefined &&
      (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length))
    ) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence === undefined) continue;
    const command = line.trim().replace(/^\$\s+/, "");
    if (!/^npm\s/.test(command)) continue;
    found.add(
      command
        .replace(/\s+#.*$/, "")
        .replace(/\s+/g, " ")
        .trim(),
    );
  }
  return [...found];
}

test("the command list reads fenced blocks only, without prompts or comments", () => {
  const md = [
    "`npm run inline` is not read",
    "```sh",
    "npm run a   -- --x 1   # a comment",
    "$ npm run b",
    "```",
    "npm run outside",
    "~~~",
    "npm   test",
    "~~~",
  ].join("\n");
  assert.deepEqual(fencedNpmCommands(md), ["npm run a -- --x 1", "npm run b", "npm test"]);
});

test("README.md and README.zh-CN.md show the same npm commands", () => {
  const read = (name: string) => fencedNpmCommands(readFileSync(join(ROOT, name), "utf8"));
  const en = read("README.md");
  const zh = read("README.zh-CN.md");
  assert.ok(en.length >= 5, `README.md: only ${en.length} commands found`);
  const missingZh = en.filter((c) => !zh.includes(c));
  const missingEn = zh.filter((c) => !en.includes(c));
  const report = [
    ...(missingZh.length > 0
      ? [`README.zh-CN.md lacks these commands of README.md:`, ...missingZh.map((c) => `  ${c}`)]
      : []),
    ...(missingEn.length > 0
      ? [`README.md lacks these commands of README.zh-CN.md:`, ...missingEn.map((c) => `  ${c}`)]
      : []),
  ];
  assert.ok(report.length === 0, report.join("\n"));
});
