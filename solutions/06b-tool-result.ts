/**
 * Exercise 06b · Tell the model what the harness knows (reference answer)
 *
 * The reference answer is the harness's own wording: read it in lib/agent/tool-result.ts
 * (toolResultFor, beside submissionFailedResult, the wording lesson 06 shows going wrong).
 */
export { type ToolOutcome, type ToolResultBody, toolResultFor } from "../lib/agent/tool-result.ts";
