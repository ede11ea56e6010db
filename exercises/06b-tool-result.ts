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
 */
import type { ToolOutcome, ToolResultBody } from "../lib/agent/tool-result.ts";

export type { ToolOutcome, ToolResultBody };

/** The tool_result's content and is_error for what the harness knows. */
export function toolResultFor(outcome: ToolOutcome): ToolResultBody {
  // TODO: one message for "filed" (new or existing), one for "failed", one for "unknown".
  throw new Error("TODO: write toolResultFor (exercise 06b)");
}
