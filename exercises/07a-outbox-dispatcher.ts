/**
 * Exercise 07a · An outbox dispatcher that survives its own crash
 *
 * Goal: one pass of the outbox dispatcher of lesson 07. Every row still 'to_send' (oldest first) is
 * posted to the notifier with an Idempotency-Key derived from the row, and marked 'sent' once the
 * notifier has accepted it. A row the notifier did not accept (an error status, no answer at all)
 * stays 'to_send' for the next pass. Returns how many rows this pass marked sent.
 *
 * The dispatcher can die between "the notifier accepted the row" and "the row is marked sent": the
 * tests make `afterAccepted` throw there, as a SIGKILL would stop you. The next pass sends that row
 * again, and the maintainer must still receive it once: that is your key's job, and the notifier's.
 *
 * Constraints: mark a row only after the notifier accepted it, in a transaction of the store; the key
 * must be the same for a row on every pass and different for different rows. The outbox table is
 * handed to you (`input.outbox`, its types in lib/outbox/outbox-row.ts); the notifier is
 * lib/outbox/notifier.ts, and `httpCall` in lib/client/client.ts makes one HTTP call. Lesson 07,
 * section 4, runs this (run `npm run lesson 7`). Check your answer with `npm run check 07a`.
 *
 * 练习 07a · 扛得住自己崩溃的 outbox 投递进程
 *
 * 目标：第 07 课 outbox 投递进程的一轮投递。每条还是 'to_send' 的待发送记录（从最早的开始）都带着由
 * 这条记录推导出的 Idempotency-Key，POST 给通知服务，通知服务接受之后标成 'sent'。通知服务没接受的
 * 记录（错误状态码，或者根本没有响应）留在 'to_send'，等下一轮。返回这一轮标成 sent 的记录数。
 *
 * 投递进程可能死在“通知服务接受了这条记录”和“这条记录标成已发送”之间：测试在那里让 `afterAccepted`
 * 抛异常，就像 SIGKILL 让你停下一样。下一轮会再发一次这条记录，而维护者仍然只能收到一次：这要靠你的
 * 键，也要靠通知服务。
 *
 * 约束：只有通知服务接受之后才标记这条记录，而且要在 store 的事务里标；同一条记录每一轮的键都要相
 * 同，不同记录的键要不同。outbox 表已经交给你了（`input.outbox`，类型在
 * lib/outbox/outbox-row.ts）；通知服务在 lib/outbox/notifier.ts，发一次 HTTP 调用用
 * lib/client/client.ts 里的 `httpCall`。第 07 课第 4 节跑的就是这个（`npm run lesson 7`）。用
 * `npm run check 07a` 检查你的答案。
 */
import type { OutboxRow, OutboxTable } from "../lib/outbox/outbox-row.ts";
import type { ReportStore } from "../lib/tracker/store.ts";

export interface DispatchInput {
  /** The tracker's database: `store.transaction(() => …)` runs a function in one of its transactions. */
  store: ReportStore;
  /** The store's outbox table: its rows still 'to_send', and marking one sent. */
  outbox: OutboxTable;
  /** The notifier's base URL: POST <notifierUrl>/notifications. */
  notifierUrl: string;
  /** Called after the notifier accepted a row and before you mark it sent (the tests crash you here). */
  afterAccepted?: (row: OutboxRow) => void;
}

/** The Idempotency-Key a row is delivered with, on every pass. */
export function rowKey(row: OutboxRow): string {
  // TODO: derive the key from the row, so that a redelivery carries the same one.
  // 待办：从记录推导出键，这样重发时带的是同一个键。
  throw new Error("TODO: write rowKey (exercise 07a)");
}

/** One pass over the 'to_send' rows; returns how many rows it marked sent. */
export async function dispatch(input: DispatchInput): Promise<number> {
  // TODO: post each pending row with its key; mark it sent once the notifier answered 2xx.
  // 待办：把每条待发送记录带着它的键 POST 出去；通知服务回了 2xx，再标成已发送。
  throw new Error("TODO: write dispatch (exercise 07a)");
}
