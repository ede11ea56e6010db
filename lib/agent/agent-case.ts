/**
 * One case of lesson 06, from start to count: a fresh tracker on its own SQLite file (its faults
 * planned by request number), a harness with a key strategy and a wording, the scripted model, one
 * conversation; then the reports, read from the tracker's file once the conversation (and any
 * request the case held back) has ended. Every actor's steps go to the trace.
 */
import { nowMs } from "../core/clock.ts";
import { t } from "../core/i18n.ts";
import type { Random } from "../core/random.ts";
import type { Trace } from "../core/trace.ts";
import { type FaultName, Faults } from "../tracker/faults.ts";
import { serverLog } from "../tracker/narrate.ts";
import { startTracker, type Tracker } from "../tracker/service.ts";
import type { Report } from "../tracker/store.ts";
import type { VariantName } from "../tracker/variant.ts";
import { toolUseKey } from "./business-key.ts";
import {
  type ConversationOptions,
  type ConversationResult,
  runConversation,
} from "./conversation.ts";
import {
  createHarness,
  type HandledCall,
  type HarnessOptions,
  type KeyStrategy,
  type Wording,
} from "./harness.ts";
import { type Message, type ReportInput, textOf, toolUsesOf } from "./messages.ts";
import { scriptedModel } from "./scripted-model.ts";

/** What every case of a lesson shares. */
export interface AgentSetup {
  trace: Trace;
  /** Where a case's SQLite file goes, from its name ("case-1.sqlite"…). */
  dbPath: (file: string) => string;
  /** Draws the harness's keys and the model's tool_use ids: the same seed, the same conversation. */
  random: Random;
  /** The evaluation run's id. */
  run: string;
  /** The report the model is asked to file. */
  report: ReportInput;
  /** The tracker behind a case that names none. */
  variant: VariantName;
  /** How long one HTTP attempt waits for an answer. */
  timeoutMs: number;
  /** HTTP attempts per tool call, the first included (the harness's retry budget). */
  attempts: number;
  /** How long a claimed key's lease lasts. */
  leaseMs: number;
}

/** What else sets one case apart, beside its keys and its words. */
export interface AgentCase {
  /** Said first, when a section runs more than one case. */
  label?: string;
  variant?: VariantName;
  /** Faults by request number, as the tracker counts arrivals. */
  faults?: Record<number, FaultName>;
  /** The title the model uses when it files again. */
  resubmitTitle?: string;
  tool?: HarnessOptions["tool"];
  maxRetryAfterMs?: number;
  breakStream?: ConversationOptions["breakStream"];
  /** A gate before each resend inside one tool call. */
  beforeRetry?: (faults: Faults) => HarnessOptions["beforeRetry"];
  /** After the model has stopped, before the reports are counted. */
  after?: (faults: Faults, tracker: Tracker) => Promise<void>;
}

export interface AgentCaseResult {
  /** Reports in the tracker's file at the end. */
  reports: number;
  stored: Report[];
  /** Every tool call the harness handled, in order. */
  calls: readonly HandledCall[];
  conversation: ConversationResult;
}

/** Runs one case: where the harness's key comes from, how it words a result, and what else differs. */
export type RunAgentCase = (
  keys: KeyStrategy,
  wording: Wording,
  spec?: AgentCase,
) => Promise<AgentCaseResult>;

/** A function that runs one case with `setup`, on a tracker it starts and closes. */
export function agentCases(setup: AgentSetup): RunAgentCase {
  const { trace, random } = setup;
  let cases = 0;
  return async (keys, wording, spec = {}) => {
    cases += 1;
    if (spec.label) trace.event("lesson", spec.label);
    const faults = new Faults(spec.faults ?? {});
    const tracker = await startTracker({
      variant: spec.variant ?? setup.variant,
      db: setup.dbPath(`case-${cases}.sqlite`),
      faults,
      leaseMs: setup.leaseMs,
      // The lesson's clock, which stands still while --step pauses: no lease runs out meanwhile.
      now: nowMs,
      onEvent: serverLog(trace),
    });
    try {
      const beforeRetry = spec.beforeRetry?.(faults);
      const harness = createHarness({
        url: tracker.url,
        run: setup.run,
        keys,
        attempts: setup.attempts,
        timeoutMs: setup.timeoutMs,
        wording,
        random,
        ...(spec.tool ? { tool: spec.tool } : {}),
        ...(spec.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: spec.maxRetryAfterMs } : {}),
        ...(beforeRetry ? { beforeRetry } : {}),
        log: (text, mark) => trace.event("harness", text, mark),
      });
      const model = scriptedModel({
        random,
        report: setup.report,
        ...(spec.resubmitTitle !== undefined ? { resubmitTitle: spec.resubmitTitle } : {}),
      });
      const conversation = await runConversation({
        model,
        harness,
        task: taskFor(setup.run, setup.report),
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
  };
}

/** A case's calls to file_bug_report, in order. */
export function filings(r: AgentCaseResult): HandledCall[] {
  return r.calls.filter((c) => c.toolUse.name === "file_bug_report");
}

/** What the model did right after its first tool result, in a few words. */
export function nextMove(r: AgentCaseResult): string {
  const history: Message[] = r.conversation.history;
  const firstResult = history.findIndex(
    (m) => m.role === "user" && m.content.some((b) => b.type === "tool_result"),
  );
  const after = history[firstResult + 1];
  if (!after) return t("nothing");
  const use = toolUsesOf(after)[0];
  if (!use) return t('stops: "{text}"', { text: textOf(after) });
  const id = use.id.slice(0, 12);
  return use.name === "file_bug_report"
    ? t("files again (new tool_use {id}…)", { id })
    : t("looks it up (new tool_use {id}…)", { id });
}

/** The user's request that starts each conversation. */
export function taskFor(run: string, report: ReportInput): string {
  return t(
    'You are testing the web app (evaluation run {run}). File a bug report for what you found: "{title}" in module {module}.',
    { run, title: report.title, module: report.module },
  );
}

/** A table of cases by what the harness told the model: is_error, the model's next move, the count. */
export function wordingTable(
  cases: ReadonlyArray<readonly [says: string, result: AgentCaseResult]>,
): [string[], string[][]] {
  return [
    [t("harness says"), "is_error", t("the model then"), t("reports")],
    cases.map(([says, r]) => [
      says,
      String(filings(r)[0]!.result.is_error),
      nextMove(r),
      String(r.reports),
    ]),
  ];
}

/** A table of sampling retries: model calls made, tool calls run, reports stored. */
export function samplingTable(
  cases: ReadonlyArray<readonly [sends: string, result: AgentCaseResult]>,
): [string[], string[][]] {
  return [
    [t("sampling retry sends"), t("model calls"), t("tool calls run"), t("reports")],
    cases.map(([sends, r]) => [
      sends,
      String(r.conversation.modelCalls),
      String(r.calls.length),
      String(r.reports),
    ]),
  ];
}

/** The tool calls of a case and the key the harness derived from each (`run_id:tool_use_id`). */
export function toolUseKeyTable(run: string, r: AgentCaseResult): [string[], string[][]] {
  return [
    ["tool_use", t("Idempotency-Key the harness sent (run_id:tool_use_id)")],
    filings(r).map((c) => [`${c.toolUse.id.slice(0, 16)}…`, toolUseKey(run, c.toolUse.id)]),
  ];
}
