// Lesson 11, one server (--only express-idempotency): the lesson's whole path, from the wiring to
// the explanations, in lines that fit 80 columns; and --json for one server. The whole lesson, all
// four servers, and its --json in full, run in test/full/lesson-11.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runLesson, testFitsColumns, testRunsCleanly } from "./lesson-run.ts";
import { runTs, tableRow } from "./run-helpers.ts";

const LESSON = "lessons/11-idempotency-middleware.ts";
const ran = await runLesson([LESSON, "--seed", "1", "--only", "express-idempotency"], {
  width: 80,
});

testRunsCleanly("lesson 11 --only express-idempotency", ran);

testFitsColumns("lesson 11 --only express-idempotency", ran, 80);

test(
  "lesson 11 --only express-idempotency: its ten cells, as measured, and the explanation of " +
    "each surprising one",
  () => {
    const expected: Record<string, [string, string, string]> = {
      "same-key-twice": ["201 201", "1", "safe"],
      "different-body": ["201 417", "1", "safe"],
      "lost-response": ["lost 201", "1", "safe"],
      "handler-500": ["500 201", "1", "safe"],
      crash: ["reset 201", "2", "duplicate"],
      "other-caller": ["201 201", "1", "leak"],
      "quoted-key": ["201 201", "2", "duplicate"],
    };
    const table = ran.stdout.slice(
      ran.stdout.indexOf("express-idempotency: what the client saw"),
      ran.stdout.indexOf("The verdicts side by side"),
    );
    for (const [name, cells] of Object.entries(expected))
      assert.deepEqual(tableRow(table, name), [name, ...cells], `the ${name} row`);
    assert.match(
      tableRow(table, "handler-throws")?.join(" | ") ?? "",
      /^handler-throws \| 500 409 409 409 \| 0 \| stuck \d+\.\d s$/,
      "handler-throws: stuck, with how long",
    );
    assert.doesNotMatch(
      ran.stdout,
      /^\s*(node-idempotency|powertools|fenced)\s+│/m,
      "only the chosen server is measured",
    );
    const why = ran.stdout
      .slice(ran.stdout.indexOf("Why: each surprising cell"))
      .replace(/\s+/g, " ");
    assert.match(
      why,
      /express-idempotency dist\/services\/idempotencyService\.js:\d+/,
      "the explanations name a file and line of the installed package",
    );
    assert.doesNotMatch(
      why,
      /not\s+found:|No\s+explanation\s+was\s+written/,
      "every place is found and every cell explained",
    );
    assert.match(why, /issue #32/, "the handler-throws cell names the package's public issue");
  },
);

test("lesson 11 --json --only fenced prints the table as JSON, nothing else", async () => {
  const r = await runTs([LESSON, "--json", "--only", "fenced"], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const parsed = JSON.parse(r.stdout) as {
    rows: Array<{
      server: string;
      case: string;
      statuses: unknown[];
      rows: number;
      verdict: string;
    }>;
  };
  assert.equal(parsed.rows.length, 10, "ten cases, one server");
  for (const row of parsed.rows) {
    assert.deepEqual(
      Object.keys(row).filter((k) => k !== "stuckForMs"),
      ["server", "case", "statuses", "rows", "verdict"],
      `${row.case}: the fixed names`,
    );
    assert.equal(row.server, "fenced");
  }
  const byCase = Object.fromEntries(parsed.rows.map((r) => [r.case, r]));
  assert.deepEqual(byCase["lost-response"], {
    server: "fenced",
    case: "lost-response",
    statuses: ["lost", 201],
    rows: 1,
    verdict: "safe",
  });
  assert.deepEqual(byCase["other-caller"]?.rows, 2, "two callers, one report each");
  assert.equal(byCase.crash?.verdict, "safe", "the key survives the crash with the report");
});

test("lesson 11: a bad --only exits 2 with one line", async () => {
  const bad = await runTs([LESSON, "--only", "koa-idempotency"]);
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /^error: --only takes one of express-idempotency, node-idempotency, powertools, fenced; got/,
  );
  assert.equal(bad.stderr.trim().split("\n").length, 1);
});
