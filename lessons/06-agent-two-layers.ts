/**
 * @title The agent tried again: two layers of retry
 * @summary The harness retries inside one tool call, the model retries with a new one: a key per
 * tool call misses the second; a business key, honest tool results and a judge catch what they can.
 * @run npm run lesson 6
 * @exercise 06a
 * @exercise 06b
 * @resource openai/codex `codex-rs/core/src/session/turn.rs` (`run_sampling_request`)
 * @resource MCP specification 2025-11-25: `schema/2025-11-25/schema.ts` (ToolAnnotations) and
 * https://modelcontextprotocol.io/specification/2025-11-25/server/tools
 * @resource Anthropic Messages API, tool use: `tool_use` blocks (`id`), `tool_result` blocks
 * (`tool_use_id`, `content`, `is_error`)
 * @resource RFC 9110 §9.2.2: https://www.rfc-editor.org/rfc/rfc9110.html#section-9.2.2
 *
 * What you will see: a scripted agent files one bug report through a harness, against a real
 * tracker and SQLite file, while the key, the tool result's words and the retry layer change.
 */

import {
  agentCases,
  filings,
  samplingTable,
  toolUseKeyTable,
  wordingTable,
} from "../lib/agent/agent-case.ts";
import { businessKeyTable } from "../lib/agent/business-key.ts";
import * as judge from "../lib/agent/judge.ts";
import type { ReportInput } from "../lib/agent/messages.ts";
import { summaryTable } from "../lib/agent/summary.ts";
import { toolsListLines, UNTRUSTED_FILE_TOOL } from "../lib/agent/tool-annotations.ts";
import { lessonSetup } from "../lib/core/cli.ts";
import { t } from "../lib/core/i18n.ts";
import { seeded, uuid } from "../lib/core/random.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import type { FaultName, Faults } from "../lib/tracker/faults.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

// The tracker behind the keyed cases: `fenced`, the correct one (keyed plus a fencing token, lesson
// 05). These cases are about where the key comes from, not about a lease running out: `keyed`
// measures the same.
const VARIANT: VariantName = "fenced";

const { trace, seed, heading } = lessonSetup(import.meta);
const random = seeded(seed);
const scratch = scratchDir();
const started = performance.now();

// The evaluation run this agent belongs to: the harness's id, drawn from the seed.
const RUN = `eval-${uuid(random).slice(0, 8)}`;
const report: ReportInput = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' on /login has no effect.",
  module: "auth",
};
// Scaled down as in lessons 01 and 04: 100 ms per HTTP attempt, at most 2 attempts per tool call.
// A claimed key's lease (2 s) outlasts every case: no lease runs out on its own here.
const runCase = agentCases({
  trace,
  dbPath: scratch.path,
  random,
  run: RUN,
  report,
  variant: VARIANT,
  timeoutMs: 100,
  attempts: 2,
  leaseMs: 2_000,
});
// Request 1 is stored, its answer lost; with GIVE_UP the resend is dropped too: the harness quits.
const LOST: Record<number, FaultName> = { 1: "lose-response" };
const GIVE_UP: Record<number, FaultName> = { 1: "lose-response", 2: "drop-request" };

trace.title(heading);
trace.prose(
  t(
    `A test agent files bug reports. The model asks for a tool with a tool_use block (it has an id);
      the harness turns it into HTTP calls and answers with a tool_result (content and is_error).
      There are two places a retry can come from. The harness resends inside one tool_use when an
      HTTP attempt fails. And when the harness gives up and answers is_error, the model may "try
      again": a new tool_use, with a new id. The model here is scripted, not called: it files again
      when a result says "submission failed", looks the report up first when a result says it "may
      already exist", and stops on success. A real model only leans that way; the script makes the
      lean repeatable, so every count below is measured, not hoped. Evaluation run {run}. Each case
      gets a fresh {variant} tracker and SQLite file; request numbers count arrivals at the tracker,
      and faults are planned by number.`,
    { run: RUN, variant: VARIANT },
  ),
);

trace.section(t("1a · Harness layer: a new key for every HTTP attempt"));
const perAttempt = await runCase("per-attempt", "submission-failed", { faults: LOST });
trace.knows(
  t("a timeout, then a 201 for report 2"),
  t("report 1 was stored; the resend had another key, so it was another operation"),
);
trace.count(perAttempt.reports, 1);

trace.section(t("1b · Harness layer: the key run_id:tool_use_id"));
const perToolUse = await runCase("tool-use", "submission-failed", { faults: LOST });
trace.knows(
  t("a timeout, then a 201 marked Idempotent-Replayed"),
  t("the resend carried the same key; the tracker replayed the stored answer"),
);
trace.count(perToolUse.reports, 1);

trace.section(t("2 · Model layer: the harness gives up, the model files again"));
const modelLayer = await runCase("tool-use", "submission-failed", { faults: GIVE_UP });
trace.knows(
  t('"{content}"', { content: filings(modelLayer)[0]!.result.content }),
  t("report 1 was stored by request 1; the model's second tool_use carried another key"),
);
trace.table(...toolUseKeyTable(RUN, modelLayer));
trace.count(modelLayer.reports, 1);

// The model's second tool_use rewords the title a little, as models do.
trace.section(t("3 · A business key: run, module and normalised title"));
const titles = [
  report.title,
  "Login Button does nothing.",
  "  login button -- does NOTHING!",
  "Login button does nothing when clicked",
];
trace.table(...businessKeyTable(RUN, report.module, titles));
trace.prose(
  t(`The first three name one report; the fourth adds words, and normalising cannot know they change
    nothing. The key is a hash: the tracker takes an Idempotency-Key of at most 255 printable ASCII
    characters (Stripe's rule, which it follows; the IETF draft sets no length limit), a title may
    be longer and in any script, and hashing the three parts as a JSON array keeps ("a:b", "c")
    apart from ("a", "b:c").`),
);
const business = await runCase("business", "submission-failed", {
  faults: GIVE_UP,
  resubmitTitle: "Login Button does nothing.",
});
trace.knows(
  t('"{content}"', { content: filings(business)[1]?.result.content ?? t("no second filing") }),
  t("the second tool_use had the same business key; the tracker refused a second report"),
);
trace.prose(
  t(`Note the 422 on the way. The tracker checks a key's request fingerprint (lesson 04): same key,
    different body means "this key was used for another request". A business key maps several
    wordings of one report to one key on purpose, so for this harness a 422 means "filed before,
    worded differently"; it looks the report up by its normalised title and tells the model it
    already exists. Resent word for word, the same key would have been a plain replay.`),
);
trace.count(business.reports, 1);

trace.section(t("4 · The limit: the model rewrites the title"));
let suspects: judge.Suspect[] = [];
const rewritten = await runCase("business", "submission-failed", {
  faults: GIVE_UP,
  resubmitTitle: "Login button does nothing when clicked",
  // The judge runs on the evaluation side, over the tracker's API, after the agent has stopped.
  after: async (_faults, tracker) => {
    suspects = await judge.judgeTracker(tracker.url);
  },
});
trace.knows(
  t("a 201 for each of two titles"),
  t("one bug, two reports: the second title normalises to another key"),
);
trace.count(rewritten.reports, 1);
trace.prose(
  t(
    `The judge: for each pair of reports in the same run and module, the Jaccard index of the two
      titles' word sets (normalised as above): words in common ÷ words in either. Threshold
      {threshold}: at or above, the pair is flagged as a likely duplicate. Below, the same measure
      beside other titles: short titles share most of their words, so one word changed ("login" to
      "logout") still scores high, and a paraphrase scores low. The judge narrows what a person (or
      a stronger judge) must read; it does not decide.`,
    { threshold: judge.JUDGE_THRESHOLD },
  ),
);
trace.table(...judge.suspectTable(suspects));
const others = [
  ["Login button does nothing when clicked", t("the same bug, reworded (the case above)")],
  ["Logout button does nothing", t("another bug in the same module")],
  ["Login button unresponsive", t("the same bug, paraphrased")],
] as const;
trace.table(...judge.similarityTable(report.title, others));

trace.section(t('5a · The tool result\'s words: "outcome unknown, look it up first"'));
const honest = await runCase("tool-use", "honest", { faults: GIVE_UP });
trace.knows(
  t('"{content}"', { content: filings(honest)[0]!.result.content }),
  t("report 1 existed; the lookup found it and the model stopped"),
);
trace.count(honest.reports, 1);
trace.table(
  ...wordingTable([
    [t("submission failed (section 2)"), modelLayer],
    [t("outcome unknown, look it up first"), honest],
  ]),
);
trace.prose(
  t(`Both are is_error: neither call is known to have succeeded. The difference is in the words, and
    words are all the model reads. Success, a definite failure (the tracker answered and refused:
    nothing was stored, so correcting and filing again is right) and an unknown outcome are three
    different messages (exercise 06b).`),
);

// A lookup is a read, and a read cannot see a request that is still running (lesson 01's third
// truth): request 1 is held at its gate until the model has looked.
trace.section(t("5b · The lookup's blind spot: the first request is still running"));
const releaseFirst = async (faults: Faults): Promise<void> => {
  trace.event("lesson", t("the lesson lets request #1 go on"), "warn");
  faults.release(1);
  await faults.reached(1, "committed");
};
const SLOW: Record<number, FaultName> = { 1: "slow", 2: "drop-request" };
const blindToolUse = await runCase("tool-use", "honest", { faults: SLOW, after: releaseFirst });
trace.knows(
  t("the lookup found nothing, the second filing got a 201"),
  t("request 1 was still running; it stored its report after the lookup"),
);
trace.count(blindToolUse.reports, 1);
// The 409 asks the harness to wait; here the wait is a gate: it resends once request 1 is done.
trace.section(t("5c · The same, with the business key"));
const blindBusiness = await runCase("business", "honest", {
  faults: SLOW,
  maxRetryAfterMs: 0,
  beforeRetry: (faults) => async (_use, _n, last) => {
    if (last.outcome.kind === "response" && last.outcome.status === 409) await releaseFirst(faults);
  },
});
trace.knows(
  t("409 (in progress), then a replayed 201"),
  t("the key was claimed by request 1; its report is the only one"),
);
trace.count(blindBusiness.reports, 1);
trace.prose(
  t(`"Look it up first" stops the model from filing blind, and the business key covers what a lookup
    cannot see. Each misses a case the other catches.`),
);

// The first model call's stream breaks after its tool call ran. Codex's source: conversation.ts.
trace.section(t("6 · Codex: a sampling retry rebuilds the request from history"));
trace.prose(
  t(`Codex's sampling layer (lesson 03) sends one request to the model and reads its answer as a
    stream; when the stream breaks, it sends the model request again. What goes into that second
    request decides whether a tool call runs twice.`),
);
const snapshot = await runCase("tool-use", "honest", {
  label: t("retry 1: resend the request as it was first sent"),
  breakStream: { call: 1, retry: "snapshot" },
});
trace.knows(
  t("the model call failed and was resent as it was"),
  t("the resent request did not hold the tool call that ran; the model asked again"),
);
trace.count(snapshot.reports, 1);
const fromHistory = await runCase("tool-use", "honest", {
  label: t("retry 2: rebuild the request from the history (Codex)"),
  breakStream: { call: 1, retry: "history" },
});
trace.knows(
  t("the model call failed and was retried"),
  t("the retry's input held the tool call and its result; the model saw it done"),
);
trace.count(fromHistory.reports, 1);
trace.table(
  ...samplingTable([
    [t("the request as first sent"), snapshot],
    [t("a request rebuilt from history"), fromHistory],
  ]),
);
const calls = fromHistory.conversation.modelCalls;
trace.prose(
  t(
    `What Codex does: the first model request carries the input it was given. Every retry builds the
      request again from the conversation as it stands. A tool call starts as soon as the model has
      finished asking for it; if the stream then breaks, Codex still waits for the tool calls
      already running and writes their results into the conversation. So the retried request holds
      the calls that already ran and their results, and nothing runs twice. (Source: openai/codex,
      codex-rs/core/src/session/turn.rs.) The difference between the layers: resending a model call
      changes nothing outside; it costs tokens and time ({calls} model calls above where {fewer}
      would have done). Resending a tool call may file another report. Retry the model call freely,
      the tool call only with a key that makes the resend harmless. Codex's reset button (lesson 04)
      makes the same cut: its key is made once, on confirm, and "Try again" sends it again. The key
      is born with the logical attempt, above the retries. An agent's logical attempt, "file this
      report", has no id of its own; the business key gives it one.`,
    { calls, fewer: calls - 1 },
  ),
);

trace.section(t("7 · MCP: idempotentHint: true from an untrusted server"));
trace.line(`  ${t("tools/list, as the untrusted server answers it:")}`);
for (const line of toolsListLines(UNTRUSTED_FILE_TOOL)) trace.line(line);
const hints = UNTRUSTED_FILE_TOOL.annotations!;
const mcpCase = (label: string, believeUntrustedHints: boolean) =>
  runCase("none", "honest", {
    label,
    variant: "naive",
    faults: LOST,
    tool: { annotations: hints, trustedServer: false, believeUntrustedHints },
  });
const believing = await mcpCase(t("harness 1 believes the hint, whoever sent it"), true);
trace.knows(
  t("a timeout, then a 201 after a resend the hint allowed"),
  t("the tool was not idempotent: the resend filed the report again"),
);
trace.count(believing.reports, 1);
const ignoring = await mcpCase(t("harness 2 ignores hints from servers it does not trust"), false);
trace.knows(
  t('a timeout; no resend; "outcome unknown"'),
  t("the model looked the report up, found it, and stopped"),
);
trace.count(ignoring.reports, 1);
// Read at modelcontextprotocol/modelcontextprotocol @ b0f60ba5; the tools page's warning is in the
// 2025-03-26 (L188-189), 2025-06-18, 2025-11-25 and 2026-07-28 versions.
trace.prose(
  t(`What the MCP specification says (schema/2025-11-25/schema.ts, ToolAnnotations): idempotentHint:
    "If true, calling the tool repeatedly with the same arguments will have no additional effect on
    its environment." It is meaningful only when readOnlyHint is false, and false by default. Of all
    annotations: "Clients should never make tool use decisions based on ToolAnnotations received
    from untrusted servers." The tools page makes it a MUST: "clients **MUST** consider tool
    annotations to be untrusted unless they come from trusted servers." Both texts have stood since
    2025-03-26, the version that introduced annotations, and are unchanged in 2026-07-28. So the
    harness resends a tool call on its own only with "some means to know" (RFC 9110 §9.2.2): a key
    the server honours, or a hint from a server it trusts by its own configuration. Otherwise one
    attempt, and words that tell the model what is not known.`),
);

// Every number below was counted in this run's SQLite files (the judge's, in its flagged pairs).
trace.section(t("Lesson 06, as measured in this run"));
trace.table(
  ...summaryTable({
    harness: { perAttempt, perToolUse },
    model: { modelLayer, business, rewritten, suspects },
    lookup: { honest, blindToolUse, blindBusiness },
    sampling: { snapshot, fromHistory },
    mcp: { believing, ignoring },
  }),
);
trace.prose(
  t(
    `Two layers retry: the harness inside one tool call (a key from the tool call is enough there),
      the model with a new tool call (only a key from the report's content reaches it). Tell the
      model what is known: unknown is not failed. Nothing recognises a rewritten title but a judge
      after the fact. Retrying a model call is cheap; retrying a tool call needs a key. Exercises
      06a and 06b: npm run check 6. (This run took {ms} ms.)`,
    { ms: Math.round(performance.now() - started) },
  ),
);

scratch.remove();
