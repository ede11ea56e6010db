/**
 * Exercise 08a · Your own fault-injection test
 *
 * Goal: the test the course asks for, written once for any tracker. Inject a fault on the server for
 * request #1, let the agent make its one logical call with one key reused on every retry, and assert
 * that the database holds exactly one report. Two faults: "lose-response" (committed, the answer
 * lost) and "slow" (the first request still runs when the retry arrives).
 *
 * Your test is tested the way the matrix of lesson 08 is read: it must go red on naive and green on
 * fenced, for both faults. And its "slow" must really run the two requests side by side: key-after
 * survives a lost response but not a retry that arrives while the first request is still working, so
 * your test must catch key-after under "slow" and let it pass under "lose-response".
 *
 * Constraints: a real tracker on 127.0.0.1 per run (`startTracker`, in memory is fine); order events
 * with the fault's gates (`faults.reached`, `faults.release`), never with sleeps; node:assert, whose
 * failures are AssertionErrors. Lesson 08 runs these cells (npm run lesson 8 -- --fault slow). Check
 * your answer with `npm run check 08a`.
 *
 * 练习 08a · 你自己的故障注入测试
 *
 * 目标：课程要的那个测试，写一次，对任何 Bug 库都能用。在服务端给第 1 个请求注入故障，让 Agent 做它
 * 那一次逻辑调用，每次重试都复用同一个键，然后断言库里正好只有一份报告。两种故
 * 障："lose-response"（已提交，响应丢了）和 "slow"（重试到达时，第一个请求还在做）。
 *
 * 你的测试会按读第 08 课故障矩阵的方式被检验：两种故障下，它在 naive 上都要变红，在 fenced 上都要变
 * 绿。而且它的 "slow" 必须真的让两个请求同时在跑：key-after 扛得住丢响应，却扛不住第一个请求还在做
 * 时到达的重试，所以你的测试要在 "slow" 下抓住 key-after，在 "lose-response" 下放它通过。
 *
 * 约束：每次运行都在 127.0.0.1 上起一个真的 Bug 库（`startTracker`，用内存存储就行）；用故障自带的
 * 闸门（`faults.reached`、`faults.release`）安排事件的先后，绝不用 sleep；用 node:assert，它失败时
 * 抛的是 AssertionError。第 08 课跑的就是这些格子（npm run lesson 8 -- --fault slow）。用
 * `npm run check 08a` 检查你的答案。
 */
import assert from "node:assert/strict";
import { fileReport } from "../lib/client/client.ts";
import { seeded } from "../lib/core/random.ts";
import { Faults } from "../lib/tracker/faults.ts";
import { startTracker } from "../lib/tracker/service.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

export type TestedFault = "lose-response" | "slow";

/**
 * Starts a tracker of `variant` with `fault` on request #1, runs the agent's same-key call to its end
 * (for "slow", lets request #1 go on once the retry has been answered), waits until request #1 is
 * over, and returns how many reports the database holds.
 */
export async function reportsAfter(variant: VariantName, fault: TestedFault): Promise<number> {
  // TODO: start the tracker with the fault, run the call, steer "slow" with the gates, count, close.
  // 待办：带着故障启动 Bug 库，发起调用，用闸门控制 "slow"，数报告，关掉 Bug 库。
  throw new Error("TODO: write reportsAfter (exercise 08a)");
}

/** The test: exactly one report after `fault`; an AssertionError if not. */
export async function exactlyOnce(variant: VariantName, fault: TestedFault): Promise<void> {
  // TODO: assert that reportsAfter gives exactly 1.
  // 待办：断言 reportsAfter 正好得到 1。
  throw new Error("TODO: write exactlyOnce (exercise 08a)");
}
