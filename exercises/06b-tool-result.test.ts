// Tests for exercise 06b. Run them with `npm run check 06b`.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message, ReportInput } from "../lib/agent/messages.ts";
import { decide, readToolResult } from "../lib/agent/scripted-model.ts";
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

test("filed: not an error, with the report's number and title; the model stops", () => {
  const r = toolResultFor(filed);
  assert.equal(r.is_error, false);
  assert.match(r.content, /report #7\b/);
  assert.ok(r.content.includes(report.title), "name the title");
  assert.equal(readToolResult(r), "success");
  assert.equal(nextMove(filed), "answer");
});

test("filed before (the tracker recognised it): not an error, and it says so", () => {
  const r = toolResultFor(existing);
  assert.equal(r.is_error, false);
  assert.match(r.content, /report #7\b/);
  assert.match(r.content, /already/i);
  assert.notEqual(
    r.content,
    toolResultFor(filed).content,
    "a report filed now and one filed before are two messages",
  );
  assert.equal(nextMove(existing), "answer");
});

test("a definite failure: an error, with the status and the tracker's detail; nothing stored, so the model corrects and files again", () => {
  const r = toolResultFor(failed);
  assert.equal(r.is_error, true);
  assert.match(r.content, /^Submission failed/);
  assert.match(r.content, /\b400\b/);
  assert.ok(r.content.includes(failed.detail), "pass the tracker's detail on");
  assert.match(r.content, /nothing was stored/i);
  assert.equal(readToolResult(r), "failed");
  assert.equal(nextMove(failed), "file");
});

test('an unknown outcome: an error, what the harness saw, and where to look first; never "failed"', () => {
  const r = toolResultFor(unknown);
  assert.equal(r.is_error, true, "the call is not known to have succeeded");
  assert.match(r.content, /^Outcome unknown/);
  assert.ok(r.content.includes(unknown.saw), "say what the harness saw");
  assert.match(r.content, /may already exist/i);
  assert.match(r.content, /look it up first/i);
  assert.ok(
    r.content.includes("GET /reports?title=Login%20button%20does%20nothing"),
    "name the lookup",
  );
  assert.doesNotMatch(r.content, /fail/i, '"failed" invites the model to file again');
  assert.equal(readToolResult(r), "look-up");
  assert.equal(nextMove(unknown), "find");
});

test("the lookup path encodes the title", () => {
  const title = "Search: 100% CPU & crash?";
  const r = toolResultFor({
    kind: "unknown",
    title,
    saw: "network error ECONNRESET after 1 attempt",
  });
  assert.ok(r.content.includes(`GET /reports?title=${encodeURIComponent(title)}`), r.content);
});

test("the three kinds are three messages", () => {
  const contents = [filed, failed, unknown].map((o) => toolResultFor(o).content);
  assert.equal(new Set(contents).size, 3);
});
