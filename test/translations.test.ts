// The Chinese catalogues against the code (lib/core/catalogues.ts): the project's own, which must be
// complete, and small made-up projects that show each problem the check finds.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import {
  checkCatalogues,
  extractMessages,
  messageArguments,
  updateCatalogues,
} from "../lib/core/catalogues.ts";
import { formatMessage, tIn } from "../lib/core/i18n.ts";
import { chooseLang, langFromArgv, langFromEnv } from "../lib/core/lang.ts";
import { ROOT } from "../lib/runner/catalog.ts";

test("every message of the workbook has its Chinese, and every Chinese entry its English", () => {
  const { problems } = checkCatalogues(ROOT, "zh");
  assert.deepEqual(
    problems.slice(0, 10).map((p) => `${p.where}: ${p.text}`),
    [],
    `${problems.length} problem(s); npm run translations lists them`,
  );
});

/** A made-up project: `files` relative to its root. */
function project(files: Record<string, string>): {
  root: string;
  write: (f: string, text: string) => void;
  remove: () => void;
} {
  const root = mkdtempSync(join(tmpdir(), "retry-workbook-i18n-"));
  const write = (f: string, text: string): void => {
    mkdirSync(dirname(join(root, f)), { recursive: true });
    writeFileSync(join(root, f), text);
  };
  for (const [f, text] of Object.entries(files)) write(f, text);
  return { root, write, remove: () => rmSync(root, { recursive: true, force: true }) };
}

const LESSON = `import { t } from "../lib/core/i18n.ts";
console.log(t("The agent waits {ms} ms.", { ms: 150 }));
console.log(t("No answer."));
`;

const po = (entries: [string, string][]): string =>
  `msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n${entries.map(([id, str]) => `msgid ${JSON.stringify(id)}\nmsgstr ${JSON.stringify(str)}\n`).join("\n")}`;

const texts = (root: string): string[] => checkCatalogues(root, "zh").problems.map((p) => p.text);

test("a lesson whose catalogue holds every message passes; changing one English message fails", (t) => {
  const p = project({
    "lessons/01-x.ts": LESSON,
    "lessons/zh/01-x.po": po([
      ["The agent waits {ms} ms.", "Agent 等待 {ms} ms。"],
      ["No answer.", "没有回应。"],
    ]),
  });
  t.after(p.remove);
  assert.deepEqual(texts(p.root), []);
  p.write("lessons/01-x.ts", LESSON.replace("No answer.", "No answer yet."));
  assert.deepEqual(texts(p.root), [
    'no zh translation in lessons/zh/01-x.po for "No answer yet."',
    'a translation whose English is no longer in the code: "No answer."',
  ]);
});

test("a translation whose values differ from the English's is found", (t) => {
  const p = project({
    "lessons/01-x.ts": LESSON,
    "lessons/zh/01-x.po": po([
      ["The agent waits {ms} ms.", "Agent 等待 {time} ms。"],
      ["No answer.", "没有回应。"],
    ]),
  });
  t.after(p.remove);
  assert.deepEqual(texts(p.root), [
    '"The agent waits {ms} ms." uses {ms} but its translation uses {time}',
  ]);
});

test("a message that is not a literal string cannot be translated, and says so", () => {
  const { messages, problems } = extractMessages(
    "lib/core/x.ts",
    `import { t as say } from "./i18n.ts";\nconst m = "a";\nsay(m);\nsay(\`b \${m}\`);\nsay("c");\n`,
  );
  assert.deepEqual(
    messages.map((m) => m.id),
    ["c"],
  );
  assert.deepEqual(
    problems.map((p) => p.where),
    ["lib/core/x.ts:3", "lib/core/x.ts:4"],
  );
});

test("a file that does not import t from i18n.ts is not read for messages (a t of its own is another function)", () => {
  assert.deepEqual(
    extractMessages("lib/core/x.ts", `const t = (x: string) => x;\nt("not a message");\n`).messages,
    [],
  );
});

test("one English message translated two ways in two catalogues is found", (t) => {
  const p = project({
    "lib/a/x.ts": `import { t } from "../core/i18n.ts";\nt("key");\n`,
    "lib/b/y.ts": `import { t } from "../core/i18n.ts";\nt("key");\n`,
    "lib/a/zh.po": po([["key", "幂等键"]]),
    "lib/b/zh.po": po([["key", "键"]]),
  });
  t.after(p.remove);
  assert.deepEqual(texts(p.root), ['"key" is translated one way here and another in lib/a/zh.po']);
});

test("updating writes new messages untranslated, keeps translations across a change of white space, drops the rest", (t) => {
  const p = project({
    "lessons/01-x.ts": LESSON,
    "lessons/zh/01-x.po": po([
      ["The agent waits {ms} ms.", "Agent 等待 {ms} ms。"],
      ["Gone.", "没了。"],
    ]),
  });
  t.after(p.remove);
  p.write(
    "lessons/01-x.ts",
    LESSON.replace('"The agent waits {ms} ms."', "`The agent\n  waits {ms} ms.`"),
  );
  const { added, dropped } = updateCatalogues(p.root, "zh");
  assert.deepEqual(
    added.map((m) => m.id),
    ["No answer."],
  );
  assert.deepEqual(
    dropped.map((d) => d.id),
    ["Gone."],
  );
  const written = readFileSync(join(p.root, "lessons/zh/01-x.po"), "utf8");
  assert.match(
    written,
    /msgid ""\n"The agent\\n"\n" {2}waits \{ms\} ms\."\nmsgstr "Agent 等待 \{ms\} ms。"/,
  );
  assert.deepEqual(texts(p.root), ['no zh translation in lessons/zh/01-x.po for "No answer."']);
});

test("ICU messages: values by name, plurals by the language's rules; a message without values is printed as it is", () => {
  assert.deepEqual(
    messageArguments("{n, plural, one {# report} other {# reports}} in {ms} ms", "en"),
    ["ms", "n"],
  );
  assert.equal(
    formatMessage("{n, plural, one {# report} other {# reports}}", { n: 1 }, "en"),
    "1 report",
  );
  assert.equal(
    formatMessage("{n, plural, one {# report} other {# reports}}", { n: 2 }, "en"),
    "2 reports",
  );
  assert.equal(tIn("en", 'a body {"title": 1}'), 'a body {"title": 1}');
  assert.equal(tIn("en", "waits {ms} ms", { ms: 150 }), "waits 150 ms");
});

test("the language: --lang first, then WORKBOOK_LANG, then LC_ALL, LC_MESSAGES, LANG as gettext reads them", () => {
  assert.equal(langFromArgv(["1", "--lang", "zh"]), "zh");
  assert.equal(langFromArgv(["--lang=en"]), "en");
  assert.equal(langFromArgv(["--lang", "fr"]), undefined);
  assert.equal(langFromArgv(["--", "--lang", "zh"]), undefined);
  assert.equal(langFromEnv({ LANG: "zh_CN.UTF-8" }), "zh");
  assert.equal(langFromEnv({ LC_ALL: "en_US.UTF-8", LANG: "zh_CN.UTF-8" }), "en");
  assert.equal(langFromEnv({ LC_ALL: "", LC_MESSAGES: "zh_TW", LANG: "en_US" }), "zh");
  assert.equal(langFromEnv({ LANG: "C.UTF-8" }), "en");
  assert.equal(langFromEnv({}), "en");
  assert.equal(chooseLang(["--lang", "en"], { WORKBOOK_LANG: "zh", LANG: "zh_CN" }), "en");
  assert.equal(chooseLang([], { WORKBOOK_LANG: "zh", LANG: "en_US" }), "zh");
  assert.equal(chooseLang([], { WORKBOOK_LANG: "", LANG: "zh_CN.UTF-8" }), "zh");
});
