/**
 * What a harness tells the model after a tool call: the `tool_result` content and `is_error`.
 *
 * The harness knows one of three things when it stops: the report was filed (a 2xx, or the tracker
 * recognised it as already filed), it was definitely not filed (the tracker answered and refused it:
 * a 4xx that stores nothing), or it does not know (no answer, a cut connection, a 5xx, a 409 "still in
 * progress"): the report may exist. The model reads the words, not the harness's state, so the words
 * must carry the difference. "Submission failed" for the third case invites the model to file again;
 * "outcome unknown … look it up first" invites it to check.
 *
 * The words are in the workbook's language: in a Chinese run the model reads the course page's own
 * "结果未知，报告可能已经创建，先查一下", and the scripted model reads both (scripted-model.ts).
 */
import { t } from "../core/i18n.ts";

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
          ? t(
              'Already filed: report #{id} ("{title}") exists for this run; nothing new was filed.',
              { id: String(outcome.reportId), title: outcome.title },
            )
          : t('Filed: report #{id} ("{title}").', {
              id: String(outcome.reportId),
              title: outcome.title,
            }),
        is_error: false,
      };
    case "failed":
      return {
        content: t(
          "Submission failed: the tracker refused the report ({status}: {detail}). Nothing was stored; correct the input before filing it again.",
          { status: outcome.status, detail: outcome.detail },
        ),
        is_error: true,
      };
    case "unknown":
      return {
        content: t(
          "Outcome unknown: {saw}. The report may already exist: look it up first (find_reports, {lookup}) before filing it again.",
          { saw: outcome.saw, lookup: lookupPath(outcome.title) },
        ),
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
      return {
        content: t("Submission failed: {status} {detail}.", {
          status: outcome.status,
          detail: outcome.detail,
        }),
        is_error: true,
      };
    case "unknown":
      return { content: t("Submission failed: {saw}.", { saw: outcome.saw }), is_error: true };
  }
}
