// The agent machinery of lesson 06: keys, the judge, the scripted model's reading of tool results, the
// harness against a real tracker (red first, then green), the sampling retry, and the MCP retry rule.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { businessKey, toolUseKey } from "../lib/agent/business-key.ts";
import { runConversation, type SamplingRetry } from "../lib/agent/conversation.ts";
import { createHarness, type KeyStrategy, showKey, type Wording } from "../lib/agent/harness.ts";
import { JUDGE_THRESHOLD, judgeDuplicates, titleSimilarity } from "../lib/agent/judge.ts";
import { type Message, type ReportInput, toolUseId } from "../lib/agent/messages.ts";
import { decide, readToolResult, scriptedModel } from "../lib/agent/scripted-model.ts";
import { mayAutoRetry } from "../lib/agent/tool-annotations.ts";
import {
  submissionFailedResult,
  type ToolOutcome,
  toolResultFor,
} from "../lib/agent/tool-result.ts";
import { seeded } from "../lib/core/random.ts";
import { keyHeaderValues, parseIdempotencyKey } from "../lib/protocol/idempotency-key.ts";
import { type FaultName, Faults } from "../lib/tracker/faults.ts";
import { startTracker } from "../lib/tracker/service.ts";
import type { Report } from "../lib/tracker/store.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

const RUN = "eval-test";
const report: ReportInput = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' has no effect.",
  module: "auth",
};

test("keys: run_id:tool_use_id, and a business key that is a valid header in both forms", () => {
  const id = toolUseId(seeded(1));
  assert.match(id, /^toolu_01[0-9A-Za-z]{22}$/);
  assert.equal(toolUseKey(RUN, id), `${RUN}:${id}`);
  for (const key of [toolUseKey(RUN, id), businessKey(RUN, "auth", "Échec: «connexion»")]) {
    for (const form of [key, `"${key}"`])
      assert.ok(parseIdempotencyKey(keyHeaderValues(["Idempotency-Key", form])).ok, form);
  }
  assert.equal(
    businessKey(RUN, "Auth", "Login Button does nothing."),
    businessKey(RUN, "auth", report.title),
  );
  assert.notEqual(
    businessKey(RUN, "auth", "Login button does nothing when clicked"),
    businessKey(RUN, "auth", report.title),
  );
  assert.equal(showKey("short"), "short");
  assert.notEqual(
    showKey(toolUseKey(RUN, toolUseId(seeded(1)))),
    showKey(toolUseKey(RUN, toolUseId(seeded(2)))),
    "two tool calls' keys look different",
  );
});

test("the judge: Jaccard over normalised title words, within one run and module, at the stated threshold", () => {
  assert.equal(titleSimilarity("Login button does nothing", "NOTHING does login button!"), 1);
  assert.equal(titleSimilarity("Login button does nothing", "Logout button does nothing"), 3 / 5);
  assert.equal(
    titleSimilarity("Login button does nothing", "Login button does nothing when clicked"),
    4 / 6,
  );
  assert.equal(titleSimilarity("Login button does nothing", "Page crashes on save"), 0);
  assert.equal(titleSimilarity("", "!!"), 1);
  assert.equal(JUDGE_THRESHOLD, 0.6);
  const r = (id: number, title: string, run = RUN, module = "auth"): Report => ({
    id,
    title,
    body: "",
    module,
    run,
  });
  const reports = [
    r(1, "Login button does nothing"),
    r(2, "Login button does nothing when clicked"),
    r(3, "Login button does nothing", "eval-other"), // another run: not compared
    r(4, "Login button does nothing", RUN, "checkout"), // another module: not compared
    r(5, "login button DOES nothing", RUN, "Auth"), // same module, written differently
    r(6, "Page crashes on save"),
  ];
  const flagged = judgeDuplicates(reports).map((s) => [
    s.first.id,
    s.second.id,
    Number(s.similarity.toFixed(2)),
  ]);
  assert.deepEqual(flagged, [
    [1, 5, 1],
    [1, 2, 0.67],
    [2, 5, 0.67],
  ]);
  assert.deepEqual(
    judgeDuplicates(reports, 0.7).map((s) => [s.first.id, s.second.id]),
    [[1, 5]],
    "the threshold is inclusive and decides",
  );
});

test("the scripted model reads words: unknown sends it to look, failed sends it to file again", () => {
  const outcomes: Record<string, ToolOutcome> = {
    filed: { kind: "filed", title: report.title, reportId: 3, existing: false },
    failed: { kind: "failed", title: report.title, status: 413, detail: "too large" },
    unknown: {
      kind: "unknown",
      title: report.title,
      saw: "no response within 100 ms (timeout) after 2 attempts",
    },
  };
  assert.deepEqual(
    Object.values(outcomes).map((o) => [
      readToolResult(toolResultFor(o)),
      readToolResult(submissionFailedResult(o)),
    ]),
    [
      ["success", "success"],
      ["failed", "failed"],
      ["look-up", "failed"],
    ],
  );
});

test("the scripted model's moves after a lookup, its filing budget, and a reworded resubmission", () => {
  const filedOnce = (
    result: { content: string; is_error: boolean },
    tool: "file_bug_report" | "find_reports" = "file_bug_report",
  ): Message[] => [
    { role: "user", content: [{ type: "text", text: "file it" }] },
    {
      role: "assistant",
      content: [
        tool === "file_bug_report"
          ? { type: "tool_use", id: "t1", name: tool, input: report }
          : { type: "tool_use", id: "t1", name: tool, input: { title: report.title } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", ...result }] },
  ];
  assert.equal(
    decide([{ role: "user", content: [{ type: "text", text: "file it" }] }], { report }).kind,
    "file",
  );
  assert.equal(
    decide(
      filedOnce(
        { content: "Found 1 report in this run: report #4 (…).", is_error: false },
        "find_reports",
      ),
      { report },
    ).kind,
    "answer",
  );
  assert.equal(
    decide(
      filedOnce({ content: "No report titled … in this run.", is_error: false }, "find_reports"),
      { report },
    ).kind,
    "file",
  );
  assert.equal(
    decide(filedOnce({ content: "Lookup failed: …", is_error: true }, "find_reports"), { report })
      .kind,
    "answer",
  );
  const again = decide(filedOnce({ content: "Submission failed: 503.", is_error: true }), {
    report,
    resubmitTitle: "Login button does nothing when clicked",
  });
  assert.deepEqual(
    again.kind === "file" ? again.input.title : again.kind,
    "Login button does nothing when clicked",
  );
  assert.equal(
    decide(filedOnce({ content: "Submission failed: 503.", is_error: true }), {
      report,
      maxFilings: 1,
    }).kind,
    "answer",
    "no filings left",
  );
  const orphan: Message[] = [
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "nobody", content: "x", is_error: false }],
    },
  ];
  assert.throws(() => decide(orphan, { report }), /no tool_use/);
  // The same seed draws the same tool_use ids.
  const ids = (seed: number) => {
    const m = scriptedModel({ random: seeded(seed), report });
    return [
      m.respond(filedOnce({ content: "Submission failed: x.", is_error: true })),
      m.respond([]),
    ].map((msg) => JSON.stringify(msg));
  };
  assert.deepEqual(ids(3), ids(3));
  assert.notDeepEqual(ids(3), ids(4));
});

test("the conversation is in the Messages API's shape", () => {
  const history: Message[] = [
    { role: "user", content: [{ type: "text", text: "file it" }] },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_01x", name: "file_bug_report", input: report }],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_01x",
          content: "Filed: report #1.",
          is_error: false,
        },
      ],
    },
  ];
  const params: MessageParam[] = history; // a compile-time check: tsc refuses this if the shapes part
  assert.equal(params.length, 3);
});

interface Run {
  reports: number;
  final: string;
  modelCalls: number;
  toolCalls: number;
  contents: string[];
}

async function agentRun(o: {
  variant?: VariantName;
  faults?: Record<number, FaultName>;
  keys: KeyStrategy;
  wording: Wording;
  resubmitTitle?: string;
  sampling?: SamplingRetry;
  release?: boolean;
  tool?: Parameters<typeof createHarness>[0]["tool"];
}): Promise<Run> {
  const faults = new Faults(o.faults ?? {});
  const tracker = await startTracker({ variant: o.variant ?? "fenced", faults, leaseMs: 5_000 });
  try {
    const random = seeded(11);
    const harness = createHarness({
      url: tracker.url,
      run: RUN,
      keys: o.keys,
      attempts: 2,
      timeoutMs: 100,
      wording: o.wording,
      random,
      ...(o.tool ? { tool: o.tool } : {}),
    });
    const model = scriptedModel({
      random,
      report,
      ...(o.resubmitTitle ? { resubmitTitle: o.resubmitTitle } : {}),
    });
    const c = await runConversation({
      model,
      harness,
      task: "file it",
      ...(o.sampling ? { breakStream: { call: 1, retry: o.sampling } } : {}),
    });
    if (o.release) {
      faults.release(1);
      await faults.reached(1, "committed");
    }
    return {
      reports: tracker.store.countReports(),
      final: c.final,
      modelCalls: c.modelCalls,
      toolCalls: harness.calls.length,
      contents: harness.calls.map((h) => h.result.content),
    };
  } finally {
    await tracker.close();
  }
}

test("harness layer: a key per HTTP attempt files twice; run_id:tool_use_id files once", async () => {
  const red = await agentRun({
    faults: { 1: "lose-response" },
    keys: "per-attempt",
    wording: "honest",
  });
  assert.equal(red.reports, 2);
  const green = await agentRun({
    faults: { 1: "lose-response" },
    keys: "tool-use",
    wording: "honest",
  });
  assert.equal(green.reports, 1);
  assert.equal(
    green.contents[0],
    'Filed: report #1 ("Login button does nothing").',
    "a replay for the same tool call is a plain success",
  );
});

test("model layer: the tool-call key misses a new tool call; the business key catches it, reworded (422, looked up)", async () => {
  const faults: Record<number, FaultName> = { 1: "lose-response", 2: "drop-request" };
  const red = await agentRun({ faults, keys: "tool-use", wording: "submission-failed" });
  assert.equal(red.reports, 2);
  const green = await agentRun({
    faults,
    keys: "business",
    wording: "submission-failed",
    resubmitTitle: "Login Button does nothing.",
  });
  assert.equal(green.reports, 1);
  assert.match(green.contents[1]!, /^Already filed: report #1 \("Login button does nothing"\)/);
  const verbatim = await agentRun({ faults, keys: "business", wording: "submission-failed" });
  assert.equal(verbatim.reports, 1);
  assert.match(
    verbatim.contents[1]!,
    /^Already filed: report #1/,
    "resent word for word: a replay, recognised as filed before",
  );
  const rewritten = await agentRun({
    faults,
    keys: "business",
    wording: "submission-failed",
    resubmitTitle: "Login button does nothing when clicked",
  });
  assert.equal(rewritten.reports, 2, "new words, new key: the business key's limit");
});

test('wording: "outcome unknown, look it up first" makes the model look and stop', async () => {
  const r = await agentRun({
    faults: { 1: "lose-response", 2: "drop-request" },
    keys: "tool-use",
    wording: "honest",
  });
  assert.equal(r.reports, 1);
  assert.deepEqual(
    r.contents.map((c) => c.split(":")[0]),
    ["Outcome unknown", "Found 1 report in this run"],
  );
  assert.match(r.final, /already exists \(report #1\)/);
});

test("a 422 on the business key while the first request is still running is an unknown outcome, not a success", async () => {
  const r = await agentRun({
    faults: { 1: "slow", 2: "drop-request" },
    keys: "business",
    wording: "submission-failed",
    resubmitTitle: "Login Button does nothing.",
    release: true,
  });
  assert.match(
    r.contents[1]!,
    /^Submission failed: the business key is taken by a request still being filed \(422\)/,
  );
  assert.equal(r.reports, 1, "request 1 stored the only report once released");
});

test("sampling retry: resending the first request runs the tool again; rebuilding from history does not", async () => {
  const snapshot = await agentRun({ keys: "tool-use", wording: "honest", sampling: "snapshot" });
  assert.deepEqual([snapshot.reports, snapshot.modelCalls, snapshot.toolCalls], [2, 3, 2]);
  const history = await agentRun({ keys: "tool-use", wording: "honest", sampling: "history" });
  assert.deepEqual([history.reports, history.modelCalls, history.toolCalls], [1, 2, 1]);
});

test("MCP: the harness resends on a hint only from a trusted server", async () => {
  const hint = { idempotentHint: true, readOnlyHint: false };
  assert.equal(
    mayAutoRetry({ keyed: false, annotations: hint, trustedServer: false }).retry,
    false,
  );
  assert.equal(mayAutoRetry({ keyed: false, annotations: hint, trustedServer: true }).retry, true);
  assert.equal(
    mayAutoRetry({ keyed: false, annotations: { readOnlyHint: true }, trustedServer: true }).retry,
    true,
  );
  assert.equal(
    mayAutoRetry({
      keyed: false,
      annotations: hint,
      trustedServer: false,
      believeUntrustedHints: true,
    }).retry,
    true,
  );
  assert.equal(
    mayAutoRetry({ keyed: false, annotations: {}, trustedServer: true }).retry,
    false,
    "idempotentHint defaults to false",
  );
  assert.equal(mayAutoRetry({ keyed: true, trustedServer: false }).retry, true);
  const believed = await agentRun({
    variant: "naive",
    faults: { 1: "lose-response" },
    keys: "none",
    wording: "honest",
    tool: { annotations: hint, trustedServer: false, believeUntrustedHints: true },
  });
  assert.equal(believed.reports, 2, "the hint was wrong: the naive backend filed twice");
  const ignored = await agentRun({
    variant: "naive",
    faults: { 1: "lose-response" },
    keys: "none",
    wording: "honest",
    tool: { annotations: hint, trustedServer: false },
  });
  assert.equal(ignored.reports, 1);
});
