/**
 * Codex's two retry layers, stacked: an HTTP layer that resends one request, inside a sampling
 * ("stream") layer that starts the whole model request again. Two sets of rules:
 *
 *   - `COURSE_CODEX`, as the course page describes it: each layer retries 2 times; the HTTP layer
 *     retries a 503 or a 429 only when it carries Retry-After and waits that long; a quota 429 ends
 *     at once. A 503 with Retry-After costs 3 × 3 = 9 requests, without it 3.
 *   - `UPSTREAM_CODEX`, as openai/codex has it: `DEFAULT_REQUEST_MAX_RETRIES = 4` and
 *     `DEFAULT_STREAM_MAX_RETRIES = 5` (`model-provider-info/src/lib.rs`); the HTTP layer
 *     (`codex-client/src/retry.rs`) retries 5xx and transport errors, not 429 (`retry_429: false`),
 *     and reads no Retry-After: it sleeps `backoff(200 ms, attempt + 1)`. Up to 5 × 6 = 30 requests.
 *
 * Both layers sleep Codex's backoff, 200 ms × 2^(n−1) × U[0.9, 1.1), unless a delay is honoured.
 */

import { t } from "../core/i18n.ts";
import type { Random } from "../core/random.ts";
import { codexBackoffMs } from "./backoff.ts";
import { httpCall, type Outcome } from "./client.ts";
import { readRetryAfter } from "./retry-after.ts";
import { type LoopResult, retryLoop, type Verdict } from "./retry-loop.ts";

/** A layer's rule: after a request that followed `retriesSoFar` retries, stop or wait and retry. */
export type LayerRule = (
  outcome: Outcome,
  retriesSoFar: number,
  random: Random,
  nowMs: number,
) => Verdict;

export interface CodexRules {
  name: string;
  httpMaxRetries: number;
  streamMaxRetries: number;
  http: LayerRule;
  stream: LayerRule;
}

const QUOTA_ERRORS = new Set(["usage_limit_reached", "insufficient_quota"]);

/** A 429 that means "your quota is used up" (not "slow down"): waiting will not help. */
export function isQuota429(o: Outcome): boolean {
  if (o.kind !== "response" || o.status !== 429) return false;
  const error = (o.body as { error?: { type?: unknown; code?: unknown } } | undefined)?.error;
  return QUOTA_ERRORS.has(String(error?.type)) || QUOTA_ERRORS.has(String(error?.code));
}

const ok = (o: Outcome): boolean => o.kind === "response" && o.status < 300;
const serverError = (o: Outcome): boolean => o.kind !== "response" || o.status >= 500;
const backoff = (retriesSoFar: number, random: Random): Verdict => ({
  retry: true,
  delayMs: codexBackoffMs(retriesSoFar + 1, random),
  why: t("backoff"),
});

/** Common first checks: success, a quota 429, retries used up. */
function settled(o: Outcome, retriesSoFar: number, max: number): Verdict | undefined {
  if (ok(o)) return { retry: false, why: t("success") };
  if (isQuota429(o)) return { retry: false, why: t("quota used up: stop at once") };
  if (retriesSoFar >= max) return { retry: false, why: t("retries used up ({max})", { max }) };
  return undefined;
}

export const COURSE_CODEX: CodexRules = {
  get name() {
    return t("the course's account");
  },
  httpMaxRetries: 2,
  streamMaxRetries: 2,
  http: (o, k, _random, now) => {
    const done = settled(o, k, 2);
    if (done) return done;
    const asked = o.kind === "response" ? readRetryAfter(o.headers, now) : undefined;
    const status = o.kind === "response" ? o.status : 0;
    if (asked && (status === 429 || status >= 500)) {
      const delayMs = Math.max(0, asked.ms);
      return { retry: true, delayMs, why: `Retry-After: ${asked.raw}`, honoured: true };
    }
    if (status === 429) return { retry: false, why: t("429 without Retry-After: not retried") };
    return { retry: false, why: t("no Retry-After: left to the sampling layer") };
  },
  stream: (o, k, random, now) => {
    const done = settled(o, k, 2);
    if (done) return done;
    if (!serverError(o))
      return {
        retry: false,
        why: t("{status}: not retried", {
          status: o.kind === "response" ? String(o.status) : o.kind,
        }),
      };
    const asked = o.kind === "response" ? readRetryAfter(o.headers, now) : undefined;
    return asked && asked.ms > 0
      ? { retry: true, delayMs: asked.ms, why: `Retry-After: ${asked.raw}`, honoured: true }
      : backoff(k, random);
  },
};

export const UPSTREAM_CODEX: CodexRules = {
  get name() {
    return t("upstream openai/codex");
  },
  httpMaxRetries: 4,
  streamMaxRetries: 5,
  http: (o, k, random) =>
    settled(o, k, 4) ??
    (serverError(o) ? backoff(k, random) : { retry: false, why: "retry_429: false" }),
  stream: (o, k, random) =>
    settled(o, k, 5) ??
    (serverError(o) ? backoff(k, random) : { retry: false, why: t("not retried here") }),
};

export interface CodexCallOptions {
  url: string;
  body: unknown;
  timeoutMs: number;
  random: Random;
  /** The wall clock for HTTP-dates, ms since the epoch (default Date.now). */
  now?: () => number;
  timeScale?: number;
  /** Called after each HTTP request: sampling attempt `s`, HTTP attempt `n` within it. */
  onRequest?: (s: number, n: number, outcome: Outcome) => void;
  /** Called before a wait: which layer, after which attempt, and the verdict. */
  onWait?: (
    layer: "http" | "stream",
    s: number,
    n: number,
    verdict: Extract<Verdict, { retry: true }>,
  ) => void;
  /** Called when a layer stops. */
  onStop?: (layer: "http" | "stream", s: number, why: string) => void;
}

/** One model request through both layers. */
export async function codexCall(
  rules: CodexRules,
  options: CodexCallOptions,
): Promise<LoopResult<LoopResult<Outcome>>> {
  const now = options.now ?? Date.now;
  const scale = options.timeScale !== undefined ? { timeScale: options.timeScale } : {};
  const result = await retryLoop<LoopResult<Outcome>>({
    attempt: async (s) => {
      const inner = await retryLoop<Outcome>({
        attempt: async (n) => {
          const o = await httpCall({
            method: "POST",
            url: options.url,
            body: options.body,
            timeoutMs: options.timeoutMs,
          });
          options.onRequest?.(s, n, o);
          return o;
        },
        decide: (o, n) => rules.http(o, n - 1, options.random, now()),
        onWait: (n, v) => options.onWait?.("http", s, n, v),
        ...scale,
      });
      options.onStop?.("http", s, inner.why);
      return inner;
    },
    decide: (inner, s) => rules.stream(inner.final, s - 1, options.random, now()),
    onWait: (s, v) => options.onWait?.("stream", s, 0, v),
    ...scale,
  });
  options.onStop?.("stream", result.results.length, result.why);
  return result;
}
