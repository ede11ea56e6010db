// Lesson 06, run once: it prints what it measured, each case's report count read from its closing
// table, the judge's flagged pair, the wording table, and words that agree with them. The same seed's
// second run, another seed's, and the runs at 80 and 120 columns, are in test/full/.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runLesson, testRunsCleanly } from "./lesson-run.ts";
import { tableRow } from "./run-helpers.ts";

const LESSON = "lessons/06-agent-two-layers.ts";
const ran = await runLesson([LESSON, "--seed", "1"]);

testRunsCleanly("lesson 06", ran);

test("lesson 06 measures every case: red where the key or the words miss, green where they reach", () => {
  const reports = (label: string) => tableRow(ran.stdout, label)?.at(-1);
  assert.equal(reports("harness retry, key per HTTP attempt"), "2");
  assert.equal(reports("harness retry, key run_id:tool_use_id"), "1");
  assert.equal(reports("model files again, key run_id:tool_use_id"), "2");
  assert.equal(reports("model files again, business key"), "1");
  assert.equal(reports("model rewrites the title, business key"), "2");
  assert.equal(reports("judge over the stored reports"), "1 pair flagged");
  assert.equal(reports("tool result says unknown: the model looks first"), "1");
  assert.equal(reports("still being filed: lookup, tool-call key"), "2");
  assert.equal(reports("still being filed: lookup, business key"), "1");
  assert.equal(reports("sampling retry resends the first request"), "2");
  assert.equal(reports("sampling retry rebuilt from history (Codex)"), "1");
  assert.equal(reports("MCP idempotentHint believed, no key"), "2");
  assert.equal(reports("MCP hint from an untrusted server ignored"), "1");

  // The judge flagged the rewritten pair, with the similarity it computed.
  assert.deepEqual(tableRow(ran.stdout, '#1 "Login button does nothing" /')?.[1], "0.67");
  assert.ok(tableRow(ran.stdout, '#2 "Login button does nothing when clicked"'), "its pair");
  // … and is wrong both ways on the other titles.
  assert.deepEqual(tableRow(ran.stdout, '"Logout button does nothing"')?.slice(2), ["0.60", "yes"]);
  assert.deepEqual(tableRow(ran.stdout, '"Login button unresponsive"')?.slice(2), ["0.40", "no"]);

  // The wording: both is_error, different next moves, different counts.
  assert.match(tableRow(ran.stdout, "submission failed (section 2)")?.[2] ?? "", /^files again/);
  assert.match(
    tableRow(ran.stdout, "outcome unknown, look it up first")?.[2] ?? "",
    /^looks it up/,
  );
  assert.match(
    ran.stdout,
    /is_error true, "Submission failed: no response within 100 ms \(timeout\) after 2 attempts\."/,
  );
  assert.match(
    ran.stdout,
    /is_error true, "Outcome unknown: .* The report may already exist: look it up first \(find_reports, GET \/reports\?title=Login%20button%20does%20nothing\)/,
  );

  // Section 3: three wordings, one key; the fourth another.
  const keyOf = (title: string) => tableRow(ran.stdout, JSON.stringify(title))?.[2];
  assert.equal(keyOf("Login Button does nothing."), keyOf("Login button does nothing"));
  assert.equal(keyOf("  login button -- does NOTHING!"), keyOf("Login button does nothing"));
  assert.notEqual(
    keyOf("Login button does nothing when clicked"),
    keyOf("Login button does nothing"),
  );
  assert.match(ran.stdout, /422 on the business key/);

  // Codex: more model calls than tool calls when rebuilt from history.
  assert.deepEqual(tableRow(ran.stdout, "the request as first sent")?.slice(1), ["3", "2", "2"]);
  assert.deepEqual(tableRow(ran.stdout, "a request rebuilt from history")?.slice(1), [
    "2",
    "1",
    "1",
  ]);
  // MCP: the untrusted hint allowed one attempt only.
  assert.match(
    ran.stdout,
    /1 attempt allowed \(the server says idempotentHint: true, but it is not trusted/,
  );
});

test("lesson 06's words agree with its results and its sources", () => {
  const section = (title: string): string => {
    const start = ran.stdout.indexOf(title);
    assert.ok(start >= 0, title);
    const next = ran.stdout.slice(start + title.length).search(/^\S/m);
    return ran.stdout.slice(start, next < 0 ? undefined : start + title.length + next);
  };
  // 1a files a duplicate: its harness must not claim a resend is replayed.
  const oneA = section("1a · Harness layer: a new key for every HTTP attempt");
  assert.doesNotMatch(oneA, /a resend is replayed, not repeated/);
  assert.match(oneA, /a new one on every attempt: to the server a resend is a new report/);
  const oneB = section("1b · Harness layer: the key run_id:tool_use_id");
  assert.match(oneB, /a resend is replayed, not repeated/);
  const text = ran.stdout.replace(/\s+/g, " ");
  // The 255 limit is Stripe's, not the IETF draft's.
  assert.match(
    text,
    /at most 255 printable ASCII characters \(Stripe's rule, which it follows; the IETF draft sets no length limit\)/,
  );
  // MCP: both the schema and the tools page since 2025-03-26.
  assert.match(text, /Both texts have stood since 2025-03-26/);
  assert.doesNotMatch(text, /2025-06-18 for the tools page/);
  // Section 6 in plain words: no Rust internals or commit hashes printed, the sampling layer explained.
  assert.doesNotMatch(text, /clone_history|drain_in_flight|handle_output_item_done|@ [0-9a-f]{8}/);
  assert.match(text, /Codex's sampling layer \(lesson 03\) sends one request to the model/);
  // 5b: the model's conclusion is its own, not a fact (the first submission was still running).
  assert.match(text, /the lookup found nothing, so it concludes the first submission never landed/);
});
