/**
 * Exercise 04b · Read the Idempotency-Key header, both forms
 *
 * Goal: turn the values of the Idempotency-Key header (one string per header line, as the tracker
 * collects them from rawHeaders) into the key, or say exactly what is wrong with them. Two forms are
 * accepted: the IETF draft's sf-string (`"8e03…"`, quoted, with `\"` and `\\` as its only escapes,
 * RFC 9651 §3.3.3) and Stripe's bare value (`8e03…`).
 *
 * Constraints: a pure function, no I/O, no regular expression required (one is fine). Every refusal
 * becomes a 400 in the tracker, so the `problem` must name the first thing wrong. Lesson 04, section 6,
 * shows the tracker using it (run `npm run lesson 4`). Check your answer with `npm run check 04b`.
 */
import type { KeyParse } from "../lib/protocol/idempotency-key.ts";

export type { KeyParse };

/** The longest key accepted, in characters, after unescaping (Stripe's limit). */
export const MAX_KEY_CHARS = 255;

/**
 * `values` holds one string per Idempotency-Key header line. Returns `{ ok: true, key, form }` with
 * form "sf-string" or "token", or `{ ok: false, problem, detail }` where problem is one of "missing",
 * "duplicated", "empty", "too-long", "not-printable", "unparseable" and detail is a sentence for the
 * client.
 */
export function parseIdempotencyKey(values: readonly string[]): KeyParse {
  // TODO: handle a missing and a duplicated header, then the quoted and the bare form, then the length.
  throw new Error("TODO: write parseIdempotencyKey (exercise 04b)");
}
