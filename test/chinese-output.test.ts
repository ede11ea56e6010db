// The checks of a Chinese run (test/chinese-output.ts) on made-up output: each finds what it should.
import assert from "node:assert/strict";
import { test } from "node:test";
import { countsOf, englishRuns, widerThan } from "./chinese-output.ts";

test("four English words in a row are found; code, quoted titles and capitals are not", () => {
  const text = [
    "  150 ms  服务端    #1 dropped before any handler ran: nothing done",
    "  Agent 知道的：等了 150 ms，没有响应",
    '  AWS 博客 "Exponential Backoff And Jitter" 的模拟器，npm run lesson 2 -- --seed 7',
    "  第 2 次尝试 → POST /reports (Idempotency-Key 1f0c…) INSERT INTO reports VALUES",
    "  the agent knows:",
    "  第 1 次 the agent sent，然后 retry went out",
    "  客户端数  exponential  full  equal  decorrelated",
  ].join("\n");
  assert.deepEqual(englishRuns(text), [
    { line: 1, run: "dropped before any handler ran nothing done" },
  ]);
  // At three words the rule would be too strict: "npm run lesson" is a command, and counts. Line 6
  // has two runs of three, one each side of its Chinese: a Chinese character ends a run.
  assert.deepEqual(
    englishRuns(text, 3).map((r) => r.line),
    [1, 3, 5, 6, 6],
  );
});

test("lines wider than the terminal are counted by display width, a Chinese character as two", () => {
  assert.deepEqual(widerThan(`${"中".repeat(40)}\n${"中".repeat(41)}\n${"a".repeat(80)}`, 80), [
    "中".repeat(41),
  ]);
});

test("the numbers of a run, times left out, sorted: what a translation must keep", () => {
  assert.deepEqual(
    countsOf(
      "  154 ms  agent     attempt 2 ← 201, report 2 (took 1.5 s)\n  reports: 2  ✗ DUPLICATE (1 extra)",
    ),
    [1, 2, 2, 2, 201],
  );
  assert.deepEqual(
    countsOf(
      "  154 ms  Agent     第 2 次尝试 ← 201，报告 2（用了 1.5 秒）\n  报告数：2  ✗ 重复（多了 1 份）",
    ),
    [1, 2, 2, 2, 201],
  );
});
