// The exercise manifest, exercises/info.toml: the shipped one against the exercise files, and what the
// reader does with a manifest that is wrong (one line that says what and where, never a stack trace).
import assert from "node:assert/strict";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parseHeader } from "../lib/core/header.ts";
import { headerParagraph, listExercises, listLessons, ROOT } from "../lib/runner/catalog.ts";
import { flowText, MANIFEST, ManifestError, parseManifest } from "../lib/runner/manifest.ts";
import { recordShipped, resetExercise, shippedExerciseFiles } from "../lib/runner/shipped.ts";
import { answerIdentifiers, chineseHeader, todoComments } from "./exercise-source.ts";
import { runIn, shippedExercises, shippedText, tempProject } from "./temp-project.ts";

const SHIPPED = parseManifest(shippedText(MANIFEST));
const EXERCISES = shippedExercises();

test("the manifest as shipped lists exactly the exercises of exercises/, in its order, each with its test and solution", () => {
  const shipped = shippedExerciseFiles().map((f) => f.path);
  assert.deepEqual(
    EXERCISES.map((e) => e.id),
    SHIPPED.map((e) => e.id),
  );
  const sorted = (paths: string[]): string[] => [...paths].sort();
  assert.deepEqual(
    sorted(EXERCISES.map((e) => e.file)),
    shipped.filter((f) => /^exercises\/\d\d[a-z]-.*(?<!\.test)\.ts$/.test(f)),
    "one entry per exercise file, one file per entry",
  );
  assert.deepEqual(
    sorted(EXERCISES.map((e) => e.test)),
    shipped.filter((f) => f.endsWith(".test.ts")),
    "one test per exercise, and no other",
  );
  const solutions = readdirSync(join(ROOT, "solutions"))
    .sort()
    .map((f) => `solutions/${f}`);
  assert.deepEqual(
    sorted(EXERCISES.map((e) => e.solution)),
    solutions,
    "one reference answer per exercise, and no other",
  );
});

test("each entry names a lesson that exists, its id starts with that lesson's number, and orders are unique and follow the lessons", () => {
  const lessons = new Set(listLessons().map((l) => l.number));
  for (const e of SHIPPED) {
    assert.ok(lessons.has(e.lesson), `${e.id}: lesson ${e.lesson} does not exist`);
    assert.equal(e.id.slice(0, 2), e.lesson, `${e.id}: its id starts with its lesson's number`);
  }
  const orders = SHIPPED.map((e) => e.order);
  assert.equal(new Set(orders).size, orders.length, "orders are unique");
  const byOrder = SHIPPED.map((e) => e.lesson);
  assert.deepEqual(
    byOrder,
    [...byOrder].sort(),
    "the runner offers the lessons' exercises in the lessons' order",
  );
});

test("title and goal are the same words as the header of the exercise file (what the learner reads first)", () => {
  for (const e of EXERCISES) {
    const source = shippedText(e.file);
    assert.equal(
      parseHeader(source).first,
      `Exercise ${e.id} · ${e.title}`,
      `${e.file}: the first line of its header`,
    );
    assert.equal(
      headerParagraph(source, "Goal"),
      e.goal,
      `${e.file}: its "Goal:" paragraph and the manifest's goal differ`,
    );
  }
});

test("every exercise has its Chinese: title, goal, as many hint steps as the English, and the same TODOs", () => {
  for (const e of SHIPPED) {
    const zh = e.translations.zh;
    assert.ok(zh, `${e.id}: no [exercises.zh] table`);
    for (const key of ["title", "goal", "hint", "todo"] as const)
      assert.ok(zh[key] !== undefined, `${e.id}: [exercises.zh] has no ${key}`);
    assert.equal(
      zh.hint!.length,
      e.texts.hint.length,
      `${e.id}: the Chinese hint has ${zh.hint!.length} steps, the English ${e.texts.hint.length}`,
    );
    assert.deepEqual(
      Object.keys(zh.todo!),
      Object.keys(e.texts.todo ?? {}),
      `${e.id}: [exercises.zh.todo] names other TODOs than [exercises.todo]`,
    );
    for (const text of [zh.title!, zh.goal!, ...zh.hint!, ...Object.values(zh.todo!)])
      assert.match(text, /[\u4e00-\u9fff]/, `${e.id}: a Chinese text without Chinese: ${text}`);
  }
});

test("the TODOs of each file as shipped are the manifest's, in English and in Chinese, each under its stub", () => {
  for (const e of EXERCISES) {
    const entry = SHIPPED.find((x) => x.id === e.id)!;
    const comments = todoComments(shippedText(e.file));
    const by = (label: string): Record<string, string> =>
      Object.fromEntries(comments.filter((c) => c.label === label).map((c) => [c.name, c.text]));
    assert.deepEqual(
      by("TODO"),
      entry.texts.todo,
      `${e.file}: its "// TODO:" comments and [exercises.todo] in ${MANIFEST} differ`,
    );
    assert.deepEqual(
      by("待办"),
      entry.translations.zh?.todo,
      `${e.file}: its "// 待办：" comments and [exercises.zh.todo] in ${MANIFEST} differ`,
    );
    // Each Chinese line right under its English one.
    for (const [i, c] of comments.entries())
      if (c.label === "待办")
        assert.equal(
          comments[i - 1]?.name,
          c.name,
          `${e.file}:${c.line}: a 待办 without its TODO above`,
        );
  }
});

test("the Chinese header of each file (练习, 目标, 约束) says what the manifest's Chinese says", () => {
  for (const e of EXERCISES) {
    const zh = SHIPPED.find((x) => x.id === e.id)!.translations.zh!;
    const header = chineseHeader(shippedText(e.file));
    assert.equal(header.first, `练习 ${e.id} · ${zh.title}`, `${e.file}: its Chinese title line`);
    assert.equal(
      header.paragraphs.get("目标"),
      zh.goal,
      `${e.file}: its "目标：" paragraph and the manifest's Chinese goal differ`,
    );
    assert.ok(header.paragraphs.get("约束"), `${e.file}: no "约束：" paragraph`);
  }
});

/** SQL that a nudge must not give away (upper case, as it is written in the lessons). */
const SQL =
  /\b(SELECT|INSERT|UPDATE|DELETE|BEGIN|COMMIT|ROLLBACK|WHERE|RETURNING|VALUES|CONFLICT|NOTHING|IMMEDIATE|nextval)\b/;

/**
 * What in a hint's first step is code: backticks, SQL, a call or a member (`f(`, `a.b`), or a name
 * the answer uses that the exercise file does not (a name written like code: with a capital after
 * its first letter, a digit or an underscore; plain words such as "first" are words).
 */
function codeIn(step: string, answer: Set<string>, exercise: string): string[] {
  const found: string[] = [];
  if (step.includes("`")) found.push("a backtick");
  const sql = SQL.exec(step);
  if (sql) found.push(`SQL (${sql[1]})`);
  const call = /[A-Za-z_$][\w$]*\(/.exec(step);
  if (call) found.push(`a call (${call[0]})`);
  const member = /\b[A-Za-z_$][\w$]+\.[A-Za-z_$][\w$]*/.exec(step);
  if (member) found.push(`a member (${member[0]})`);
  for (const name of answer) {
    if (!/[A-Z_\d$]/.test(name.slice(1))) continue;
    const word = new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`);
    if (word.test(step) && !word.test(exercise)) found.push(`the answer's name ${name}`);
  }
  return found;
}

test("hints come in 2 to 4 steps, and the first, in English and in Chinese, is a nudge without code", () => {
  for (const e of EXERCISES) {
    const entry = SHIPPED.find((x) => x.id === e.id)!;
    assert.ok(
      entry.texts.hint.length >= 2 && entry.texts.hint.length <= 4,
      `${e.id}: ${entry.texts.hint.length} hint steps; a hint has 2 to 4`,
    );
    const answer = answerIdentifiers(e.solution, ROOT);
    const exercise = shippedText(e.file);
    for (const [lang, step] of [
      ["en", entry.texts.hint[0]!],
      ["zh", entry.translations.zh?.hint?.[0] ?? ""],
    ] as const)
      assert.deepEqual(
        codeIn(step, answer, exercise),
        [],
        `${e.id}: the first hint step (${lang}) gives code away: ${step}`,
      );
  }
});

test("the check of a first step finds backticks, SQL, calls, members and the answer's names", () => {
  const answer = new Set(["lastInsertRowid", "changes", "completeFenced"]);
  const exercise = "export function completeFenced() {}";
  assert.deepEqual(codeIn("Insert the report, then update the key.", answer, exercise), []);
  assert.deepEqual(codeIn("completeFenced first, and its changes", answer, exercise), []);
  assert.deepEqual(
    codeIn("db.exec(`BEGIN IMMEDIATE`), then read lastInsertRowid", answer, exercise),
    [
      "a backtick",
      "SQL (BEGIN)",
      "a call (exec()",
      "a member (db.exec)",
      "the answer's name lastInsertRowid",
    ],
  );
});

test("texts flow: prose lines run together, indented lines stay lines, a blank line starts a paragraph", () => {
  assert.equal(flowText("one\n  two\n\n"), "one\ntwo");
  assert.equal(
    flowText(
      "\nA sentence that\ngoes on.\n  f(x) = 2x\n  g(x) = x\nThen prose   again\n\n\nA new paragraph.\n",
    ),
    "A sentence that goes on.\nf(x) = 2x\ng(x) = x\nThen prose again\n\nA new paragraph.",
  );
  const goal = EXERCISES.find((e) => e.id === "02b")!.goal.split("\n");
  assert.ok(
    goal.some((l) => l.startsWith("Full Jitter:")) &&
      goal.some((l) => l.startsWith("Decorrelated Jitter:")),
    "02b's formulas are lines of their own",
  );
  // Chinese runs together without a space where the line breaks between Chinese characters or
  // beside full-width punctuation; beside Latin letters a line break is a space.
  assert.equal(
    flowText("客户端\n可以重试，\nRFC 9110 说\n`x` 也行。\nabc\n中文\nabc\n（括号）"),
    "客户端可以重试，RFC 9110 说 `x` 也行。abc 中文 abc（括号）",
  );
});

/** A manifest with one exercise, 01a, with `extra` lines added to its table. */
function one(extra = "", id = "01a"): string {
  return `[[exercises]]\nid = "${id}"\nlesson = 1\norder = 10\ntitle = "T"\ngoal = '''\nG\n'''\nhint = ['''\nH\n''']\n${extra}`;
}

/** The ManifestError that parsing `text` throws, checked to be one line. */
function refusal(text: string): string {
  try {
    parseManifest(text);
  } catch (err) {
    assert.ok(err instanceof ManifestError, String(err));
    assert.doesNotMatch(err.message, /\n/, "one line");
    return err.message;
  }
  assert.fail("the manifest was accepted");
}

test("a manifest is read with its steps and translations; what is wrong with one is said in one line", () => {
  const [e] = parseManifest(
    one(
      "pure = true\n[exercises.todo]\nf = 'write f'\n'C.m' = '''\nwrite\nm\n'''\n" +
        "[exercises.zh]\ntitle = '标题'\nhint = ['''\n第一步\n''', '''\n第二步\n''']\n" +
        "[exercises.zh.todo]\nf = '写 f'\n",
    ),
  );
  assert.deepEqual(e, {
    id: "01a",
    lesson: "01",
    order: 10,
    pure: true,
    texts: { title: "T", goal: "G", hint: ["H"], todo: { f: "write f", "C.m": "write m" } },
    translations: { zh: { title: "标题", hint: ["第一步", "第二步"], todo: { f: "写 f" } } },
  });
  assert.match(
    refusal(one("[exercises.todo]\nf = 1")),
    /exercise 01a: todo must be a table of texts, one per TODO of the file/,
  );
  assert.equal(
    refusal(one('title = "again"')),
    `${MANIFEST}, line 12, column 1: trying to redefine an already defined table or value (not valid TOML)`,
  );
  assert.equal(
    refusal("[[exercises]]\nid = '01a'\ngoal = '''\nunfinished\n"),
    `${MANIFEST}, line 3, column 8: unfinished string (not valid TOML)`,
  );
  assert.equal(refusal(""), `${MANIFEST} has no [[exercises]] tables`);
  assert.equal(refusal(one() + one("", "01a")), `${MANIFEST}: exercise 01a is there twice`);
  assert.equal(
    refusal(one() + one("", "01b")),
    `${MANIFEST}: exercises 01a and 01b have the same order (10); each needs its own`,
  );
  assert.match(
    refusal(one("tilte = 'x'")),
    /exercise 01a: unknown key "tilte" \(the keys are id, lesson/,
  );
  assert.match(
    refusal(one("[exercises.zh]\npure = true")),
    /exercise 01a: unknown key "pure" in \[exercises\.zh\]/,
  );
  assert.match(
    refusal(one().replace('id = "01a"', 'id = "1a"')),
    /table number 1 has the id "1a"; an id is two digits and a letter/,
  );
  assert.match(
    refusal(one().replace("lesson = 1", 'lesson = "01"')),
    /exercise 01a: lesson must be a lesson's number, e\.g\. lesson = 1, not "01"/,
  );
  assert.match(
    refusal(one().replace("hint = ['''\nH\n''']", "hint = '''\nH\n'''")),
    /exercise 01a: hint must be a list of steps/,
  );
  assert.match(
    refusal(one().replace('title = "T"\n', "")),
    /exercise 01a: title must be a text, and there is none/,
  );
});

test("an exercise file without an entry, an entry without a file, and no manifest at all are each one clear line", () => {
  const root = mkdtempSync(join(tmpdir(), "retry-workbook-manifest-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, "exercises"));
  const file = (name: string): void => writeFileSync(join(root, "exercises", name), "");
  const errorOf = (): string => {
    try {
      listExercises(root);
    } catch (err) {
      assert.ok(err instanceof ManifestError, String(err));
      return err.message;
    }
    assert.fail("listExercises accepted it");
  };
  assert.deepEqual(listExercises(root), [], "no exercises and no manifest: nothing to list");
  file("01a-thing.ts");
  assert.equal(
    errorOf(),
    `${MANIFEST} is missing: it lists the exercises (their lesson, order, title, goal and hint)`,
  );
  writeFileSync(join(root, MANIFEST), one());
  assert.deepEqual(
    listExercises(root).map((e) => [e.id, e.file, e.test, e.solution]),
    [["01a", "exercises/01a-thing.ts", "exercises/01a-thing.test.ts", "solutions/01a-thing.ts"]],
  );
  file("02a-other.ts");
  assert.equal(
    errorOf(),
    `exercises/02a-other.ts has no entry in ${MANIFEST} (add an [[exercises]] table with id = "02a")`,
  );
  writeFileSync(
    join(root, MANIFEST),
    one() +
      one("", "02a").replace("order = 10", "order = 20") +
      one("", "03a").replace("order = 10", "order = 30"),
  );
  assert.equal(
    errorOf(),
    `${MANIFEST}: exercise 03a has no file (no exercises/03a-*.ts, nor its test)`,
  );
});

test("npm run hint prints the manifest's text, and a malformed manifest stops it with one line", async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  const path = join(p.root, MANIFEST);
  const shipped = readFileSync(path, "utf8");
  const marked = shipped.replace(
    /^hint = \[\n'''\n/m,
    "hint = [\n'''\nA marker sentence read from the manifest.\n",
  );
  assert.notEqual(marked, shipped);
  writeFileSync(path, marked);
  const ok = await runIn(p.root, "lib/runner/hint-cli.ts", [e.id]);
  assert.equal(ok.code, 0, ok.output);
  const flat = ok.output.replace(/\s+/g, " ");
  assert.ok(flat.startsWith(`Exercise ${e.id} · ${e.title} `), ok.output);
  assert.ok(
    flat.includes(` A marker sentence read from the manifest. ${e.hintSteps[0]!.slice(0, 40)}`),
    ok.output,
  );

  writeFileSync(path, shipped.replace(/^lesson = \d+$/m, "lesson = one"));
  const bad = await runIn(p.root, "lib/runner/hint-cli.ts", [e.id]);
  assert.equal(bad.code, 1);
  assert.match(
    bad.output,
    /^error: exercises\/info\.toml, line \d+, column \d+: .* \(not valid TOML\)\n$/,
  );
});

test("an exercise file the learner deleted is still listed (from its test), and reset brings it back", (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const [a] = p.exercises;
  const shipped = p.read(a!.file);
  recordShipped(p.root);
  unlinkSync(join(p.root, a!.file));
  const listed = listExercises(p.root).find((e) => e.id === a!.id);
  assert.equal(listed?.file, a!.file);
  assert.deepEqual(recordShipped(p.root), { recorded: [], refreshed: [], missing: [] });
  assert.deepEqual(resetExercise(listed!, p.root), { changed: true });
  assert.ok(p.read(a!.file).equals(shipped));
});
