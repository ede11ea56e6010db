/**
 * Lesson 06's closing table: one row per case, where its key came from and the reports counted in
 * its SQLite file (one bug: 1), with the judge's flagged pairs under the case it judged.
 */
import { t } from "../core/i18n.ts";
import { JUDGE_THRESHOLD, type Suspect } from "./judge.ts";

/** A case as the table reads it: the reports counted at its end. */
type Counted = { reports: number };

/** What each case of lesson 06 measured, by section. */
export interface LessonSixResults {
  /** Sections 1a and 1b: the harness resends, with a key per HTTP attempt, then per tool_use. */
  harness: { perAttempt: Counted; perToolUse: Counted };
  /** Sections 2 to 4: the model files again (tool-call key, business key, a rewritten title). */
  model: {
    modelLayer: Counted;
    business: Counted;
    rewritten: Counted;
    suspects: readonly Suspect[];
  };
  /** Section 5: the tool result says "unknown"; the lookup's blind spot, with each key. */
  lookup: { honest: Counted; blindToolUse: Counted; blindBusiness: Counted };
  /** Section 6: a sampling retry, resent as first sent and rebuilt from the history. */
  sampling: { snapshot: Counted; fromHistory: Counted };
  /** Section 7: an untrusted server's idempotentHint, believed and ignored. */
  mcp: { believing: Counted; ignoring: Counted };
}

export function summaryTable(r: LessonSixResults): [string[], string[][]] {
  const tool = t("the tool call");
  const content = t("run + module + title");
  const flagged = t("{n, plural, one {# pair flagged} other {# pairs flagged}}", {
    n: r.model.suspects.length,
  });
  const rows: Array<[string, string, number | string]> = [
    [
      t("harness retry, key per HTTP attempt"),
      t("a UUID per attempt"),
      r.harness.perAttempt.reports,
    ],
    [t("harness retry, key run_id:tool_use_id"), tool, r.harness.perToolUse.reports],
    [t("model files again, key run_id:tool_use_id"), tool, r.model.modelLayer.reports],
    [t("model files again, business key"), content, r.model.business.reports],
    [t("model rewrites the title, business key"), content, r.model.rewritten.reports],
    [`  ${t("judge over the stored reports")}`, `Jaccard ≥ ${JUDGE_THRESHOLD}`, flagged],
    [t("tool result says unknown: the model looks first"), tool, r.lookup.honest.reports],
    [t("still being filed: lookup, tool-call key"), tool, r.lookup.blindToolUse.reports],
    [t("still being filed: lookup, business key"), content, r.lookup.blindBusiness.reports],
    [t("sampling retry resends the first request"), tool, r.sampling.snapshot.reports],
    [t("sampling retry rebuilt from history (Codex)"), tool, r.sampling.fromHistory.reports],
    [t("MCP idempotentHint believed, no key"), t("none (the hint)"), r.mcp.believing.reports],
    [t("MCP hint from an untrusted server ignored"), t("none"), r.mcp.ignoring.reports],
  ];
  return [
    [t("case"), t("the key comes from"), t("reports (one bug: 1)")],
    rows.map((row) => row.map(String)),
  ];
}
