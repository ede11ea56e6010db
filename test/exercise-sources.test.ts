// What the exercises as shipped ask of a learner, read from their source:
// - an exercise imports nothing that holds its answer: no module it imports exports a function (or a
//   class, or a constant) with the name of the answer, or one that does the answer's job under
//   another name (a learner who opens an import to read a type must not read the answer there);
// - every assertion of an exercise's test says, in words and through t() (so in the learner's
//   language), what it checked and why it matters, and every test's name goes through t() too: a
//   learner reads the failing test's name and its message before anything else.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ROOT } from "../lib/runner/catalog.ts";
import { importsOf, type Node, parseSource, valueExports, walk } from "./exercise-source.ts";
import { shippedExercises, shippedText } from "./temp-project.ts";

const EXERCISES = shippedExercises();

/**
 * Functions of lib/ that do an exercise's job under another name (the exercise's own names, those its
 * stubs throw "TODO: write <name>" for, are the answer's names already).
 */
const SAME_JOB: Record<string, string[]> = {
  "02a": ["codexBackoffMs"],
  "02b": ["fullJitterMs", "decorrelatedJitterMs"],
  "03b": ["sdkShouldRetry", "sdkRetryDelay"],
  "04a": ["runCell"],
  "05a": ["KeyStore"],
  "05b": ["KeyStore"],
  "06b": ["submissionFailedResult", "lookupPath"],
  "07a": ["downstreamKey", "dispatchPending"],
  "08a": ["runCell"],
  "10a": ["CLAIM_SQL"],
};

/** The names of an exercise's answer: those its stubs are to be written as, and SAME_JOB's. */
function answerNames(id: string, source: string): Set<string> {
  const names = new Set(SAME_JOB[id] ?? []);
  for (const m of source.matchAll(/throw new Error\("TODO: write ([\w.]+) \(exercise \w+\)"\)/g))
    names.add(m[1]!.split(".")[0]!);
  return names;
}

/** What is wrong with an exercise's imports: one sentence per module that exports its answer. */
function answerImports(id: string, file: string, source: string, root = ROOT): string[] {
  const answer = answerNames(id, source);
  const problems: string[] = [];
  for (const { module, line } of importsOf(source, file, root)) {
    if (!module.startsWith("lib/")) continue;
    const found = valueExports(module, root).filter((name) => answer.has(name));
    if (found.length > 0)
      problems.push(
        `${file}:${line} imports ${module}, which exports ${found.join(", ")}: the answer is one import away (move the types it needs into a module of types)`,
      );
  }
  return problems;
}

test("the check finds an exercise that imports the module holding its answer", () => {
  const source =
    'import type { KeyRow } from "../lib/protocol/key-decision.ts";\n' +
    "export function decideKey(row: KeyRow): void {\n" +
    '  throw new Error("TODO: write decideKey (exercise 04c)");\n}\n';
  assert.deepEqual(answerImports("04c", "exercises/04c-x.ts", source), [
    "exercises/04c-x.ts:1 imports lib/protocol/key-decision.ts, which exports decideKey: the answer is one import away (move the types it needs into a module of types)",
  ]);
  const moved = source.replace("key-decision.ts", "key-row.ts");
  assert.deepEqual(answerImports("04c", "exercises/04c-x.ts", moved), []);
  // Another name, the same job.
  const outbox =
    'import type { OutboxRow } from "../lib/outbox/outbox.ts";\n' +
    'export function rowKey(row: OutboxRow): string {\n  throw new Error("TODO: write rowKey (exercise 07a)");\n}\n';
  assert.match(answerImports("07a", "exercises/07a-x.ts", outbox).join(), /downstreamKey/);
});

test("no exercise imports a module that holds its answer", () => {
  const problems = EXERCISES.flatMap((e) => answerImports(e.id, e.file, shippedText(e.file)));
  assert.deepEqual(problems, []);
});

/** Modules an exercise may take a type from although they hold code too, and why. */
const TYPE_FROM_CODE: Record<string, string> = {
  "lib/tracker/store.ts": "ReportStore is a class: the type is the class itself",
};

test("04b, 04c, 06b, 07a and 10a take their types from modules of types only", () => {
  for (const id of ["04b", "04c", "06b", "07a", "10a"]) {
    const e = EXERCISES.find((x) => x.id === id)!;
    for (const { module, typeOnly } of importsOf(shippedText(e.file), e.file, ROOT)) {
      if (!module.startsWith("lib/") || module in TYPE_FROM_CODE) continue;
      assert.ok(typeOnly, `${e.file} imports values from ${module}`);
      assert.deepEqual(valueExports(module, ROOT), [], `${module} holds more than types`);
    }
  }
});

/** Where an assertion's message goes: the index of its argument, by method. */
const MESSAGE_AT: Record<string, number> = {
  ok: 1,
  equal: 2,
  notEqual: 2,
  strictEqual: 2,
  notStrictEqual: 2,
  deepEqual: 2,
  notDeepEqual: 2,
  deepStrictEqual: 2,
  notDeepStrictEqual: 2,
  partialDeepStrictEqual: 2,
  match: 2,
  doesNotMatch: 2,
  // The error to expect comes first, then the message: a bare throws(fn) checks nothing in words.
  throws: 2,
  rejects: 2,
  doesNotThrow: 2,
  doesNotReject: 2,
  fail: 0,
};

/** A call of `t("…")`, the message in the learner's language. */
const isT = (n: Node | undefined): boolean =>
  n?.type === "CallExpression" &&
  (n.callee as Node).type === "Identifier" &&
  (n.callee as { name: string }).name === "t";

/**
 * The assertions of a test file that do not say in words what they checked, and the tests whose name
 * is not a t() message: one line each, "file:line what".
 */
function bareAssertions(file: string, source: string): string[] {
  const { program } = parseSource(source);
  // The names node:assert is imported under (default: assert(…) and assert.x(…); named: equal(…)).
  let assertName: string | undefined;
  const named = new Map<string, string>();
  let testName = "test";
  for (const n of program.body as Node[]) {
    if (n.type !== "ImportDeclaration") continue;
    const from = (n.source as { value: string }).value;
    for (const s of n.specifiers as Node[]) {
      const local = (s.local as { name: string }).name;
      if (/^node:assert(\/strict)?$/.test(from)) {
        if (s.type === "ImportDefaultSpecifier") assertName = local;
        else if (s.type === "ImportSpecifier")
          named.set(local, (s.imported as { name: string }).name);
      }
      if (from === "node:test" && s.type === "ImportSpecifier")
        if ((s.imported as { name: string }).name === "test") testName = local;
    }
  }
  // Every call of each function of the file, to follow a message handed to a helper.
  const calls = new Map<string, Node[]>();
  walk(program, (n) => {
    if (n.type === "CallExpression" && (n.callee as Node).type === "Identifier") {
      const name = (n.callee as Node).name as string;
      calls.set(name, [...(calls.get(name) ?? []), n]);
    }
  });
  /**
   * A message in words: a t() call, or a parameter of the helper it is in that every call of the
   * helper fills with a t() call.
   */
  const inWords = (message: Node | undefined, around: readonly Node[]): boolean => {
    if (isT(message)) return true;
    if (message?.type !== "Identifier") return false;
    const helper = [...around].reverse().find((x) => x.type === "FunctionDeclaration");
    if (!helper) return false;
    const at = (helper.params as Node[]).findIndex((p) => p.name === message.name);
    const uses = calls.get((helper.id as Node).name as string) ?? [];
    return at >= 0 && uses.length > 0 && uses.every((c) => isT((c.arguments as Node[])[at]));
  };
  const problems: string[] = [];
  walk(program, (n, around) => {
    if (n.type !== "CallExpression") return;
    const callee = n.callee as Node;
    const args = n.arguments as Node[];
    const line = n.loc?.start.line ?? 0;
    let method: string | undefined;
    if (callee.type === "Identifier") {
      const name = callee.name as string;
      if (name === assertName) method = "ok";
      else if (named.has(name)) method = named.get(name);
      else if (name === testName && !isT(args[0]))
        problems.push(`${file}:${line} a test whose name is not a t("…") message`);
    } else if (
      callee.type === "MemberExpression" &&
      (callee.object as Node).type === "Identifier" &&
      (callee.object as { name: string }).name === assertName
    )
      method = ((callee.property as { name?: string }).name ?? "") as string;
    if (method === undefined || method === "AssertionError") return;
    const at = MESSAGE_AT[method];
    if (at === undefined)
      problems.push(
        `${file}:${line} assert.${method}, which takes no message: say it with another`,
      );
    else if (!inWords(args[at], around))
      problems.push(
        `${file}:${line} assert.${method} without a message in words: give it t("what was checked, and why it matters")`,
      );
  });
  return problems;
}

test("the check finds an assertion without a message, with one that is not t(), and a test named without t()", () => {
  const source = `import assert from "node:assert/strict";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
test("plain", () => {
  assert.equal(1, 1);
  assert.equal(1, 1, "in English only");
  assert.ok(true, t("said in words"));
  assert(true);
  assert.throws(() => {}, t("the message where the error belongs"));
  assert.fail(t("why"));
});
function helper(ok: boolean, why: string, what: string): void {
  assert.ok(ok, why);
  assert.ok(ok, what);
}
helper(true, t("words"), "not words");
`;
  assert.deepEqual(bareAssertions("x.test.ts", source), [
    'x.test.ts:4 a test whose name is not a t("…") message',
    'x.test.ts:5 assert.equal without a message in words: give it t("what was checked, and why it matters")',
    'x.test.ts:6 assert.equal without a message in words: give it t("what was checked, and why it matters")',
    'x.test.ts:8 assert.ok without a message in words: give it t("what was checked, and why it matters")',
    'x.test.ts:9 assert.throws without a message in words: give it t("what was checked, and why it matters")',
    'x.test.ts:14 assert.ok without a message in words: give it t("what was checked, and why it matters")',
  ]);
});

test("every assertion in the exercises' tests says in words what it checked, through t(), and so does every test's name", () => {
  const problems = EXERCISES.flatMap((e) => bareAssertions(e.test, shippedText(e.test)));
  assert.deepEqual(problems, []);
});
