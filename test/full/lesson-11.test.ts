// Lesson 11 whole: four servers, ten cases each, and the same run as --json. The statuses, rows and
// verdicts are the same on every run (the seconds a stuck key was refused are not, and are left
// out). Its kept output (lessons/output/) is compared here, on two runs at once with seed 1.
import assert from "node:assert/strict";
import { test } from "node:test";
import { listLessons } from "../../lib/runner/catalog.ts";
import { maskOutput, outputDiff, runForOutput, testKeptOutput } from "../lesson-output.ts";
import { testRunsCleanly } from "../lesson-run.ts";
import { runTs } from "../run-helpers.ts";

const LESSON = "lessons/11-idempotency-middleware.ts";
const lesson = listLessons().find((l) => l.file === LESSON)!;
const started = performance.now();
const [ran, again] = await Promise.all([
  runForOutput(lesson, { timeoutMs: 60_000 }),
  runForOutput(lesson, { timeoutMs: 60_000 }),
]);
const ms = performance.now() - started;

testRunsCleanly("lesson 11", ran);
testRunsCleanly("lesson 11, run again at once", again);
testKeptOutput("lesson 11", lesson, ran);

test("lesson 11: two runs at once with seed 1 print one text, masked", () => {
  const differ = outputDiff(maskOutput("11", ran.stdout), maskOutput("11", again.stdout), [
    "one run",
    "the other",
  ]);
  assert.ok(differ === undefined, `two runs with seed 1 differ, masked. ${differ}`);
});

/**
 * The verdicts this lesson found, by case: express-idempotency, node-idempotency, powertools,
 * fenced.
 */
const VERDICTS: Record<string, string[]> = {
  "same-key-twice": ["safe", "safe", "safe", "safe"],
  "different-body": ["safe", "safe", "error", "safe"],
  "different-path": ["safe", "safe", "error", "safe"],
  concurrent: ["safe", "safe", "safe", "safe"],
  "lost-response": ["safe", "safe", "safe", "safe"],
  "handler-500": ["safe", "stuck", "stuck", "stuck"],
  "handler-throws": ["stuck", "stuck", "safe", "stuck"],
  crash: ["duplicate", "duplicate", "stuck", "safe"],
  "other-caller": ["leak", "leak", "leak", "safe"],
  "quoted-key": ["duplicate", "duplicate", "duplicate", "safe"],
};

test("lesson 11 runs in well under a minute, even beside another run of it", () => {
  assert.ok(ms < 45_000, `it took ${Math.round(ms)} ms`);
});

test("lesson 11: the verdicts side by side, all four servers", () => {
  const grid = ran.stdout.slice(
    ran.stdout.indexOf("The verdicts side by side"),
    ran.stdout.indexOf("Why: each surprising cell"),
  );
  for (const [name, verdicts] of Object.entries(VERDICTS)) {
    const row = grid.split("\n").find((l) => l.trim().startsWith(`${name} `));
    assert.deepEqual(
      row?.split("│").map((c) => c.trim()),
      [name, ...verdicts],
      `the ${name} row`,
    );
  }
  assert.doesNotMatch(
    ran.stdout,
    /not\s+found:|No\s+explanation\s+was\s+written|was\s+written\s+for\s+"/,
    "every cell explained as measured",
  );
});

test("lesson 11 --json prints the same verdicts, with statuses and rows", async () => {
  const r = await runTs([LESSON, "--json"], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const { rows } = JSON.parse(r.stdout) as {
    rows: Array<{
      server: string;
      case: string;
      statuses: unknown[];
      rows: number;
      verdict: string;
    }>;
  };
  assert.equal(rows.length, 40, "four servers × ten cases");
  const servers = ["express-idempotency", "node-idempotency", "powertools", "fenced"];
  for (const [name, verdicts] of Object.entries(VERDICTS)) {
    assert.deepEqual(
      servers.map((s) => rows.find((x) => x.server === s && x.case === name)?.verdict),
      verdicts,
      `${name}`,
    );
  }
  const crash = rows.find((x) => x.server === "powertools" && x.case === "crash");
  assert.deepEqual(
    crash?.statuses,
    ["reset", 500, 500, 500],
    "powertools after the crash: every retry refused (in progress)",
  );
  assert.equal(
    rows.find((x) => x.server === "express-idempotency" && x.case === "crash")?.rows,
    2,
    "the memory store forgot the key",
  );
});
