/**
 * The agent's harness: it turns each `tool_use` the model sends into HTTP calls to the tracker and
 * answers with one `tool_result`. Inside one tool_use it may resend (its own retry layer, with a
 * budget of attempts); when it stops, it tells the model what it knows, in words (tool-result.ts).
 *
 * Where the Idempotency-Key comes from is the harness's choice (`KeyStrategy`):
 *   - `none`: no key; the harness resends only if it may (tool-annotations.ts: a trusted server's hint);
 *   - `per-attempt`: a new UUID for every HTTP attempt, the classic mistake (lesson 04);
 *   - `tool-use`: `run_id:tool_use_id`, one key per tool call, reused by the harness's own retries;
 *   - `business`: from the run, the module and the normalised title (business-key.ts), so a new tool
 *     call for the same report carries the same key.
 *
 * The harness adds the evaluation run to every report it files: the run is the harness's fact, not
 * something the model should be trusted to repeat.
 */
import {
  type Attempt,
  describeOutcome,
  fileReport,
  httpCall,
  type Outcome,
  type PolicyName,
} from "../client/client.ts";
import { formatList, t } from "../core/i18n.ts";
import type { Random } from "../core/random.ts";
import type { Report } from "../tracker/store.ts";
import { businessKey, normalizeTitle, toolUseKey } from "./business-key.ts";
import type { FindInput, ReportInput, ToolResult, ToolUse } from "./messages.ts";
import { mayAutoRetry, type ToolAnnotations } from "./tool-annotations.ts";
import {
  submissionFailedResult,
  type ToolOutcome,
  type ToolResultBody,
  toolResultFor,
} from "./tool-result.ts";

export const KEY_STRATEGIES = ["none", "per-attempt", "tool-use", "business"] as const;
export type KeyStrategy = (typeof KEY_STRATEGIES)[number];

/** How the harness words a tool result that is not a success. */
export type Wording = "honest" | "submission-failed";

export interface HarnessOptions {
  /** The tracker's base URL. */
  url: string;
  /** The evaluation run's id. */
  run: string;
  keys: KeyStrategy;
  /** HTTP attempts per tool_use, first included, when a resend is allowed. */
  attempts: number;
  /** How long one HTTP attempt may wait for an answer. */
  timeoutMs: number;
  wording: Wording;
  /** Source for per-attempt keys; seeded in lessons. */
  random: Random;
  /** For `keys: "none"`: what the tool's server claims and whether the harness trusts it. */
  tool?: { annotations?: ToolAnnotations; trustedServer: boolean; believeUntrustedHints?: boolean };
  /** The longest 409 wait (retry-after-ms) honoured between attempts. Default 60 s. */
  maxRetryAfterMs?: number;
  /** Awaited before each resend inside one tool_use (a gate for lessons and tests). */
  beforeRetry?: (toolUse: ToolUse, retry: number, last: Attempt) => Promise<void>;
  /** Each step the harness takes, for the trace. */
  log?: (text: string, mark?: "ok" | "bad" | "warn") => void;
}

/** One tool_use as the harness handled it. */
export interface HandledCall {
  toolUse: ToolUse;
  /** Every HTTP attempt made for it. */
  attempts: Attempt[];
  /** What the harness concluded (file_bug_report only). */
  outcome?: ToolOutcome;
  result: ToolResult;
}

export interface Harness {
  /** Runs one tool_use and answers it. */
  run(toolUse: ToolUse): Promise<ToolResult>;
  /** Every tool_use handled so far, in order. */
  readonly calls: readonly HandledCall[];
}

/** A key for the trace: long keys keep their head and tail, where keys of one harness differ. */
export function showKey(key: string): string {
  return key.length > 28 ? `${key.slice(0, 16)}…${key.slice(-8)}` : key;
}

export function createHarness(opts: HarnessOptions): Harness {
  const log = opts.log ?? (() => {});
  const calls: HandledCall[] = [];
  /** Which tool_use sent a key first: a replay for another tool_use means the report existed before. */
  const firstUse = new Map<string, string>();

  async function file(
    toolUse: Extract<ToolUse, { name: "file_bug_report" }>,
  ): Promise<HandledCall> {
    const input: ReportInput = toolUse.input;
    const key =
      opts.keys === "tool-use"
        ? toolUseKey(opts.run, toolUse.id)
        : opts.keys === "business"
          ? businessKey(opts.run, input.module, input.title)
          : undefined;
    const permission = mayAutoRetry({
      keyed: opts.keys !== "none",
      newKeyPerAttempt: opts.keys === "per-attempt",
      trustedServer: opts.tool?.trustedServer ?? false,
      ...(opts.tool?.annotations ? { annotations: opts.tool.annotations } : {}),
      ...(opts.tool?.believeUntrustedHints !== undefined
        ? { believeUntrustedHints: opts.tool.believeUntrustedHints }
        : {}),
    });
    const policy: PolicyName =
      opts.keys === "per-attempt"
        ? "fresh-key"
        : key !== undefined
          ? "same-key"
          : permission.retry
            ? "blind-retry"
            : "no-retry";
    const attempts = permission.retry ? opts.attempts : 1;
    log(
      t(
        '{id}… file_bug_report "{title}": {n, plural, one {# attempt} other {# attempts}} allowed ({why})',
        { id: toolUse.id.slice(0, 14), title: input.title, n: attempts, why: permission.why },
      ),
    );
    const call = await fileReport({
      url: opts.url,
      report: { ...input, run: opts.run },
      policy,
      maxAttempts: attempts,
      timeoutMs: opts.timeoutMs,
      random: opts.random,
      ...(key !== undefined ? { key } : {}),
      ...(opts.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: opts.maxRetryAfterMs } : {}),
      ...(opts.beforeRetry
        ? { beforeRetry: (retry: number, last: Attempt) => opts.beforeRetry!(toolUse, retry, last) }
        : {}),
      onAttempt: (e) => {
        if (e.phase === "start")
          log(
            e.key
              ? t("attempt {n} → POST /reports (Idempotency-Key {key})", {
                  n: e.n,
                  key: showKey(e.key),
                })
              : t("attempt {n} → POST /reports (no key)", { n: e.n }),
          );
        else
          log(
            t("attempt {n} ← {outcome}", {
              n: e.attempt.n,
              outcome: describeOutcome(e.attempt.outcome),
            }),
            ok(e.attempt.outcome) ? "ok" : "bad",
          );
      },
    });
    for (const a of call.attempts)
      if (a.key !== undefined && !firstUse.has(a.key)) firstUse.set(a.key, toolUse.id);
    const outcome = await conclude(input, call.final, call.attempts, key, toolUse.id);
    const body = (opts.wording === "honest" ? toolResultFor : submissionFailedResult)(outcome);
    return { toolUse, attempts: call.attempts, outcome, result: answer(toolUse, body) };
  }

  /** What the harness knows after its last attempt. */
  async function conclude(
    input: ReportInput,
    final: Outcome,
    attempts: Attempt[],
    key: string | undefined,
    id: string,
  ): Promise<ToolOutcome> {
    const title = input.title;
    /** What the harness saw, and after how many attempts. */
    const saw = (): string =>
      t("{outcome} after {n, plural, one {# attempt} other {# attempts}}", {
        outcome: describeOutcome(final),
        n: attempts.length,
      });
    if (final.kind !== "response") return { kind: "unknown", title, saw: saw() };
    const body = final.body as { id?: unknown; title?: unknown; detail?: unknown } | undefined;
    if (ok(final) && typeof body?.id === "number") {
      const existing =
        final.headers["idempotent-replayed"] === "true" &&
        key !== undefined &&
        firstUse.get(key) !== id;
      return {
        kind: "filed",
        title: typeof body.title === "string" ? body.title : title,
        reportId: body.id,
        existing,
      };
    }
    // A business key stands for several wordings of one report, so the tracker's fingerprint check
    // answers 422 when the same report comes back worded differently: it was filed before. Find it.
    if (final.status === 422 && opts.keys === "business") {
      log(
        t(
          "422 on the business key: a report for this run, module and title was filed before; looking it up",
        ),
        "warn",
      );
      const found = await find(title, input.module);
      const first = found.kind === "found" ? found.reports[0] : undefined;
      if (first) return { kind: "filed", title: first.title, reportId: first.id, existing: true };
      return {
        kind: "unknown",
        title,
        saw: t(
          "the business key is taken by a request still being filed (422) and no report is visible yet",
        ),
      };
    }
    const detail = typeof body?.detail === "string" ? body.detail : describeOutcome(final);
    const definite =
      final.status >= 400 && final.status < 500 && final.status !== 408 && final.status !== 409;
    return definite
      ? { kind: "failed", title, status: final.status, detail }
      : { kind: "unknown", title, saw: saw() };
  }

  type Found = { kind: "found"; reports: Report[] } | { kind: "no-answer"; saw: string };

  /** GET /reports?title=…, this run's reports only (and this module's, when given). A GET may be resent. */
  async function find(title: string, module?: string): Promise<Found> {
    let last: Outcome | undefined;
    for (let n = 1; n <= Math.max(1, opts.attempts); n++) {
      log(t("lookup {n} → GET /reports?title={title}", { n, title: encodeURIComponent(title) }));
      last = await httpCall({
        method: "GET",
        url: `${opts.url}/reports?title=${encodeURIComponent(title)}`,
        timeoutMs: opts.timeoutMs,
      });
      if (last.kind === "response" && last.status === 200 && Array.isArray(last.body)) {
        const reports = (last.body as Report[]).filter(
          (r) =>
            r.run === opts.run &&
            (module === undefined || normalizeTitle(r.module ?? "") === normalizeTitle(module)),
        );
        const count = reports.length;
        log(
          count === 0
            ? t("lookup {n} ← 200, {count, plural, one {# report} other {# reports}} in this run", {
                n,
                count,
              })
            : t(
                "lookup {n} ← 200, {count, plural, one {# report} other {# reports}} in this run: {ids}",
                { n, count, ids: reports.map((r) => `#${r.id}`).join(", ") },
              ),
          "ok",
        );
        return { kind: "found", reports };
      }
      log(t("lookup {n} ← {outcome}", { n, outcome: describeOutcome(last) }), "bad");
    }
    return { kind: "no-answer", saw: describeOutcome(last!) };
  }

  async function lookUp(toolUse: Extract<ToolUse, { name: "find_reports" }>): Promise<HandledCall> {
    const input: FindInput = toolUse.input;
    const found = await find(input.title);
    const body: ToolResultBody =
      found.kind === "no-answer"
        ? {
            content: t("Lookup failed: {saw}. Whether the report exists is still unknown.", {
              saw: found.saw,
            }),
            is_error: true,
          }
        : found.reports.length === 0
          ? {
              content: t('No report titled "{title}" in this run.', { title: input.title }),
              is_error: false,
            }
          : {
              content: t(
                "Found {count, plural, one {# report} other {# reports}} in this run: {reports}.",
                {
                  count: found.reports.length,
                  reports: formatList(
                    found.reports.map((r) =>
                      r.module === null
                        ? t('report #{id} ("{title}", module none)', {
                            id: String(r.id),
                            title: r.title,
                          })
                        : t('report #{id} ("{title}", module {module})', {
                            id: String(r.id),
                            title: r.title,
                            module: r.module,
                          }),
                    ),
                  ),
                },
              ),
              is_error: false,
            };
    return { toolUse, attempts: [], result: answer(toolUse, body) };
  }

  return {
    calls,
    async run(toolUse) {
      const handled =
        toolUse.name === "file_bug_report" ? await file(toolUse) : await lookUp(toolUse);
      calls.push(handled);
      const r = handled.result;
      log(
        t('tool_result for {id}…: is_error {isError}, "{content}"', {
          id: toolUse.id.slice(0, 14),
          isError: String(r.is_error),
          content: r.content,
        }),
        r.is_error ? "bad" : "ok",
      );
      return r;
    },
  };
}

function ok(o: Outcome): boolean {
  return o.kind === "response" && o.status >= 200 && o.status < 300;
}

function answer(toolUse: ToolUse, body: ToolResultBody): ToolResult {
  return {
    type: "tool_result",
    tool_use_id: toolUse.id,
    content: body.content,
    is_error: body.is_error,
  };
}
