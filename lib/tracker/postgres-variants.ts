/**
 * The variants on PostgreSQL (postgres-store.ts): the same rules and answers as on SQLite
 * (variants/*.ts), from the same decision (key-decision.ts `decideKey`) and the same answers
 * (key-answers.ts); only the statements are PostgreSQL's own.
 *
 *   naive      INSERT the report (autocommit)
 *   key-after  SELECT the key; INSERT the report (commit 1); INSERT the key completed (commit 2)
 *   keyed      the claim INSERT … ON CONFLICT DO NOTHING RETURNING fence (one statement), or a
 *              take-over UPDATE … WHERE lease_until <= $now; the work; then BEGIN, INSERT report,
 *              UPDATE key completed, COMMIT
 *   fenced     keyed, with `AND state = 'in_progress' AND fence = $fence` on that UPDATE: a holder
 *              that was taken over changes 0 rows, and its transaction rolls back, report included
 *
 * The claim goes first, with no read before it: a new key (the common case) costs that one
 * statement; a key that is there already costs the claim, a SELECT, and perhaps a take-over.
 */
import { problem, type Answer } from "../protocol/http.ts";
import { answerFromKey, answerFromRecorded, requestKey, shortKey } from "../protocol/key-answers.ts";
import { created, fingerprintOf } from "./keyed-request.ts";
import { decideKey } from "../protocol/key-decision.ts";
import type { PostgresStore, PostgresTransaction } from "./postgres-store.ts";
import type { CreateContext, Variant, VariantName } from "./variant.ts";

type Ctx = CreateContext<PostgresStore>;

/** Thrown inside the completing transaction when the key is no longer ours: it rolls everything back. */
class StaleClaim extends Error {
  constructor() {
    super("the claim is stale: another request holds the key now");
  }
}

/** How often a request that lost a race for a key reads it again before answering 409. */
const CLAIM_ROUNDS = 3;

const naive: Variant<PostgresStore> = {
  name: "naive",
  async create(ctx) {
    await ctx.work();
    const report = await ctx.store.insertReport(ctx.report);
    ctx.database(`INSERT report ${report.id} (autocommit) · COMMIT`, true);
    ctx.crashPoint("between-commits");
    return created(report);
  },
};

const keyAfter: Variant<PostgresStore> = {
  name: "key-after",
  async create(ctx) {
    const { key, fingerprint, label } = keyedRequest(ctx);
    const recorded = answerFromRecorded(ctx, key, label, fingerprint, await ctx.store.getKey(ctx.caller, key));
    if (recorded !== undefined) return recorded;
    await ctx.work();
    const answer = created(await ctx.store.insertReport(ctx.report));
    ctx.database(`INSERT report ${(answer.body as { id: number }).id} · COMMIT (first commit)`, true);
    ctx.crashPoint("between-commits");
    await ctx.store.recordKey(ctx.caller, key, fingerprint, answer, ctx.now(), ctx.ttlMs);
    ctx.database(`INSERT ${label} with the response · COMMIT (second commit)`);
    return answer;
  },
};

function keyedRequest(ctx: Ctx): { key: string; fingerprint: string; label: string } {
  const key = requestKey(ctx);
  return { key, fingerprint: fingerprintOf(ctx), label: `key ${shortKey(key)}` };
}

/** keyed (checkFence false) and fenced (true) on PostgreSQL: one implementation, as on SQLite. */
function claimThenComplete(name: "keyed" | "fenced", checkFence: boolean): Variant<PostgresStore> {
  return {
    name,
    async create(ctx) {
      const { key, fingerprint, label } = keyedRequest(ctx);
      const { store } = ctx;
      const where = (fence: number): string => (checkFence ? ` WHERE fence = ${fence}` : "");

      // 1. The claim. A new key is claimed by the INSERT alone; a key that is there is read and
      //    decided on, and taken over only if its lease (or TTL) ran out and nobody else took it first.
      let fence: number | undefined;
      let takenFrom: number | undefined;
      /** A key past its TTL is new: claimed again by the UPDATE, as a take-over is. */
      let renewed: number | undefined;
      for (let round = 1; fence === undefined; round++) {
        fence = await store.claimKey(ctx.caller, key, fingerprint, ctx.now(), ctx.leaseMs, ctx.ttlMs);
        if (fence !== undefined) break;
        const row = await store.getKey(ctx.caller, key);
        const decision = decideKey(row, fingerprint, ctx.now());
        if (row === undefined && round < CLAIM_ROUNDS) continue; // swept between the two: claim again
        if ((decision.kind !== "claim" && decision.kind !== "take-over") || row === undefined || round >= CLAIM_ROUNDS) {
          return answerFromKey(ctx, key, label, row, decision);
        }
        fence = await store.takeOverKey(ctx.caller, key, fingerprint, ctx.now(), ctx.leaseMs, ctx.ttlMs, row.fence);
        if (fence !== undefined && decision.kind === "take-over") takenFrom = row.fence;
        if (fence !== undefined && decision.kind === "claim") renewed = row.fence;
      }
      ctx.database(
        takenFrom !== undefined
          ? `UPDATE ${label} … WHERE lease_until <= now: TAKEN OVER (lease ran out), fence ${fence} (was ${takenFrom}), lease ${ctx.leaseMs} ms · COMMIT`
          : renewed !== undefined
            ? `UPDATE ${label} … WHERE expires_at <= now: its TTL ran out, claimed as new, fence ${fence} (was ${renewed}), lease ${ctx.leaseMs} ms · COMMIT`
            : `INSERT ${label} … ON CONFLICT DO NOTHING RETURNING fence: claimed as in_progress, fence ${fence}, lease ${ctx.leaseMs} ms · COMMIT`,
      );
      const held = fence;
      ctx.claimed(held, takenFrom);
      ctx.crashPoint("after-claim");

      /** The key's final state, in the caller's transaction; throws StaleClaim unless exactly one row changed. */
      const finish = async (tx: PostgresTransaction, answer: Answer): Promise<void> => {
        const changed = checkFence ? await tx.completeKeyFenced(ctx.caller, key, held, answer) : await tx.completeKey(ctx.caller, key, answer);
        if (changed !== 1) throw new StaleClaim();
      };

      // 2. The work, outside any transaction.
      try {
        await ctx.work();
      } catch (err) {
        const failed = problem(500, "Internal Server Error", `the report could not be filed: ${err instanceof Error ? err.message : String(err)}`);
        try {
          await store.transaction((tx) => finish(tx, failed));
        } catch (stale) {
          if (!(stale instanceof StaleClaim)) throw stale;
          ctx.database(`UPDATE ${label} to the error 500${where(held)}: 0 rows, another claim holds it · ROLLBACK (the failure is not stored)`);
          return answerAfterStale(ctx, key, label, fingerprint);
        }
        ctx.database(`${label} completed with the error 500${where(held)} (stored for replay) · COMMIT`);
        return failed;
      }

      // 3. BEGIN, the report, the key's response, COMMIT; rolled back whole unless the key was ours.
      let inserted: number | undefined;
      let answer: Answer;
      try {
        answer = await store.transaction(async (tx) => {
          const answer = created(await tx.insertReport(ctx.report));
          inserted = (answer.body as { id: number }).id;
          await finish(tx, answer);
          return answer;
        });
      } catch (stale) {
        if (!(stale instanceof StaleClaim)) throw stale;
        ctx.database(`BEGIN · INSERT report ${inserted}, UPDATE ${label} completed${where(held)}: 0 rows · ROLLBACK (report ${inserted} undone)`);
        return answerAfterStale(ctx, key, label, fingerprint);
      }
      ctx.database(`BEGIN · INSERT report ${inserted} + UPDATE ${label} completed${where(held)} · COMMIT`, true);
      ctx.crashPoint("between-commits");
      return answer;
    },
  };
}

/** A stale holder answers from what the key holds now: the winner's response, or 409 while it runs. */
async function answerAfterStale(ctx: Ctx, key: string, label: string, fingerprint: string): Promise<Answer> {
  const row = await ctx.store.getKey(ctx.caller, key);
  ctx.server(`fenced out: ${label} belongs to fence ${row?.fence ?? "none"} now`, "warn");
  return answerFromKey(ctx, key, label, row, decideKey(row, fingerprint, ctx.now()));
}

const variants: Record<VariantName, Variant<PostgresStore>> = {
  naive,
  "key-after": keyAfter,
  keyed: claimThenComplete("keyed", false),
  fenced: claimThenComplete("fenced", true),
};

/** The PostgreSQL implementation of a variant. */
export function postgresVariant(name: VariantName): Variant<PostgresStore> {
  return variants[name];
}
