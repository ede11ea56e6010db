/**
 * Exercise 03b · The SDK's retry rules: what to retry, and how long to wait (reference answer)
 *
 * Goal: the two decisions an LLM SDK makes after a failed request, as anthropic-sdk-python does them
 * (`_should_retry`, `_parse_retry_after_header`, `_calculate_retry_timeout` in `_base_client.py`).
 */
import { anthropicSdkDelayMs } from "../lib/client/backoff.ts";
import type { Outcome } from "../lib/client/client.ts";
import type { Random } from "../lib/core/random.ts";

/** Response headers, as node:http gives them. */
export type Headers = Record<string, string | string[] | undefined>;

/** The SDK honours a server's delay up to 60 s (`0 < retry_after <= 60`). */
export const MAX_RETRY_AFTER_MS = 60_000;

const first = (headers: Headers, name: string): string | undefined => [headers[name]].flat()[0];

/** May the SDK retry after this outcome of a request? */
export function shouldRetry(outcome: Outcome): boolean {
  if (outcome.kind !== "response") return true;
  switch (first(outcome.headers, "x-should-retry")) {
    case "true":
      return true;
    case "false":
      return false;
  }
  return [408, 409, 429].includes(outcome.status) || outcome.status >= 500;
}

/** A number, or undefined for text that is not one (Number("") would say 0). */
function numberIn(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** What the server asked for, in ms (may be ≤ 0 for a past date), or undefined. */
function askedFor(headers: Headers, nowMs: number): number | undefined {
  const ms = numberIn(first(headers, "retry-after-ms"));
  if (ms !== undefined) return ms;
  const text = first(headers, "retry-after");
  const seconds = numberIn(text);
  if (seconds !== undefined) return seconds * 1000;
  const date = text === undefined ? NaN : Date.parse(text);
  return Number.isNaN(date) ? undefined : date - nowMs;
}

/**
 * How long to wait, in ms, before the next retry. `retriesSoFar` is 0 before the first retry;
 * `nowMs` is the current time (ms since the epoch) for an HTTP-date.
 */
export function retryDelay(
  retriesSoFar: number,
  headers: Headers,
  random: Random,
  nowMs: number,
): number {
  const asked = askedFor(headers, nowMs);
  if (asked !== undefined && asked > 0 && asked <= MAX_RETRY_AFTER_MS) return asked;
  return anthropicSdkDelayMs(retriesSoFar, random);
}
