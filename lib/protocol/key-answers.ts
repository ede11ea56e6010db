/**
 * The answers a keyed server gives that a server without keys never does: replay, 409, 422, from the
 * decision on what the key holds (key-decision.ts), and the 400 for a missing or malformed key. The
 * tracker's keyed variants answer so on either store, and the notifier of lesson 07 answers so too.
 */
import { t } from "../core/i18n.ts";
import { type Answer, HttpError } from "./http.ts";
import { keyHeaderValues, parseIdempotencyKey } from "./idempotency-key.ts";
import type { KeyDecision, KeyRow } from "./key-decision.ts";

/** What a keyed server keeps for one (caller, key): the decision's view plus the stored response. */
export interface StoredKey extends KeyRow {
  caller: string;
  key: string;
  /** The response to replay, once completed. */
  response: Answer | undefined;
}

/** The request's idempotency key, from its raw header lines; a missing or malformed one is a 400 (nothing is stored). */
export function requestKey(request: { rawHeaders: readonly string[] }): string {
  const parsed = parseIdempotencyKey(keyHeaderValues(request.rawHeaders));
  if (!parsed.ok) throw new HttpError(400, "Bad Request", parsed.detail);
  return parsed.key;
}

/** The stored response again, marked as a replay (errors included, as Stripe's API v1 does). */
export function replay(row: StoredKey): Answer {
  if (!row.response) throw new Error("a completed key without a stored response");
  return { ...row.response, headers: { ...row.response.headers, "idempotent-replayed": "true" } };
}

/** Same key, another request: draft §2.7 "SHOULD reply with a HTTP 422". */
export function mismatch(key: string): HttpError {
  const err = new HttpError(
    422,
    "Unprocessable Content",
    `Idempotency-Key ${shortKey(key)} was first used for a different request; a new operation needs a new key`,
  );
  err.said = t(
    "Idempotency-Key {key} was first used for a different request; a new operation needs a new key",
    { key: shortKey(key) },
  );
  return err;
}

/**
 * Same key while the first request still runs: draft §2.7 "SHOULD reply with an HTTP 409". The wait
 * goes out twice: `Retry-After` in whole seconds (RFC 9110 §10.2.3 allows nothing finer) and the
 * exact `retry-after-ms` that the Stainless-generated SDKs read first.
 */
export function inProgress(key: string, retryAfterMs: number): HttpError {
  const ms = Math.max(1, Math.ceil(retryAfterMs));
  const err = new HttpError(
    409,
    "Conflict",
    `the request with Idempotency-Key ${shortKey(key)} is still in progress; retry in ${ms} ms`,
    {
      "retry-after": String(Math.ceil(ms / 1000)),
      "retry-after-ms": String(ms),
    },
  );
  err.said = t("the request with Idempotency-Key {key} is still in progress; retry in {ms} ms", {
    key: shortKey(key),
    ms: String(ms),
  });
  return err;
}

/** A key for the trace: the first 8 characters and the last 4 (keys of one client often share a prefix). */
export function shortKey(key: string): string {
  return key.length > 14 ? `${key.slice(0, 8)}…${key.slice(-4)}` : key;
}

/**
 * The answer when the key was not free, from the decision on the stored row: the stored response
 * replayed, or 422 or 409 thrown. (The tracker tells its trace which, lib/tracker/keyed-request.ts.)
 */
export function answerFromKey(
  key: string,
  row: StoredKey | undefined,
  decision: KeyDecision,
): Answer {
  switch (decision.kind) {
    case "replay":
      return replay(row!);
    case "mismatch":
      throw mismatch(key);
    case "in-progress":
      throw inProgress(key, decision.retryAfterMs);
    case "claim":
    case "take-over":
      // The key is free or abandoned, but this request lost its own claim: the client may try again.
      throw inProgress(key, 0);
  }
}

/**
 * key-after's look before the work, on either store: a recorded key replays its stored response, a
 * different request under it is 422 (thrown); otherwise undefined, and the request goes ahead.
 */
export function answerFromRecorded(
  key: string,
  row: StoredKey | undefined,
  decision: KeyDecision,
): Answer | undefined {
  if (decision.kind === "replay") return replay(row!);
  if (decision.kind === "mismatch") throw mismatch(key);
  return undefined;
}
