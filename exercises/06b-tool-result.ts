/**
 * Exercise 06b · Tell the model what the harness knows
 *
 * Goal: when the harness stops trying, it answers the model's tool_use with a tool_result: `content`
 * (words) and `is_error`. The model acts on the words. The harness knows one of three things: the
 * report was filed (a 2xx, or the tracker recognised it as filed before), it definitely was not (the
 * tracker answered and refused it: nothing was stored, so correcting and filing again is right), or
 * it does not know (no answer, a cut connection, a 5xx, a 409): the report may exist, and filing
 * again blind may make a second one. Write the three messages.
 *
 * Constraints: a pure function. `is_error` is false only for "filed". The unknown message must send
 * a reader to look before filing again and must not say "failed"; the failure message must not
 * suggest the report may exist. The tests read your messages with the lesson's scripted model
 * (lib/agent/scripted-model.ts, `readToolResult`) and check what it does next. Lesson 06, section 5,
 * shows both wordings at work (run `npm run lesson 6`). Check your answer with `npm run check 06b`.
 *
 * 练习 06b · 把 harness 知道的告诉模型
 *
 * 目标：harness 不再尝试时，会用一个 tool_result 回答模型的 tool_use：`content`（文字）和
 * `is_error`。模型照着文字行事。harness 知道的只会是三种情况之一：报告提交了（2xx，或者 Bug 库认出
 * 它之前已经提交过），报告肯定没提交（Bug 库回了话，并且拒绝了：什么都没存，所以改正后再提交是对
 * 的），或者不知道（没有响应、连接断了、5xx、409）：报告可能已经存在，再盲目提交一次，可能多出一
 * 份。写出这三种消息。
 *
 * 约束：纯函数。只有 "filed" 时 `is_error` 才是 false。结果未知时的消息要让读的人先查再提交，而且不
 * 能出现 "failed"；失败时的消息不能暗示报告可能已经存在。消息用英文写：测试用课程里的脚本模型读你的
 * 消息（lib/agent/scripted-model.ts 的 `readToolResult`），再检查它下一步做什么。第 06 课第 5 节演
 * 示两种措辞的效果（`npm run lesson 6`）。用 `npm run check 06b` 检查你的答案。
 */
import type { ToolOutcome, ToolResultBody } from "../lib/agent/tool-outcome.ts";

export type { ToolOutcome, ToolResultBody };

/** The tool_result's content and is_error for what the harness knows. */
export function toolResultFor(outcome: ToolOutcome): ToolResultBody {
  // TODO: one message for "filed" (new or existing), one for "failed", one for "unknown".
  // 待办："filed"（新提交或早已存在）一种消息，"failed" 一种，"unknown" 一种。
  throw new Error("TODO: write toolResultFor (exercise 06b)");
}
