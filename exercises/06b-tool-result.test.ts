// Tests for exercise 06b. Run them with `npm run check 06b`.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message, ReportInput } from "../lib/agent/messages.ts";
import { decide, readToolResult } from "../lib/agent/scripted-model.ts";
import { t } from "../lib/core/i18n.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { toolResultFor } =
  await loadExercise<typeof import("./06b-tool-result.ts")>("06b-tool-result");
type Outcome = Parameters<typeof toolResultFor>[0];

const report: ReportInput = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' has no effect.",
  module: "auth",
};
const filed: Outcome = { kind: "filed", title: report.title, reportId: 7, existing: false };
const existing: Outcome = { kind: "filed", title: report.title, reportId: 7, existing: true };
const failed: Outcome = {
  kind: "failed",
  title: report.title,
  status: 400,
  detail: "title must be a non-empty string",
};
const unknown: Outcome = {
  kind: "unknown",
  title: report.title,
  saw: "no response within 100 ms (timeout) after 2 attempts",
};

/** What the scripted model does next after reading this result for its file_bug_report call. */
function nextMove(outcome: Outcome): string {
  const history: Message[] = [
    { role: "user", content: [{ type: "text", text: "File this bug report." }] },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_01A", name: "file_bug_report", input: report }],
    },
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_01A", ...toolResultFor(outcome) }],
    },
  ];
  return decide(history, { report }).kind;
}

/** The content must match `pattern`; `why` says why. */
function says(content: string, pattern: RegExp, why: string): void {
  assert.match(
    content,
    pattern,
    t("the content must match {pattern}: {why}", { pattern: String(pattern), why }),
  );
}

test(t("filed: not an error, with the report's number and title; the model stops"), () => {
  const r = toolResultFor(filed);
  assert.equal(
    r.is_error,
    false,
    t("is_error must be false for a filed report: the call did what it was asked"),
  );
  says(r.content, /report #7\b/, t("say the report's number, so the model can cite it"));
  assert.ok(
    r.content.includes(report.title),
    t("the content must name the report's title, so the model knows which report it was"),
  );
  assert.equal(readToolResult(r), "success", t("the scripted model must read this as a success"));
  assert.equal(
    nextMove(filed),
    "answer",
    t("after a filed report the model must answer the user, not file again"),
  );
});

test(t("filed before (the tracker recognised it): not an error, and it says so"), () => {
  const r = toolResultFor(existing);
  assert.equal(
    r.is_error,
    false,
    t(
      "is_error must be false for a report filed before: the report exists, which is what was asked",
    ),
  );
  says(r.content, /report #7\b/, t("say the report's number, so the model can cite it"));
  says(
    r.content,
    /already/i,
    t("say that the report was already there, so the model does not count it as a new one"),
  );
  assert.notEqual(
    r.content,
    toolResultFor(filed).content,
    t("a report filed now and one filed before must be two messages"),
  );
  assert.equal(
    nextMove(existing),
    "answer",
    t("after a report filed before, the model must answer the user, not file again"),
  );
});

test(
  t(
    "a definite failure: an error, with the status and the tracker's detail; nothing stored, so the model corrects and files again",
  ),
  () => {
    const r = toolResultFor(failed);
    assert.equal(
      r.is_error,
      true,
      t("is_error must be true for a refused report: nothing was filed"),
    );
    says(
      r.content,
      /^Submission failed/,
      t('start with "Submission failed": the model reads the first words first'),
    );
    says(r.content, /\b400\b/, t("give the status the tracker answered"));
    assert.ok(
      r.content.includes(failed.detail),
      t("the content must pass the tracker's detail on: it says what to correct"),
    );
    says(
      r.content,
      /nothing was stored/i,
      t("say that nothing was stored, so filing again after a correction is safe"),
    );
    assert.equal(readToolResult(r), "failed", t("the scripted model must read this as a failure"));
    assert.equal(
      nextMove(failed),
      "file",
      t("after a definite refusal the model must correct the report and file it again"),
    );
  },
);

test(
  t('an unknown outcome: an error, what the harness saw, and where to look first; never "failed"'),
  () => {
    const r = toolResultFor(unknown);
    assert.equal(
      r.is_error,
      true,
      t("is_error must be true for an unknown outcome: the call is not known to have succeeded"),
    );
    says(
      r.content,
      /^Outcome unknown/,
      t('start with "Outcome unknown": the model reads the first words first'),
    );
    assert.ok(
      r.content.includes(unknown.saw),
      t("the content must say what the harness saw (outcome.saw)"),
    );
    says(r.content, /may already exist/i, t("say that the report may already exist"));
    says(
      r.content,
      /look it up first/i,
      t("tell the model to look it up first, before it files again"),
    );
    assert.ok(
      r.content.includes("GET /reports?title=Login%20button%20does%20nothing"),
      t(
        "the content must name the lookup, GET /reports?title= with the title encoded by encodeURIComponent",
      ),
    );
    assert.doesNotMatch(
      r.content,
      /fail/i,
      t(
        'the unknown message must not say "failed": that word invites the model to file again, and a second report may be made',
      ),
    );
    assert.equal(
      readToolResult(r),
      "look-up",
      t("the scripted model must read this as: look it up first"),
    );
    assert.equal(
      nextMove(unknown),
      "find",
      t("after an unknown outcome the model must look the report up, not file it again"),
    );
  },
);

test(t("the lookup path encodes the title"), () => {
  const title = "Search: 100% CPU & crash?";
  const r = toolResultFor({
    kind: "unknown",
    title,
    saw: "network error ECONNRESET after 1 attempt",
  });
  assert.ok(
    r.content.includes(`GET /reports?title=${encodeURIComponent(title)}`),
    t(
      "the content must hold GET /reports?title= followed by encodeURIComponent of the title; it holds: {content}",
      { content: r.content },
    ),
  );
});

test(t("the three kinds are three messages"), () => {
  const contents = [filed, failed, unknown].map((o) => toolResultFor(o).content);
  assert.equal(
    new Set(contents).size,
    3,
    t("filed, failed and unknown must be three different messages: the model acts on the words"),
  );
});
