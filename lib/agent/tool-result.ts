/**
 * What a harness tells the model after a tool call: the `tool_result` content and `is_error`.
 *
 * The harness knows one of three things when it stops: the report was filed (a 2xx, or the tracker
 * recognised it as already filed), it was definitely not filed (the tracker answered and refused it:
 * a 4xx that stores nothing), or it does not know (no answer, a cut connection, a 5xx, a 409 "still in
 * progress"): the report may exist. The model reads the words, not the harness's state, so the words
 * must carry the difference. "Submission failed" for the third case invites the model to file again;
 * "outcome unknown … look it up first" invites it to check.
 */

import type { ToolOutcome, ToolResultBody } from "./tool-outcome.ts";

export type { ToolOutcome, ToolResultBody };

/** Where to look a report up: the tracker's find-by-normalised-title route. */
export function lookupPath(title: string): string {
  return `GET /reports?title=${encodeURIComponent(title)}`;
}

/** The honest wording: success, a definite failure, and an unknown outcome are three messages. */
export function toolResultFor(outcome: ToolOutcome): ToolResultBody {
  switch (outcome.kind) {
    case "filed":
      return {
        content: outcome.existing
          ? `Already filed: report #${outcome.reportId} ("${outcome.title}") exists for this run; nothing new was filed.`
          : `Filed: report #${outcome.reportId} ("${outcome.title}").`,
        is_error: false,
      };
    case "failed":
      return {
        content: `Submission failed: the tracker refused the report (${outcome.status}: ${outcome.detail}). Nothing was stored; correct the input before filing it again.`,
        is_error: true,
      };
    case "unknown":
      return {
        content: `Outcome unknown: ${outcome.saw}. The report may already exist: look it up first (find_reports, ${lookupPath(outcome.title)}) before filing it again.`,
        is_error: true,
      };
  }
}

/** The wording most harnesses use: anything but a success is "submission failed". */
export function submissionFailedResult(outcome: ToolOutcome): ToolResultBody {
  switch (outcome.kind) {
    case "filed":
      return toolResultFor(outcome);
    case "failed":
      return { content: `Submission failed: ${outcome.status} ${outcome.detail}.`, is_error: true };
    case "unknown":
      return { content: `Submission failed: ${outcome.saw}.`, is_error: true };
  }
}
