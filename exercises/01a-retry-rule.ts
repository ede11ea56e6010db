/**
 * Exercise 01a · May the client retry on its own?
 * @lesson 01
 * @hint Start with isIdempotentMethod: RFC 9110 §9.2.2 names PUT, DELETE and the safe methods of §9.2.1
 *   (GET, HEAD, OPTIONS, TRACE). Method names are case-sensitive (§9.1), so "get" is not GET. Then
 *   mayRetryAutomatically: an idempotent method may be retried after any of these failures (how
 *   many times is lesson 03's question: the same section says a client SHOULD NOT automatically retry
 *   a failed automatic retry); otherwise the rule's escape
 *   clause needs "some means to know that the request semantics are actually idempotent" (a key the
 *   server honours) "or some means to detect that the original request was never applied" (the
 *   connection was refused, so nothing was sent).
 *
 * Goal: write the retry rule of RFC 9110 §9.2.2 as two functions that an HTTP client could call after
 * a failure, before it resends anything on its own.
 *
 * Constraints: pure functions, no I/O. Lesson 01 shows why the rule exists (run `npm run lesson 1`).
 * Check your answer with `npm run check 1`.
 */

/** How an attempt failed, as the client saw it. */
export type Failure =
  /** The TCP connection was never established: the request was provably never sent. */
  | "connection-refused"
  /** The request was sent and no answer came in time. */
  | "timeout"
  /** The request was sent and the connection broke before a complete answer. */
  | "connection-reset";

/** True for the methods RFC 9110 defines as idempotent. */
export function isIdempotentMethod(method: string): boolean {
  // TODO: return true for the idempotent methods of RFC 9110 and false for every other string.
  void method;
  throw new Error("TODO: write isIdempotentMethod (exercise 01a)");
}

/**
 * May the client resend this request automatically, without asking anybody?
 * `hasIdempotencyKey` means the request carries an Idempotency-Key, reused on every attempt, that the
 * server is documented to honour.
 */
export function mayRetryAutomatically(method: string, failure: Failure, hasIdempotencyKey: boolean): boolean {
  // TODO: apply the rule of RFC 9110 §9.2.2, escape clause included.
  void method;
  void failure;
  void hasIdempotencyKey;
  throw new Error("TODO: write mayRetryAutomatically (exercise 01a)");
}
