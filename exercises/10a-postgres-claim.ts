/**
 * Exercise 10a · The claim on PostgreSQL: one INSERT … ON CONFLICT … RETURNING
 *
 * Goal: claim an idempotency key on a PostgreSQL server shared by several tracker instances, in one
 * statement. A new (caller, key) goes in as 'in_progress' with the next fencing token from the
 * sequence idempotency_fence and a lease; a (caller, key) that is there already is left exactly as it is, and
 * the claim says so by returning no token. Two instances claiming one key at the same moment must end
 * with one claim, and at READ COMMITTED (PostgreSQL's default) the loser must get
 * undefined, not an error. (At REPEATABLE READ or SERIALIZABLE the loser fails with SQLSTATE 40001
 * instead and its caller runs the transaction again: lesson 10, section 3d.)
 *
 * Constraints: a real PostgreSQL server (the tests start one), the client `pg`, the tracker's own
 * tables (lib/postgres/key-claim.ts describes them: idempotency_keys with PRIMARY KEY (caller, key),
 * the sequence idempotency_fence; times are ms on the caller's clock: lease_until = now + leaseMs,
 * expires_at = now + ttlMs). One statement, no BEGIN: no SELECT before it (a check-then-insert loses
 * the race of lesson 10, section 3b). Return the token as a
 * JavaScript number (`pg` hands a bigint back as a string). Lesson 10, section 3a, shows the race
 * (run `npm run lesson 10`). Check your answer with `npm run check 10a`.
 *
 * 练习 10a · PostgreSQL 上的占键：一条 INSERT … ON CONFLICT … RETURNING
 *
 * 目标：在多个 Bug 库实例共用的 PostgreSQL 服务器上占一个幂等键，只用一条语句。新的 (caller, key)
 * 以 'in_progress' 插入，带上序列 idempotency_fence 的下一个 fencing token 和一份租约；已经存在的
 * (caller, key) 原样不动，占键时不返回 token，以此说明键已被占。两个实例同一时刻占同一个键，最后只
 * 能有一份占位；在 READ COMMITTED（PostgreSQL 的默认隔离级别）下，输的一方必须得到 undefined，而不
 * 是一个错误。（在 REPEATABLE READ 或 SERIALIZABLE 下，输的一方会以 SQLSTATE 40001 失败，由它的调用
 * 方重跑整个事务：第 10 课 3d 节。）
 *
 * 约束：真的 PostgreSQL 服务器（测试会启动一个），客户端用 `pg`，表用 Bug 库自己的
 * （lib/postgres/key-claim.ts 里有说明：idempotency_keys 带 PRIMARY KEY (caller, key)，还有序列
 * idempotency_fence；时间是调用方时钟上的毫秒数：lease_until = now + leaseMs，expires_at = now +
 * ttlMs）。只用一条语句，不要 BEGIN，之前也不要 SELECT（先查再插会输掉第 10 课 3b 节的那场竞争）。
 * token 要作为 JavaScript 的 number 返回（`pg` 把 bigint 作为字符串交回来）。第 10 课 3a 节演示这场
 * 竞争（`npm run lesson 10`）。用 `npm run check 10a` 检查你的答案。
 */
import type { ClientBase } from "pg";
import type { Claim } from "../lib/postgres/key-claim.ts";

/**
 * Claims `claim.key` for `claim.caller` as in progress, with the next value of idempotency_fence as its
 * fencing token. Returns that token, or undefined if a row for (caller, key) already exists (it is
 * left unchanged).
 */
export async function claimKey(db: ClientBase, claim: Claim): Promise<number | undefined> {
  // TODO: one INSERT into idempotency_keys that leaves an existing (caller, key) alone and hands back
  //   the new row's fence; pass the values as query parameters, never in the SQL text.
  // 待办：一条插入 idempotency_keys 的 INSERT：已有的 (caller, key) 不动，新行交回它的 fence；值用
  //   查询参数传，绝不拼进 SQL 文本。
  throw new Error("TODO: write claimKey (exercise 10a)");
}
