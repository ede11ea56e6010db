/**
 * The client side of a call: the agent's client, its retry policies and the retry layers it meets.
 * This module is the client: one logical call ("file this bug report") made of one or more HTTP
 * attempts, each with a timeout, under a retry policy. Every attempt is reported as it starts and
 * ends, so a lesson can narrate it.
 */
import { request } from "node:http";
import { sleep, timeoutSignal } from "../core/clock.ts";
import { currentLang, type Lang, tIn } from "../core/i18n.ts";
import { type Random, uuid } from "../core/random.ts";
import { readRetryAfter } from "./retry-after.ts";

/** Retry policies (fixed names). */
export const POLICY_NAMES = ["no-retry", "blind-retry", "fresh-key", "same-key"] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/** What one HTTP exchange came to. */
export type Outcome =
  | {
      kind: "response";
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: unknown;
    }
  | { kind: "timeout"; limitMs: number }
  | { kind: "error"; code: string; message: string };

export interface HttpCall {
  method: string;
  url: string;
  body?: unknown;
  /** An array value is sent as that many header lines. */
  headers?: Record<string, string | string[]>;
  timeoutMs: number;
  /**
   * When set, the attempt is given up when this settles, rather than after `timeoutMs` (which is
   * still what the outcome reports): a lesson's gate, so that a loaded machine cannot make an answer
   * late that the lesson meant to arrive. A backstop of `PATIENT_MS` stays, so that nothing hangs.
   */
  giveUp?: Promise<unknown>;
}

/** How long an attempt given a `giveUp` gate waits at most: an answer this late is a hang. */
export const PATIENT_MS = 30_000;

/**
 * One HTTP exchange over a fresh connection, given up after `timeoutMs` (an AbortSignal). Never
 * throws: a timeout or a network error is an Outcome too.
 */
export function httpCall(call: HttpCall): Promise<Outcome> {
  const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
  const headers: Record<string, string | string[]> = { ...call.headers };
  // A reader of the Chinese course gets the servers' problem details in Chinese (RFC 9110 §12.5.4).
  if (currentLang() === "zh") headers["accept-language"] ??= "zh-CN, en;q=0.5";
  if (payload !== undefined) {
    headers["content-type"] ??= "application/json";
    headers["content-length"] = String(Buffer.byteLength(payload));
  }
  const { signal, cancel } = giveUpSignal(call);
  return new Promise<Outcome>((resolve) => {
    let settled = false;
    const settle = (o: Outcome): void => {
      if (settled) return;
      settled = true;
      cancel();
      resolve(o);
    };
    // agent: false: a connection per attempt, closed after it, as a retry after a timeout would be.
    const req = request(call.url, { method: call.method, headers, agent: false, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", () =>
        settle({ kind: "error", code: "ECONNRESET", message: "the answer was cut off" }),
      );
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown = text;
        try {
          body = text === "" ? undefined : JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        settle({ kind: "response", status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (signal.aborted) settle({ kind: "timeout", limitMs: call.timeoutMs });
      else settle({ kind: "error", code: err.code ?? "ERROR", message: err.message });
    });
    req.end(payload);
  });
}

/** The signal that ends an attempt: `timeoutMs` from now, or when `giveUp` settles (with a backstop). */
function giveUpSignal(call: HttpCall): { signal: AbortSignal; cancel: () => void } {
  if (call.giveUp === undefined) return timeoutSignal(call.timeoutMs);
  const backstop = timeoutSignal(Math.max(call.timeoutMs, PATIENT_MS));
  const controller = new AbortController();
  const abort = (): void => {
    controller.abort(new DOMException(`no response within ${call.timeoutMs} ms`, "TimeoutError"));
  };
  backstop.signal.addEventListener("abort", abort, { once: true });
  let live = true;
  call.giveUp.then(
    () => live && abort(),
    () => live && abort(),
  );
  return {
    signal: controller.signal,
    cancel: () => {
      live = false;
      backstop.cancel();
    },
  };
}

/**
 * Describes an outcome in a few words, for traces: "201, report 3", "409: key in progress",
 * "no response within 150 ms (timeout)". In the process's language, or in `lang` (words meant for a
 * model, say, rather than for the person reading the trace).
 */
export function describeOutcome(o: Outcome, lang: Lang = currentLang()): string {
  switch (o.kind) {
    case "response": {
      const b = o.body as { id?: unknown; detail?: unknown } | undefined;
      const answer =
        b && typeof b.id === "number"
          ? tIn(lang, "{status}, report {id}", { status: String(o.status), id: String(b.id) })
          : b && typeof b.detail === "string"
            ? tIn(lang, "{status}: {detail}", { status: String(o.status), detail: b.detail })
            : String(o.status);
      return o.headers["idempotent-replayed"] === "true"
        ? tIn(lang, "{answer} (Idempotent-Replayed: true)", { answer })
        : answer;
    }
    case "timeout":
      return tIn(lang, "no response within {ms} ms (timeout)", { ms: String(o.limitMs) });
    case "error":
      return tIn(lang, "network error {code}", { code: o.code });
  }
}

export interface Attempt {
  /** 1 for the first attempt. */
  n: number;
  /** The Idempotency-Key sent, if any. */
  key?: string;
  outcome: Outcome;
}

/**
 * The bug report the agent files: the JSON body of POST /reports, as the tracker's API takes it. The
 * client's own type: it knows the API, not the tracker's code.
 */
export interface ReportToFile {
  title: string;
  body?: string;
  module?: string;
  run?: string;
}

export interface FileReportOptions {
  /** The tracker's base URL. */
  url: string;
  report: ReportToFile;
  policy: PolicyName;
  /** How long one attempt may wait for an answer. */
  timeoutMs: number;
  /**
   * The gate that ends attempt n instead of `timeoutMs` (see HttpCall.giveUp): in lessons, a
   * request the server's fault holds or loses is given up on `timeoutMs` after that happened, and
   * one that is answered is waited for, however busy the machine.
   */
  giveUp?: (attempt: number) => Promise<unknown>;
  /** Attempts in all, first included (ignored by no-retry). Default 3. */
  maxAttempts?: number;
  /** Wait before retry n (n = 1 for the first retry), in ms. Default: retry at once. */
  backoffMs?: (retry: number) => number;
  /** Source for keys; seeded in lessons so traces repeat. */
  random: Random;
  /**
   * same-key only: the key for this logical call, when the caller derives it (from the operation's
   * content) or keeps it across calls (an agent trying again after a call that gave up). Default: a
   * new UUID from `random`.
   */
  key?: string;
  /** `Authorization: Bearer <caller>` when set. */
  caller?: string;
  /**
   * Awaited before each retry, after the wait (`waitedMs`: the backoff or the wait the server asked
   * for): a gate for lessons and tests ("the agent retries once the server has been restarted").
   * Default: none.
   */
  beforeRetry?: (retry: number, last: Attempt, waitedMs: number) => Promise<void>;
  /** The longest server-asked wait (retry-after-ms / Retry-After) honoured; default 60 s. */
  maxRetryAfterMs?: number;
  /** Called as each attempt starts and ends. */
  onAttempt?: (
    event: { phase: "start"; n: number; key?: string } | { phase: "end"; attempt: Attempt },
  ) => void;
}

export interface CallResult {
  attempts: Attempt[];
  /** The last attempt's outcome. */
  final: Outcome;
  /** True when the last attempt got a 2xx. */
  ok: boolean;
}

/** Whether an outcome is worth another attempt (for the retrying policies). */
export function isRetryable(o: Outcome): boolean {
  if (o.kind !== "response") return true;
  return o.status === 408 || o.status === 409 || o.status === 429 || o.status >= 500;
}

/** Files one bug report: one logical call, as many attempts as the policy allows. */
export async function fileReport(opts: FileReportOptions): Promise<CallResult> {
  const maxAttempts = opts.policy === "no-retry" ? 1 : (opts.maxAttempts ?? 3);
  const logicalKey = opts.policy === "same-key" ? (opts.key ?? uuid(opts.random)) : undefined;
  const attempts: Attempt[] = [];
  for (let n = 1; ; n++) {
    const key = opts.policy === "fresh-key" ? uuid(opts.random) : logicalKey;
    const headers: Record<string, string> = {};
    if (key !== undefined) headers["idempotency-key"] = `"${key}"`;
    if (opts.caller !== undefined) headers.authorization = `Bearer ${opts.caller}`;
    opts.onAttempt?.({ phase: "start", n, ...(key ? { key } : {}) });
    const outcome = await httpCall({
      method: "POST",
      url: `${opts.url}/reports`,
      body: opts.report,
      headers,
      timeoutMs: opts.timeoutMs,
      ...(opts.giveUp ? { giveUp: opts.giveUp(n) } : {}),
    });
    const attempt: Attempt = { n, ...(key ? { key } : {}), outcome };
    attempts.push(attempt);
    opts.onAttempt?.({ phase: "end", attempt });
    const ok = outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300;
    if (ok || n >= maxAttempts || !isRetryable(outcome)) return { attempts, final: outcome, ok };
    // same-key on 409 (the key is still in progress): wait as long as the server asks, then retry.
    const asked =
      opts.policy === "same-key" && outcome.kind === "response" && outcome.status === 409
        ? retryAfterMs(outcome)
        : undefined;
    const waitMs =
      asked !== undefined
        ? Math.min(asked, opts.maxRetryAfterMs ?? 60_000)
        : (opts.backoffMs?.(n) ?? 0);
    if (waitMs > 0) await sleep(waitMs);
    await opts.beforeRetry?.(n, attempt, waitMs);
  }
}

/**
 * The wait a server asks for, in ms: `retry-after-ms` first (a vendor header the Stainless-generated
 * SDKs read), then `Retry-After` as delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
 */
export function retryAfterMs(
  o: Extract<Outcome, { kind: "response" }>,
  now = Date.now(),
): number | undefined {
  const asked = readRetryAfter(o.headers, now);
  return asked === undefined ? undefined : Math.max(0, asked.ms);
}
