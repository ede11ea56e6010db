/**
 * Exercise 05b · Take over a claim whose lease has run out, with the next fencing token
 *
 * Goal: the take-over of the fenced tracker. `key` is in progress, but its holder has not finished
 * within its lease: from `now >= lease_until` on, another request may take the key over. It gets the
 * NEXT value of the database's fence counter (not the old token plus one: the counter is shared by every
 * key and only grows, so no two claims ever get the same token) and a fresh lease. The old holder's
 * token is now stale: its completion (exercise 05a) will change 0 rows.
 *
 * Constraints: a real SQLite database (`node:sqlite`, the schema in lib/tracker/fencing-schema.ts). The
 * read and both writes in one transaction (BEGIN IMMEDIATE takes the write lock first, so no other
 * connection can take the same key over between your read and your write); leave no transaction open;
 * change nothing at all when there is nothing to take over. Lesson 05, sections 1 and 2, show
 * take-overs live (run `npm run lesson 5`). Check your answer with `npm run check 05b`.
 *
 * 练习 05b · 接管租约已到期的占位，拿下一个 fencing token
 *
 * 目标：fenced Bug 库的接管。`key` 在处理中，但持有者没能在租约内做完：从 `now >= lease_until` 起，
 * 别的请求可以接管这个键。它拿到的是数据库里 fence 计数器的下一个值（不是旧 token 加一：计数器由所
 * 有键共用，只增不减，所以任何两次占键都不会拿到同一个 token），外加一份新租约。旧持有者的 token 从
 * 此过期：它的完成（练习 05a）会改到 0 行。
 *
 * 约束：真的 SQLite 数据库（`node:sqlite`，表结构在 lib/tracker/fencing-schema.ts）。一次读和两次写
 * 放在一个事务里（BEGIN IMMEDIATE 先拿写锁，这样在你读和写之间，别的连接没法接管同一个键）；不要留
 * 下没结束的事务；没有可接管的东西时，什么都不要改。第 05 课第 1、2 节现场演示接管
 * （`npm run lesson 5`）。用 `npm run check 05b` 检查你的答案。
 */
import type { DatabaseSync } from "node:sqlite";

/**
 * Takes `key` over if it is in progress and its lease has run out at `now` (ms): a new token from
 * fence_counter and lease_until = now + leaseMs. Returns the new token, or undefined if the key is
 * missing, completed, or its lease still runs (and then nothing changes).
 */
export function takeOver(
  db: DatabaseSync,
  key: string,
  now: number,
  leaseMs: number,
): number | undefined {
  // TODO: in one transaction, read the row; if its lease has run out, draw the next token from
  //   fence_counter and move the row to it with a fresh lease.
  // 待办：在一个事务里读出这一行；如果租约已到期，从 fence_counter 取下一个 token，把这一行改成新
  //   token 和新租约。
  throw new Error("TODO: write takeOver (exercise 05b)");
}
