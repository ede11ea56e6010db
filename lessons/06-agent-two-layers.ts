/**
 * @title The agent tried again: two layers of retry
 * @summary The harness retries inside one tool call, the model retries with a new one: a key per tool call misses the second; a business key, honest tool results and a judge catch what they can.
 * @run npm run lesson 6
 * @exercise 06a
 * @exercise 06b
 * @resource openai/codex `codex-rs/core/src/session/turn.rs` (`run_sampling_request`, `try_run_sampling_request`, `drain_in_flight`)
 * @resource openai/codex `codex-rs/app-server-protocol/src/protocol/v2/account.rs`, `codex-rs/tui/src/chatwidget/usage.rs`, `codex-rs/tui/src/chatwidget/tests/usage.rs`
 * @resource MCP specification 2025-11-25: `schema/2025-11-25/schema.ts` (ToolAnnotations) and https://modelcontextprotocol.io/specification/2025-11-25/server/tools
 * @resource Anthropic Messages API, tool use: `tool_use` blocks with an `id`, `tool_result` blocks with `tool_use_id`, `content`, `is_error` (@anthropic-ai/sdk `resources/messages/messages.d.ts`)
 * @resource RFC 9110 §9.2.2 Idempotent Methods: https://www.rfc-editor.org/rfc/rfc9110.html#section-9.2.2
 *
 * What you will see: a scripted test agent (rules, no model is called) files one bug report through
 * a harness that turns each `tool_use` into HTTP calls to a real tracker over loopback, backed by a
 * real SQLite file. The harness retries inside one tool call: with a new key per HTTP attempt, 2
 * reports; with the key `run_id:tool_use_id`, 1. Then the harness gives up and the model files again
 * as a new tool call: 2. A business key
 * (run, module, normalised title) recognises it: 1. The model rewrites the title: 2, and only a
 * judge over the stored reports notices. A tool result that says "outcome unknown … look it up
 * first" instead of "submission failed": 1, unless the first request is still running. Codex's
 * sampling retry, rebuilt from history: 1 beside 2. An MCP tool that says `idempotentHint: true`.
 */

import { businessKey, normalizeTitle, toolUseKey } from "../lib/agent/business-key.ts";
import {
  type ConversationOptions,
  type ConversationResult,
  runConversation,
} from "../lib/agent/conversation.ts";
import {
  createHarness,
  type HandledCall,
  type HarnessOptions,
  type KeyStrategy,
  type Wording,
} from "../lib/agent/harness.ts";
import { JUDGE_THRESHOLD, judgeDuplicates, titleSimilarity } from "../lib/agent/judge.ts";
import { type Message, type ReportInput, textOf, toolUsesOf } from "../lib/agent/messages.ts";
import { scriptedModel } from "../lib/agent/scripted-model.ts";
import type { McpTool } from "../lib/agent/tool-annotations.ts";
import { httpCall } from "../lib/client/client.ts";
import { lessonSetup } from "../lib/core/cli.ts";
import { nowMs } from "../lib/core/clock.ts";
import { seeded, uuid } from "../lib/core/random.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import { type FaultName, Faults } from "../lib/tracker/faults.ts";
import { serverLog } from "../lib/tracker/narrate.ts";
import { startTracker, type Tracker } from "../lib/tracker/service.ts";
import type { Report } from "../lib/tracker/store.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

// The tracker behind the keyed cases: `fenced`, the correct one (keyed plus a fencing token, lesson
// 05). Nothing here depends on the fence: these cases are about where the key comes from, not about a
// lease running out, and `keyed` measures the same.
const VARIANT: VariantName = "fenced";

const { trace, seed, heading } = lessonSetup(import.meta);
const random = seeded(seed);
const scratch = scratchDir();
const started = performance.now();

// Scaled down as in lessons 01 and 04: the harness waits 100 ms per HTTP attempt and makes at most 2
// attempts per tool call (its retry budget). A claimed key's lease lasts 2 s, far longer than any
// case here needs, so no lease runs out on its own; the trackers run on the lesson's clock (nowMs),
// which stands still while --step pauses.
const TIMEOUT_MS = 100;
const HARNESS_ATTEMPTS = 2;
const LEASE_MS = 2_000;
// The evaluation run this agent belongs to: the harness's id, drawn from the seed.
const RUN = `eval-${uuid(random).slice(0, 8)}`;
const report: ReportInput = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' on /login has no effect.",
  module: "auth",
};
const TASK = `You are testing the web app (evaluation run ${RUN}). File a bug report for what you found: "${report.title}" in module ${report.module}.`;

trace.title(heading);
trace.prose(`A test agent files bug reports. The model asks for a tool with a tool_use block (it has an id); the
  harness turns it into HTTP calls and answers with a tool_result (content and is_error). There are two
  places a retry can come from. The harness resends inside one tool_use when an HTTP attempt fails. And
  when the harness gives up and answers is_error, the model may "try again": a new tool_use, with a new id.
  The model here is scripted, not called: it files again when a result says "submission failed", looks the
  report up first when a result says it "may already exist", and stops on success. A real model only leans
  that way; the script makes the lean repeatable, so every count below is measured, not hoped.`);
trace.prose(`Evaluation run ${RUN}. Each case gets a fresh ${VARIANT} tracker and SQLite file; request numbers count
  arrivals at the tracker, and faults are planned by number.`);

/** One row of the closing table per case, filled in as the cases run. */
const summary: string[][] = [];

interface CaseSpec {
  name: string;
  /** Said first, when a section runs more than one case. */
  label?: string;
  variant?: VariantName;
  faults?: Record<number, FaultName>;
  keys: KeyStrategy;
  wording: Wording;
  resubmitTitle?: string;
  tool?: HarnessOptions["tool"];
  maxRetryAfterMs?: number;
  breakStream?: ConversationOptions["breakStream"];
  /** A gate before each resend inside one tool call. */
  beforeRetry?: (faults: Faults) => HarnessOptions["beforeRetry"];
  /** After the model has stopped, before the reports are counted. */
  after?: (faults: Faults, tracker: Tracker) => Promise<void>;
}

interface CaseResult {
  reports: number;
  stored: Report[];
  calls: readonly HandledCall[];
  conversation: ConversationResult;
}

// Every case: a tracker, a harness with a key strategy, a scripted model, one conversation. The count
// is read from the tracker's SQLite file after the conversation (and any held request) has ended.
async function runCase(spec: CaseSpec): Promise<CaseResult> {
  if (spec.label) trace.event("lesson", spec.label);
  const faults = new Faults(spec.faults ?? {});
  const tracker = await startTracker({
    variant: spec.variant ?? VARIANT,
    db: scratch.path(`${spec.name}.sqlite`),
    faults,
    leaseMs: LEASE_MS,
    now: nowMs,
    onEvent: serverLog(trace),
  });
  try {
    const beforeRetry = spec.beforeRetry?.(faults);
    const harness = createHarness({
      url: tracker.url,
      run: RUN,
      keys: spec.keys,
      attempts: HARNESS_ATTEMPTS,
      timeoutMs: TIMEOUT_MS,
      wording: spec.wording,
      random,
      ...(spec.tool ? { tool: spec.tool } : {}),
      ...(spec.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: spec.maxRetryAfterMs } : {}),
      ...(beforeRetry ? { beforeRetry } : {}),
      log: (text, mark) => trace.event("harness", text, mark),
    });
    const model = scriptedModel({
      random,
      report,
      ...(spec.resubmitTitle !== undefined ? { resubmitTitle: spec.resubmitTitle } : {}),
    });
    const conversation = await runConversation({
      model,
      harness,
      task: TASK,
      ...(spec.breakStream ? { breakStream: spec.breakStream } : {}),
      log: (actor, text, mark) => trace.event(actor, text, mark),
    });
    await spec.after?.(faults, tracker);
    return {
      reports: tracker.store.countReports(),
      stored: tracker.store.listReports(),
      calls: harness.calls,
      conversation,
    };
  } finally {
    await tracker.close();
  }
}

const fileCalls = (r: CaseResult): HandledCall[] =>
  r.calls.filter((c) => c.toolUse.name === "file_bug_report");
/** What the model did right after its first tool result, in a few words. */
function nextMove(r: CaseResult): string {
  const history: Message[] = r.conversation.history;
  const firstResult = history.findIndex(
    (m) => m.role === "user" && m.content.some((b) => b.type === "tool_result"),
  );
  const after = history[firstResult + 1];
  if (!after) return "nothing";
  const use = toolUsesOf(after)[0];
  return use
    ? `${use.name === "file_bug_report" ? "files again" : "looks it up"} (new tool_use ${use.id.slice(0, 12)}…)`
    : `stops: "${textOf(after)}"`;
}

// ## 1. The harness layer: one tool call, a lost answer, a resend
// The tracker commits report 1, then the answer is lost; the harness waits 100 ms and resends. What
// the resend carries decides the count. A harness that makes its key per HTTP attempt (a fresh UUID
// each time, lesson 04's classic mistake) files twice. A harness that derives its key from the tool
// call, `run_id:tool_use_id`, sends the same key twice, and the tracker replays its stored 201.
trace.section("1a · Harness layer: a new key for every HTTP attempt");
const perAttempt = await runCase({
  name: "harness-per-attempt",
  faults: { 1: "lose-response" },
  keys: "per-attempt",
  wording: "submission-failed",
});
trace.knows(
  "a timeout, then a 201 for report 2",
  "report 1 was stored; the resend had another key, so it was another operation",
);
trace.count(perAttempt.reports, 1);

trace.section("1b · Harness layer: the key run_id:tool_use_id");
const perToolUse = await runCase({
  name: "harness-tool-use",
  faults: { 1: "lose-response" },
  keys: "tool-use",
  wording: "submission-failed",
});
trace.knows(
  "a timeout, then a 201 marked Idempotent-Replayed",
  "the resend carried the same key; the tracker replayed the stored answer",
);
trace.count(perToolUse.reports, 1);
summary.push(
  ["harness retry, key per HTTP attempt", "a UUID per attempt", String(perAttempt.reports)],
  ["harness retry, key run_id:tool_use_id", "the tool call", String(perToolUse.reports)],
);

// ## 2. The model layer: the harness gives up, the model files again
// Now the resend fails too (request 2 is dropped before any handler runs), and the harness's budget
// of 2 attempts is spent. It answers is_error with the words most harnesses use, "submission
// failed". The scripted model files again: a new tool_use, a new id, so a new `run_id:tool_use_id`.
// The tracker sees a new key, and report 1 (committed by request 1) gets a twin.
trace.section("2 · Model layer: the harness gives up, the model files again");
// The plan for every case where the harness gives up: request 1 is stored and its answer lost, the
// harness's resend (request 2) is dropped before any handler runs, and its 2 attempts are spent.
const GIVE_UP: Record<number, FaultName> = { 1: "lose-response", 2: "drop-request" };
const modelLayer = await runCase({
  name: "model-tool-use",
  faults: GIVE_UP,
  keys: "tool-use",
  wording: "submission-failed",
});
const [firstFiling] = fileCalls(modelLayer);
trace.knows(
  `"${firstFiling!.result.content}"`,
  "report 1 was stored by request 1; the model's second tool_use carried another key",
);
trace.table(
  ["tool_use", "Idempotency-Key the harness sent (run_id:tool_use_id)"],
  fileCalls(modelLayer).map((c) => [
    `${c.toolUse.id.slice(0, 16)}…`,
    toolUseKey(RUN, c.toolUse.id),
  ]),
);
trace.count(modelLayer.reports, 1);
summary.push([
  "model files again, key run_id:tool_use_id",
  "the tool call",
  String(modelLayer.reports),
]);

// ## 3. A business key
// The report has an identity of its own, whichever tool call carries it: this evaluation run, this
// module, this title. The harness hashes the three (after normalising the module and title as the
// tracker's `GET /reports?title=` does: case, punctuation, white space) into the key. The model's
// second tool_use rewords the title a little, as models do, and still lands on the same key.
trace.section("3 · A business key: run, module and normalised title");
const variants = [
  report.title,
  "Login Button does nothing.",
  "  login button -- does NOTHING!",
  "Login button does nothing when clicked",
];
trace.table(
  ["title as the model wrote it", "normalised", `businessKey("${RUN}", "auth", title)`],
  variants.map((t) => [
    JSON.stringify(t),
    normalizeTitle(t),
    `${businessKey(RUN, "auth", t).slice(0, 20)}…`,
  ]),
);
trace.prose(`The first three name one report; the fourth adds words, and normalising cannot know they change nothing.
  The key is a hash: the tracker takes an Idempotency-Key of at most 255 printable ASCII characters (Stripe's
  rule, which it follows; the IETF draft sets no length limit), a title may be longer and in any script, and
  hashing the three parts as a JSON array keeps ("a:b", "c") apart from ("a", "b:c").`);
const business = await runCase({
  name: "model-business",
  faults: GIVE_UP,
  keys: "business",
  wording: "submission-failed",
  resubmitTitle: "Login Button does nothing.",
});
const businessSecond = fileCalls(business)[1];
trace.knows(
  `"${businessSecond?.result.content ?? "no second filing"}"`,
  "the second tool_use had the same business key; the tracker refused a second report",
);
trace.prose(`Note the 422 on the way. The tracker checks a key's request fingerprint (lesson 04): same key, different
  body means "this key was used for another request". A business key maps several wordings of one report
  to one key on purpose, so for this harness a 422 means "filed before, worded differently"; it looks the
  report up by its normalised title and tells the model it already exists. Resent word for word, the same
  key would have been a plain replay.`);
trace.count(business.reports, 1);
summary.push(["model files again, business key", "run + module + title", String(business.reports)]);

// ## 4. The limit: the model rewrites the title
// A model asked to "try again" may improve the title. New words are a new normalised title, a new key,
// a new report: the business key cannot know that "when clicked" changes nothing. What is left is the
// evaluation side: after the run, a judge compares the stored reports of one run and module.
trace.section("4 · The limit: the model rewrites the title");
let suspects: ReturnType<typeof judgeDuplicates> = [];
const rewritten = await runCase({
  name: "model-business-rewrite",
  faults: GIVE_UP,
  keys: "business",
  wording: "submission-failed",
  resubmitTitle: "Login button does nothing when clicked",
  // The judge runs on the evaluation side, over the tracker's API, after the agent has stopped.
  after: async (_faults, tracker) => {
    const listed = await httpCall({
      method: "GET",
      url: `${tracker.url}/reports`,
      timeoutMs: 5_000,
    });
    suspects =
      listed.kind === "response" && Array.isArray(listed.body)
        ? judgeDuplicates(listed.body as Report[])
        : [];
  },
});
trace.knows(
  "two 201s, for two titles",
  "one bug, two reports: the second title normalises to another key",
);
trace.count(rewritten.reports, 1);
trace.prose(`The judge: for each pair of reports in the same run and module, the Jaccard index of the two titles'
  word sets (normalised as above): words in common ÷ words in either. Threshold ${JUDGE_THRESHOLD}: at or above, the
  pair is flagged as a likely duplicate.`);
trace.table(
  ["flagged pair", "similarity"],
  suspects.length === 0
    ? [["none", "-"]]
    : suspects.map((s) => [
        `#${s.first.id} "${s.first.title}" / #${s.second.id} "${s.second.title}"`,
        s.similarity.toFixed(2),
      ]),
);
// What the same measure does with other titles beside the first: it is wrong both ways, which is why
// a flag is a suspect for review and not a verdict.
const others: Array<[string, string]> = [
  ["Login button does nothing when clicked", "the same bug, reworded (the case above)"],
  ["Logout button does nothing", "another bug in the same module"],
  ["Login button unresponsive", "the same bug, paraphrased"],
];
trace.table(
  [`"${report.title}" beside`, "really", "similarity", `flagged (≥ ${JUDGE_THRESHOLD})`],
  others.map(([t, really]) => {
    const s = titleSimilarity(report.title, t);
    return [JSON.stringify(t), really, s.toFixed(2), s >= JUDGE_THRESHOLD ? "yes" : "no"];
  }),
);
trace.prose(`Short titles share most of their words: one word changed ("login" to "logout") still scores high, and a
  paraphrase scores low. The judge narrows what a person (or a stronger judge) must read; it does not decide.`);
summary.push([
  "model rewrites the title, business key",
  "run + module + title",
  String(rewritten.reports),
]);
summary.push([
  "  judge over the stored reports",
  `Jaccard ≥ ${JUDGE_THRESHOLD}`,
  `${suspects.length} pair flagged`,
]);

// ## 5. The words of the tool result
// Section 2 again, with one change: the harness says what it knows. It does not know the report is
// missing; it knows it heard nothing. So the tool result says "outcome unknown", that the report may
// already exist, and where to look. The scripted model, reading that, calls find_reports first.
trace.section('5a · The tool result\'s words: "outcome unknown, look it up first"');
const honest = await runCase({
  name: "wording-honest",
  faults: GIVE_UP,
  keys: "tool-use",
  wording: "honest",
});
trace.knows(
  `"${fileCalls(honest)[0]!.result.content}"`,
  "report 1 existed; the lookup found it and the model stopped",
);
trace.count(honest.reports, 1);
trace.table(
  ["harness says", "is_error", "the model then", "reports"],
  [
    [
      "submission failed (section 2)",
      String(firstFiling!.result.is_error),
      nextMove(modelLayer),
      String(modelLayer.reports),
    ],
    [
      "outcome unknown, look it up first",
      String(fileCalls(honest)[0]!.result.is_error),
      nextMove(honest),
      String(honest.reports),
    ],
  ],
);
trace.prose(`Both are is_error: neither call is known to have succeeded. The difference is in the words, and words are
  all the model reads. Success, a definite failure (the tracker answered and refused: nothing was stored, so
  correcting and filing again is right) and an unknown outcome are three different messages (exercise 06b).`);
summary.push([
  "tool result says unknown: the model looks first",
  "the tool call",
  String(honest.reports),
]);

// A lookup is a read, and a read cannot see a request that is still running (lesson 01's third
// truth). Request 1 is held at its gate: it has arrived, the handler has not stored the report yet.
// The harness gives up, the model looks, finds nothing, and files again. Then request 1 finishes.
trace.section("5b · The lookup's blind spot: the first request is still running");
const releaseFirst = async (faults: Faults): Promise<void> => {
  trace.event("lesson", "the lesson lets request #1 go on", "warn");
  faults.release(1);
  await faults.reached(1, "committed");
};
const blindToolUse = await runCase({
  name: "blind-tool-use",
  faults: { 1: "slow", 2: "drop-request" },
  keys: "tool-use",
  wording: "honest",
  after: releaseFirst,
});
trace.knows(
  "the lookup found nothing, the second filing got a 201",
  "request 1 was still running; it stored its report after the lookup",
);
trace.count(blindToolUse.reports, 1);
// The same, with the business key: the model's second tool_use carries the key request 1 claimed, so
// the tracker answers 409 (in progress). The harness waits (here at a gate: the lesson lets request 1
// finish first) and resends the same key: the stored answer is replayed.
trace.section("5c · The same, with the business key");
const blindBusiness = await runCase({
  name: "blind-business",
  faults: { 1: "slow", 2: "drop-request" },
  keys: "business",
  wording: "honest",
  maxRetryAfterMs: 0,
  beforeRetry: (faults) => async (_use, _n, last) => {
    if (last.outcome.kind === "response" && last.outcome.status === 409) await releaseFirst(faults);
  },
});
trace.knows(
  "409 (in progress), then a replayed 201",
  "the key was claimed by request 1; its report is the only one",
);
trace.count(blindBusiness.reports, 1);
trace.prose(`"Look it up first" stops the model from filing blind, and the business key covers what a lookup cannot
  see. Each misses a case the other catches.`);
summary.push([
  "still being filed: lookup, tool-call key",
  "the tool call",
  String(blindToolUse.reports),
]);
summary.push([
  "still being filed: lookup, business key",
  "run + module + title",
  String(blindBusiness.reports),
]);

// ## 6. Codex: retrying the model call, not the tool call
// A model call can fail too: the stream breaks before the response completes. Codex retries it (its
// sampling layer, lesson 03). Here the first model call's stream breaks after its tool_use arrived
// and the harness ran it: report 1 is filed. Then the model call is retried, two ways.
trace.section("6 · Codex: a sampling retry rebuilds the request from history");
trace.prose(`Codex's sampling layer (lesson 03) sends one request to the model and reads its answer as a stream;
  when the stream breaks, it sends the model request again. What goes into that second request decides
  whether a tool call runs twice.`);
const snapshot = await runCase({
  name: "sampling-snapshot",
  label: "retry 1: resend the request as it was first sent",
  keys: "tool-use",
  wording: "honest",
  breakStream: { call: 1, retry: "snapshot" },
});
trace.knows(
  "the model call failed and was resent as it was",
  "the resent request did not hold the tool call that ran; the model asked again",
);
trace.count(snapshot.reports, 1);
const fromHistory = await runCase({
  name: "sampling-history",
  label: "retry 2: rebuild the request from the history (Codex)",
  keys: "tool-use",
  wording: "honest",
  breakStream: { call: 1, retry: "history" },
});
trace.knows(
  "the model call failed and was retried",
  "the retry's input held the tool call and its result; the model saw it done",
);
trace.count(fromHistory.reports, 1);
trace.table(
  ["sampling retry sends", "model calls", "tool calls run", "reports"],
  [
    [
      "the request as first sent",
      String(snapshot.conversation.modelCalls),
      String(snapshot.calls.length),
      String(snapshot.reports),
    ],
    [
      "a request rebuilt from history",
      String(fromHistory.conversation.modelCalls),
      String(fromHistory.calls.length),
      String(fromHistory.reports),
    ],
  ],
);
// Sources (openai/codex @ 553376ff, codex-rs/core/src/session/turn.rs): `run_sampling_request` sends
// the input it was given on the first attempt and, on every retry, rebuilds it from the session's
// history (`sess.clone_history().await.for_prompt(…)`). In `try_run_sampling_request` a tool call
// starts as soon as its item is done (`handle_output_item_done` hands back a `tool_future`); when the
// stream then fails, `drain_in_flight` still awaits the calls in flight and records each output with
// `record_conversation_items`. The retry logs "stream disconnected - retrying sampling request
// ({retries}/{max_retries} in {delay:?})..."; `report_error = retries > 1 || cfg!(debug_assertions) ||
// !responses_websocket_enabled()` decides whether the UI shows "Reconnecting... {retries}/{max_retries}",
// and a fall-back from WebSocket to HTTPS sets `retries = 0`.
trace.prose(`What Codex does: the first model request carries the input it was given. Every retry builds the
  request again from the conversation as it stands. A tool call starts as soon as the model has finished
  asking for it; if the stream then breaks, Codex still waits for the tool calls already running and writes
  their results into the conversation. So the retried request holds the calls that already ran and their
  results, and nothing runs twice. The user may see "Reconnecting… n/m" meanwhile, though only from the
  second retry on, in a debug build, or when the WebSocket transport is off; and a fall-back from WebSocket
  to HTTPS starts the count again. (Source: openai/codex, codex-rs/core/src/session/turn.rs.)`);
trace.prose(`The difference between the layers: resending a model call changes nothing outside; it costs tokens and
  time (${fromHistory.conversation.modelCalls} model calls above where ${fromHistory.conversation.modelCalls - 1} would have done). Resending a tool call may file another report.
  Retry the model call freely, the tool call only with a key that makes the resend harmless.`);
// Codex's reset button (lesson 04 ran it): one key per logical attempt, made where the attempt begins,
// above every layer that may repeat it, including a person pressing "Try again".
// Sources: codex-rs/tui/src/chatwidget/usage.rs @ df9d29d6 (`Uuid::new_v4()`, the variable still named
// `redeem_request_id`; a fork's mirror of a newer layout asks "Use this reset?" / "Yes, use reset");
// codex-rs/app-server-protocol/src/protocol/v2/account.rs @ 9d82478f
// (`ConsumeAccountRateLimitResetCreditParams { idempotency_key }`, the outcome `AlreadyRedeemed`; the TUI
// counts `Reset | AlreadyRedeemed` as success); the test `rate_limit_reset_retry_reuses_idempotency_key`
// in codex-rs/tui/src/chatwidget/tests/usage.rs @ 08c3e590 asserts the key survives Err("response lost").
trace.prose(`Codex's own consuming action makes the same cut. Its terminal UI offers "Use a reset" ("Reset your
  current Codex usage windows."); on confirm it makes one random key (a UUID). After an error, "Couldn't reset
  usage. Please try again." offers "Try again", which sends the same key. The protocol documents the field:
  "Identifies one logical reset attempt. A UUID is recommended; reuse the same value when retrying that
  attempt." An answer that says the key "already completed a reset successfully" counts as success, and a
  test checks that the key survives a lost response. (Sources: openai/codex, codex-rs/tui/src/chatwidget/usage.rs
  and codex-rs/app-server-protocol/src/protocol/v2/account.rs.) The key is born with the logical attempt,
  above the retries. An agent's logical attempt, "file this report", has no id of its own; the business key
  gives it one.`);
summary.push([
  "sampling retry resends the first request",
  "the tool call",
  String(snapshot.reports),
]);
summary.push([
  "sampling retry rebuilt from history (Codex)",
  "the tool call",
  String(fromHistory.reports),
]);

// ## 7. MCP: a hint from an untrusted server
// The tool now comes from an MCP server the harness does not trust. Its `tools/list` entry says the
// tool is idempotent. Behind it is a backend that files a report on every call and takes no key (the
// naive tracker): the hint is wrong, and nothing in the protocol checks it.
trace.section("7 · MCP: idempotentHint: true from an untrusted server");
const mcpTool: McpTool = {
  name: "file_bug_report",
  description: "File a bug report in the tracker.",
  inputSchema: {
    type: "object",
    properties: { title: { type: "string" }, body: { type: "string" }, module: { type: "string" } },
    required: ["title"],
  },
  annotations: {
    title: "File a bug report",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
};
trace.line("  tools/list, as the untrusted server answers it:");
trace.line('    {"tools": [{');
const fields = Object.entries(mcpTool);
for (const [i, [k, v]] of fields.entries())
  trace.line(`      ${JSON.stringify(k)}: ${JSON.stringify(v)}${i < fields.length - 1 ? "," : ""}`);
trace.line("    }]}");
// Both harnesses call the same server, which answers through the naive tracker; they differ only in
// what they make of its hint. Request 1 is stored and its answer lost.
const mcpCase = (
  name: string,
  label: string,
  believeUntrustedHints: boolean,
): Promise<CaseResult> =>
  runCase({
    name,
    label,
    variant: "naive",
    faults: { 1: "lose-response" },
    keys: "none",
    wording: "honest",
    tool: { annotations: mcpTool.annotations!, trustedServer: false, believeUntrustedHints },
  });
const believing = await mcpCase(
  "mcp-believe",
  "harness 1 believes the hint, whoever sent it",
  true,
);
trace.knows(
  "a timeout, then a 201 after a resend the hint allowed",
  "the tool was not idempotent: the resend filed the report again",
);
trace.count(believing.reports, 1);
const notBelieving = await mcpCase(
  "mcp-untrusted",
  "harness 2 ignores hints from servers it does not trust",
  false,
);
trace.knows(
  'a timeout; no resend; "outcome unknown"',
  "the model looked the report up, found it, and stopped",
);
trace.count(notBelieving.reports, 1);
// Read at modelcontextprotocol/modelcontextprotocol @ b0f60ba5; the tools page's warning is in the
// 2025-03-26 (L188-189), 2025-06-18, 2025-11-25 and 2026-07-28 versions.
trace.prose(`What the MCP specification says (modelcontextprotocol/modelcontextprotocol, schema/2025-11-25/schema.ts,
  ToolAnnotations): idempotentHint: "If true, calling the tool repeatedly with the same arguments will have no
  additional effect on its environment." "(This property is meaningful only when \`readOnlyHint == false\`)"
  "Default: false". And of all annotations: "NOTE: all properties in ToolAnnotations are **hints**. They are not
  guaranteed to provide a faithful description of tool behavior (including descriptive properties like \`title\`)."
  "Clients should never make tool use decisions based on ToolAnnotations received from untrusted servers." The
  tools page (docs/specification/2025-11-25/server/tools.mdx) makes it a MUST: "For trust & safety and security,
  clients **MUST** consider tool annotations to be untrusted unless they come from trusted servers." Both texts
  have stood since 2025-03-26, the version that introduced annotations, and are unchanged in 2026-07-28.`);
trace.prose(`So the harness resends a tool call on its own only with "some means to know" (RFC 9110 §9.2.2): a key the
  server honours, or a hint from a server it trusts by its own configuration. Otherwise one attempt, and words
  that tell the model what is not known.`);
summary.push(["MCP idempotentHint believed, no key", "none (the hint)", String(believing.reports)]);
summary.push(["MCP hint from an untrusted server ignored", "none", String(notBelieving.reports)]);

// ## Measured
// Every number below was counted in this run's SQLite files (the judge's, in its flagged pairs).
trace.section("Lesson 06, as measured in this run");
trace.table(["case", "the key comes from", "reports (one bug: 1)"], summary);
trace.prose(`Two layers retry: the harness inside one tool call (a key from the tool call is enough there), the model
  with a new tool call (only a key from the report's content reaches it). Tell the model what is known: unknown
  is not failed. Nothing recognises a rewritten title but a judge after the fact. Retrying a model call is cheap;
  retrying a tool call needs a key. Exercises 06a and 06b: npm run check 6. (This run took
  ${Math.round(performance.now() - started)} ms.)`);

scratch.remove();
