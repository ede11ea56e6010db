/**
 * Exercise 05a · Fenced completion: the conditional update and the rollback
 *
 * Goal: finish a claim the way the fenced tracker does. A request claimed `key` with fencing token
 * `fence` and has done its work; now it files the report and completes the key, in one transaction,
 * and only if its claim still holds the key. If another request took the key over meanwhile (a newer
 * token), or the key is no longer in progress, nothing may stay behind: not the key's update, and not
 * the report either.
 *
 * Constraints: a real SQLite database (`node:sqlite`, the schema in lib/tracker/fencing-schema.ts:
 * tables reports, idempotency_keys, fence_counter). One transaction, BEGIN IMMEDIATE … COMMIT or
 * ROLLBACK; the report is inserted inside it, before the key is updated. Never leave a transaction
 * open, not even when a statement throws. Lesson 05, section 2b, shows the tracker doing it (run
 * `npm run lesson 5`). Check your answer with `npm run check 05a`.
 *
 * 练习 05a · 带 fencing 的完成：条件更新与回滚
 *
 * 目标：像 fenced Bug 库那样完成一次占键。一个请求用 fencing token `fence` 占了 `key`，活已经干完；
 * 现在它要存下报告，并把键标成完成，两件事放在一个事务里，而且只在它的占位仍然持有这个键时才算数。
 * 如果这期间别的请求接管了这个键（token 更新了），或者这个键已经不在处理中，就什么都不能留下：键的
 * 更新不能留，报告也不能留。
 *
 * 约束：真的 SQLite 数据库（`node:sqlite`，表结构在 lib/tracker/fencing-schema.ts：reports、
 * idempotency_keys、fence_counter 三张表）。一个事务，BEGIN IMMEDIATE … COMMIT 或 ROLLBACK；报告在
 * 事务里插入，先于键的更新。永远不要留下没结束的事务，语句抛异常时也不行。第 05 课 2b 节演示 Bug 库
 * 怎么做（`npm run lesson 5`）。用 `npm run check 05a` 检查你的答案。
 */
import type { DatabaseSync } from "node:sqlite";

/**
 * Inserts a report titled `title` and completes `key` with it, if the claim with token `fence` still
 * holds the key in progress. Returns the new report's id, or undefined after rolling everything back.
 */
export function completeFenced(
  db: DatabaseSync,
  key: string,
  fence: number,
  title: string,
): number | undefined {
  // TODO: one transaction: insert the report, update the key WHERE … AND fence = ?, and commit only if
  //   exactly one row changed; otherwise roll back, the report with it.
  // 待办：在一个事务里插入报告，用 WHERE … AND fence = ? 更新键，正好改了一行才提交；否则回滚，报告
  //   一起撤销。
  throw new Error("TODO: write completeFenced (exercise 05a)");
}
