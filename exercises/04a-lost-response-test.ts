/**
 * Exercise 04a · Write the test: a lost response, naive tracker against keyed
 *
 * Goal: the test the page asks for. Against the naive tracker, a retry after a lost response leaves 2
 * reports; against the keyed one, exactly 1. The agent is the same in both: it sends one
 * Idempotency-Key and reuses it (the naive tracker ignores it).
 *
 * Your test is tested in turn, the way a test should be: it must pass on the real trackers, and it
 * must fail, with an AssertionError, when the "fixed" tracker is not fixed or the "broken" one is not
 * broken. A test that cannot go red proves nothing.
 *
 * Constraints: a real tracker on 127.0.0.1 per run (`startTracker`, in memory is fine), the server-side
 * fault `lose-response` on request #1, no sleeps. Lesson 04, section 1, runs this case (run
 * `npm run lesson 4`). Check your answer with `npm run check 04a`.
 *
 * 练习 04a · 写测试：丢了响应，naive Bug 库对比 keyed
 *
 * 目标：课程页要的那个测试。在 naive Bug 库上，丢了响应之后重试，库里会有 2 份报告；在 keyed Bug 库
 * 上，正好 1 份。两边的 Agent 一样：只发一个 Idempotency-Key，每次重试都复用它（naive 会忽略它）。
 *
 * 你的测试也要被测试，测试本该如此：在真实的 Bug 库上它要通过；“修好的”其实没修好，或者“坏的”其实没
 * 坏时，它要失败，抛出 AssertionError。不会变红的测试什么都证明不了。
 *
 * 约束：每次运行都在 127.0.0.1 上起一个真的 Bug 库（`startTracker`，用内存存储就行），在服务端给第
 * 1 个请求注入故障 `lose-response`，不许 sleep。第 04 课第 1 节跑的就是这个场景
 * （`npm run lesson 4`）。用 `npm run check 04a` 检查你的答案。
 */
import assert from "node:assert/strict";
import { fileReport } from "../lib/client/client.ts";
import { seeded } from "../lib/core/random.ts";
import { Faults } from "../lib/tracker/faults.ts";
import { startTracker } from "../lib/tracker/service.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

/** Which tracker should fail the check (2 reports) and which should pass it (exactly 1). */
export interface Subjects {
  broken: VariantName;
  fixed: VariantName;
}

/**
 * Starts a tracker of `variant` that loses its answer to request #1, files one report through a
 * same-key agent that retries after its timeout, and returns how many reports the database holds.
 */
export async function reportsAfterLostResponse(variant: VariantName): Promise<number> {
  // TODO: start the tracker with the fault, file one report, count, and close the tracker.
  // 待办：带着故障启动 Bug 库，提交一份报告，数一数，再关掉 Bug 库。
  throw new Error("TODO: write reportsAfterLostResponse (exercise 04a)");
}

/** The test: 2 reports on `subjects.broken`, exactly 1 on `subjects.fixed`; an AssertionError if not. */
export async function lostResponseTest(
  subjects: Subjects = { broken: "naive", fixed: "keyed" },
): Promise<void> {
  // TODO: assert what reportsAfterLostResponse returns for each subject.
  // 待办：对每个被测的 Bug 库，断言 reportsAfterLostResponse 的返回值。
  throw new Error("TODO: write lostResponseTest (exercise 04a)");
}
