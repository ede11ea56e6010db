/**
 * Exercise 01a · May the client retry on its own? (reference answer)
 *
 * Goal: write the retry rule of RFC 9110 §9.2.2 as two functions that an HTTP client could call after
 * a failure, before it resends anything on its own.
 */

/** How an attempt failed, as the client saw it. */
export type Failure =
  /** The TCP connection was never established: the request was provably never sent. */
  | "connection-refused"
  /** The request was sent and no answer came in time. */
  | "timeout"
  /** The request was sent and the connection broke before a complete answer. */
  | "connection-reset";

/** PUT, DELETE and the safe methods (§9.2.1). Method names are case-sensitive (§9.1). */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/** True for the methods RFC 9110 defines as idempotent. */
export function isIdempotentMethod(method: string): boolean {
  return IDEMPOTENT.has(method);
}

/**
 * May the client resend this request automatically, without asking anybody?
 * `hasIdempotencyKey` means the request carries an Idempotency-Key, reused on every attempt, that the
 * server is documented to honour.
 */
export function mayRetryAutomatically(
  method: string,
  failure: Failure,
  hasIdempotencyKey: boolean,
): boolean {
  if (isIdempotentMethod(method)) return true;
  // "some means to detect that the original request was never applied": nothing was sent.
  if (failure === "connection-refused") return true;
  // "some means to know that the request semantics are actually idempotent": the key.
  return hasIdempotencyKey;
}
