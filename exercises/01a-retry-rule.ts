/**
 * Exercise 01a · May the client retry on its own?
 *
 * Goal: write the retry rule of RFC 9110 §9.2.2 as two functions that an HTTP client could call after
 * a failure, before it resends anything on its own.
 *
 * Constraints: pure functions, no I/O. Lesson 01 shows why the rule exists (run `npm run lesson 1`).
 * Check your answer with `npm run check 1`.
 *
 * 练习 01a · 客户端能自己重试吗？
 *
 * 目标：把 RFC 9110 §9.2.2 的重试规则写成两个函数：HTTP 客户端请求失败后、自己重发任何东西之前，先
 * 调用它们问一问。
 *
 * 约束：纯函数，不做 I/O。这条规则为什么存在，看第 01 课（`npm run lesson 1`）。用
 * `npm run check 1` 检查你的答案。
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
  // 待办：RFC 9110 定义的幂等方法返回 true，其他任何字符串都返回 false。
  throw new Error("TODO: write isIdempotentMethod (exercise 01a)");
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
  // TODO: apply the rule of RFC 9110 §9.2.2, escape clause included.
  // 待办：按 RFC 9110 §9.2.2 的规则判断，包括其中的例外条款。
  throw new Error("TODO: write mayRetryAutomatically (exercise 01a)");
}
