/**
 * The types of a harness's answer to a tool call: what the harness knows when it stops trying, and
 * the `tool_result` it sends the model. Types only, in a module of their own: exercise 06b imports
 * them, and a learner who opens this file finds no wording here.
 */

/** What the harness knows when it stops trying. */
export type ToolOutcome =
  /**
   * Stored: `title` as the tracker stored it; `existing` when the tracker recognised it as a report
   * filed before (by an earlier tool call) and filed nothing new.
   */
  | { kind: "filed"; title: string; reportId: number; existing: boolean }
  /** The tracker answered and refused it; nothing was stored. */
  | { kind: "failed"; title: string; status: number; detail: string }
  /** No answer the harness can trust; `saw` is what it saw: "no answer within 100 ms (timeout)". */
  | { kind: "unknown"; title: string; saw: string };

/** The part of a `tool_result` block the harness writes: the words, and whether it is an error. */
export interface ToolResultBody {
  content: string;
  is_error: boolean;
}
