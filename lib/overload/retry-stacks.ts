/**
 * One logical call through a client's retry layers (an SDK under a harness loop, Codex's two
 * layers), against a counting server that answers by a rule: every request it received is counted
 * where it arrived. Lesson 03 meets a server that answers 503 to everything, and one that answers
 * the first request as told (a 429 with or without Retry-After, a 503 with an HTTP-date, a vendor
 * header) and 201 after it, to play the rules for 429 and Retry-After one case at a time.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Outcome } from "../client/client.ts";
import {
  COURSE_CODEX,
  type CodexCallOptions,
  type CodexRules,
  codexCall,
} from "../client/codex-retry.ts";
import { scaledWait, statusText } from "../client/narrate.ts";
import type { Verdict } from "../client/retry-loop.ts";
import { type HarnessOptions, harnessOverSdk, sdkCall } from "../client/sdk-retry.ts";
import { t } from "../core/i18n.ts";
import type { Random } from "../core/random.ts";
import { type Reply, startCountingServer } from "./counting-server.ts";

type Wait = Extract<Verdict, { retry: true }>;

export interface AgainstOptions {
  random: Random;
  /** Real waits are slept multiplied by this. */
  timeScale: number;
}

/** What the server counted under the test agent's stack. */
export interface StackCount {
  /** Requests the server received. */
  requests: number;
  /** Of them, those that carried an Idempotency-Key. */
  withKey: number;
  harnessAttempts: number;
  /** Requests per SDK call. */
  perCall: number;
}

/**
 * The test agent's stack (a harness loop around an SDK that retries on its own) against a server
 * that answers `reply` to everything. `onRequest` sees each request's headers as the server got them.
 */
export async function harnessAgainst(
  reply: Reply,
  options: HarnessOptions &
    AgainstOptions & {
      onRequest?: (n: number, headers: IncomingHttpHeaders, outcome: Outcome) => void;
      onWait?: (n: number, verdict: Wait) => void;
    },
): Promise<StackCount> {
  const server = await startCountingServer(() => reply);
  const { attempts, pauseMs, onAttempt, onRequest, onWait, ...sdk } = options;
  try {
    const call = await harnessOverSdk(
      { attempts, pauseMs, ...(onAttempt ? { onAttempt } : {}) },
      {
        ...sdk,
        url: `${server.url}/v1/messages`,
        body: { model: "m", messages: [{ role: "user", content: "file this bug report" }] },
        timeoutMs: 5_000,
        onRequest: (n, o) => onRequest?.(n, server.received.at(-1)!.headers, o),
        ...(onWait ? { onWait } : {}),
      },
    );
    return {
      requests: server.count,
      withKey: server.received.filter((r) => r.headers["idempotency-key"] !== undefined).length,
      harnessAttempts: call.results.length,
      perCall: call.results[0]!.results.length,
    };
  } finally {
    await server.close();
  }
}

/** The server's count: "received 12 POSTs for one logical call (4 harness attempts); 0 carried…". */
export function stackCountText(c: StackCount): string {
  return t(
    "received {requests} POSTs for one logical call ({harnessAttempts} harness attempts); {withKey} carried an Idempotency-Key",
    { ...c },
  );
}

/** One run of Codex's two layers, as the table of lesson 03 sets them side by side. */
export interface CodexRun {
  /** Whose rules: "course page", "upstream defaults". */
  rules: string;
  /** What the 503 answers carried: "Retry-After: 1", "no Retry-After". */
  carry: string;
  samplingAttempts: number;
  honoured: number;
  requests: number;
}

/** Codex's runs side by side: sampling attempts, Retry-After honoured, requests at the server. */
export function codexRunsTable(runs: readonly CodexRun[]): { header: string[]; rows: string[][] } {
  return {
    header: [
      t("Codex rules"),
      t("503 answers carry"),
      t("sampling attempts"),
      t("Retry-After honoured"),
      t("requests at the server"),
    ],
    rows: runs.map((r) => [
      r.rules,
      r.carry,
      String(r.samplingAttempts),
      String(r.honoured),
      String(r.requests),
    ]),
  };
}

/** Codex's two layers under `rules` against a server that answers `reply` to everything. */
export async function codexAgainst(
  rules: CodexRules,
  reply: Reply,
  options: AgainstOptions & Pick<CodexCallOptions, "onRequest" | "onWait" | "onStop">,
): Promise<{ requests: number; samplingAttempts: number }> {
  const server = await startCountingServer(() => reply);
  try {
    const r = await codexCall(rules, {
      ...options,
      url: `${server.url}/v1/responses`,
      body: { model: "m", input: "file this bug report" },
      timeoutMs: 5_000,
    });
    return { requests: server.count, samplingAttempts: r.results.length };
  } finally {
    await server.close();
  }
}

export interface FirstAnswerRun {
  /** Requests the server received. */
  requests: number;
  /** The waits the client chose, in order. */
  waits: Wait[];
  /** What the call came to. */
  final: Outcome;
}

export interface FirstAnswerOptions extends AgainstOptions {
  /** The clock both sides read an HTTP-date by, ms since the epoch. */
  now: () => number;
}

/**
 * `first`, then 201s, against Codex's two layers as the course tells them (`codex`) or the
 * SDK-like layer (`sdk`).
 */
export async function againstFirstAnswer(
  first: Reply,
  policy: "codex" | "sdk",
  options: FirstAnswerOptions,
): Promise<FirstAnswerRun> {
  const server = await startCountingServer((r) =>
    r.n === 1 ? first : { status: 201, body: { id: 1 } },
  );
  const waits: FirstAnswerRun["waits"] = [];
  try {
    const common = { url: `${server.url}/v1`, body: {}, timeoutMs: 5_000, ...options };
    const final =
      policy === "codex"
        ? (await codexCall(COURSE_CODEX, { ...common, onWait: (_l, _s, _n, v) => waits.push(v) }))
            .final.final
        : (await sdkCall({ ...common, onWait: (_n, v) => waits.push(v) })).final;
    return { requests: server.count, waits, final };
  } finally {
    await server.close();
  }
}

/**
 * One case of the first-answer rules, for the trace and for its row in a table: the server's line
 * ("429 bare: first answer 429, no Retry-After; 1 request(s) in all ← 429") and the row (case,
 * policy, requests, each wait real [slept] with why, how it ended).
 */
export function firstAnswerCase(
  label: string,
  first: Reply,
  policy: "codex" | "sdk",
  run: FirstAnswerRun,
  scale: number,
): { line: string; ok: boolean; row: string[] } {
  const end = statusText(run.final);
  const waited = run.waits.map((v) =>
    t("{wait} ({why})", {
      wait: scaledWait(v.delayMs, scale),
      why: v.honoured ? "Retry-After" : v.why,
    }),
  );
  return {
    line: t(
      "{label}: first answer {first}; {requests, plural, one {# request} other {# requests}} in all ← {end}",
      { label, first: describeReply(first), requests: run.requests, end },
    ),
    ok: run.final.kind === "response" && run.final.status === 201,
    row: [
      label,
      policy === "codex" ? t("Codex (course)") : t("SDK-like"),
      String(run.requests),
      waited.join(t(", ")) || t("none"),
      end,
    ],
  };
}

/** What a first answer carried, in a few words: "429, Retry-After: 2", "429 usage_limit_reached". */
export function describeReply(reply: Reply): string {
  const error = (reply.body as { error?: { type?: unknown } } | undefined)?.error?.type;
  if (typeof error === "string") return `${reply.status} ${error}`;
  const headers = Object.entries(reply.headers ?? {});
  if (headers.length === 0) return t("{status}, no Retry-After", { status: String(reply.status) });
  const named = (name: string): string =>
    name === "retry-after" ? "Retry-After" : name === "x-should-retry" ? "x-should-retry" : name;
  const carried = headers.map(([k, v]) => `${named(k)}: ${v}`).join(", ");
  return t("{status}, {headers}", { status: String(reply.status), headers: carried });
}
