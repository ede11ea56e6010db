/**
 * Reading a server's "wait this long before you come back": the standard `Retry-After` header
 * (RFC 9110 §10.2.3: `Retry-After = HTTP-date / delay-seconds`) and the vendor header
 * `retry-after-ms` that the Stainless-generated SDKs read first.
 *
 * Pure functions: an HTTP-date is turned into a delay against a `now` the caller passes in, so tests
 * and lessons can pin the clock. What a client does with the delay (honour it, cap it, ignore it) is
 * the client's policy, not this module's.
 */

/** Response headers as node:http gives them (lower-case names). */
export type HeaderBag = Record<string, string | string[] | undefined>;

/** Where a delay came from. */
export type RetryAfterSource = "retry-after-ms" | "retry-after";

export interface RetryAfter {
  /** The delay in ms. Zero or negative for an HTTP-date that is not in the future. */
  ms: number;
  from: RetryAfterSource;
  /** The header's text, for traces. */
  raw: string;
}

/** One header's value as a single string (the first, when a header came several times). */
export function headerText(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

// delay-seconds is "a non-negative decimal integer" in the RFC; the SDKs parse it as a float, so a
// fraction is accepted here too. Signs, exponents, "inf" and words are not numbers of seconds.
const DECIMAL = /^\d+(?:\.\d+)?$/;

// IMF-fixdate (RFC 9110 §5.6.7), the only form a sender may generate: "Sun, 06 Nov 1994 08:49:37 GMT".
// (Recipients are also asked to accept two obsolete forms, RFC 850 and asctime; they are left out.)
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * A `Retry-After` value as a delay in ms: delay-seconds times 1000, or the HTTP-date minus `nowMs`
 * (negative when the date is past). `undefined` when the value is neither form.
 */
export function parseRetryAfter(value: string, nowMs: number): number | undefined {
  const text = value.trim();
  if (DECIMAL.test(text)) return Number(text) * 1000;
  if (!IMF_FIXDATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at - nowMs;
}

/** A `retry-after-ms` value (milliseconds, a decimal number), or `undefined`. */
export function parseRetryAfterMs(value: string): number | undefined {
  const text = value.trim();
  return DECIMAL.test(text) ? Number(text) : undefined;
}

/**
 * The server's requested delay, read the way anthropic-sdk-python's `_parse_retry_after_header`
 * reads it: `retry-after-ms` first; if it is missing or unreadable, `retry-after` (seconds, then
 * HTTP-date). `undefined` when neither header gives a readable value.
 */
export function readRetryAfter(headers: HeaderBag, nowMs: number): RetryAfter | undefined {
  const msText = headerText(headers, "retry-after-ms");
  const ms = msText === undefined ? undefined : parseRetryAfterMs(msText);
  if (msText !== undefined && ms !== undefined) return { ms, from: "retry-after-ms", raw: msText };
  const text = headerText(headers, "retry-after");
  const delay = text === undefined ? undefined : parseRetryAfter(text, nowMs);
  if (text !== undefined && delay !== undefined)
    return { ms: delay, from: "retry-after", raw: text };
  return undefined;
}

/** An IMF-fixdate for a time in ms since the epoch (whole seconds: the format has no fractions). */
export function formatHttpDate(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString();
}
