/**
 * `keyed` and `fenced`: one implementation, parameterised by a single choice, whether the writes
 * that finish a claim check its fencing token. Everything else is the same code.
 *
 * Both claim the key as `in_progress` with a lease in one short transaction, do the work, then store
 * the report and the response in one transaction. The same key replays the stored response
 * (`Idempotent-Replayed: true`), a different request under the key is 422, a key still in progress
 * within its lease is 409 with Retry-After, and an expired lease may be taken over. Every claim, a
 * new one or a take-over, draws the next fencing token from a counter in the database.
 *
 * Two transactions, never one held across the work: the store has one connection shared by every
 * request, so a transaction left open across an `await` would take in the statements of every other
 * request that runs meanwhile, and one rollback would undo them all (store.ts refuses it).
 *
 * The difference (lesson 05): after a take-over, two requests believe they hold the key, the one
 * that took it over and the old holder that was only paused past its lease.
 * - `keyed` finishes with `UPDATE … WHERE caller = ? AND key = ?`: the paused holder, waking, still
 *   completes the key and inserts its report. Two reports, and its stored response overwrites the
 *   new holder's (or its stored failure wipes the new holder's claim).
 * - `fenced` adds `AND state = 'in_progress' AND fence = ?` with the token of its own claim. A stale
 *   holder's update changes 0 rows; the transaction rolls back, its report with it, and it answers
 *   from what the key holds now: the winner's stored response, or 409 while the winner still runs.
 * Both throw inside the transaction unless exactly one row changed; for `keyed` that never happens
 * (the row is there), so the fence condition is the whole difference.
 */
import { problem, type Answer } from "../../protocol/http.ts";
import { answerFromKey } from "../../protocol/key-answers.ts";
import { created, keyedRequest } from "../keyed-request.ts";
import { decideKey } from "../../protocol/key-decision.ts";
import type { KeyStore } from "../key-store.ts";
import type { CreateContext, Variant } from "../variant.ts";

/** Thrown inside the completing transaction when the key is no longer ours: it rolls everything back. */
class StaleClaim extends Error {
  constructor() {
    super("the claim is stale: another request holds the key now");
  }
}

/** A keyed variant: `checkFence` decides whether finishing a claim is conditional on its token. */
export function claimThenComplete(name: "keyed" | "fenced", checkFence: boolean): Variant {
  return {
    name,
    async create(ctx: CreateContext): Promise<Answer> {
      const { key, fingerprint, keys, label } = keyedRequest(ctx);
      const where = (fence: number): string => (checkFence ? ` WHERE fence = ${fence}` : "");

      // 0. A completed key answers from a plain read, without the write lock: a completed row
      //    within its TTL never changes back, so what one SELECT sees is the answer (replay or 422).
      const seen = keys.get(ctx.caller, key);
      if (seen?.state === "completed") {
        const early = decideKey(seen, fingerprint, ctx.now());
        if (early.kind === "replay" || early.kind === "mismatch") return answerFromKey(ctx, key, label, seen, early);
      }

      // 1. Look the key up and, if it is free, claim it: one short transaction, so that of two
      //    requests with one key exactly one sees it free.
      const { row, decision, fence } = ctx.store.transaction(() => {
        const row = keys.get(ctx.caller, key);
        const decision = decideKey(row, fingerprint, ctx.now());
        const fence =
          decision.kind === "claim" || decision.kind === "take-over"
            ? keys.claim(ctx.caller, key, fingerprint, ctx.now(), ctx.leaseMs, ctx.ttlMs)
            : undefined;
        return { row, decision, fence };
      });
      if (fence === undefined) return answerFromKey(ctx, key, label, row, decision);
      const takenFrom = decision.kind === "take-over" ? row!.fence : undefined;
      ctx.database(
        `${takenFrom === undefined ? "claim" : "TAKE OVER (lease ran out)"} ${label} as in_progress, fence ${fence}${
          takenFrom === undefined ? "" : ` (was ${takenFrom})`
        }, lease ${ctx.leaseMs} ms · COMMIT`,
      );
      ctx.claimed(fence, takenFrom);
      ctx.crashPoint("after-claim");

      /** Writes the key's final state; throws StaleClaim (rolling back) unless exactly one row changed. */
      const finish = (answer: Answer): void => {
        const changed = checkFence ? keys.completeFenced(ctx.caller, key, fence, answer) : keys.complete(ctx.caller, key, answer);
        if (changed !== 1) throw new StaleClaim();
      };

      // 2. The work, outside any transaction. A slow or pause-past-lease fault holds it here.
      try {
        await ctx.work();
      } catch (err) {
        // Execution began, so the failure is the key's result (Stripe API v1 saves 500s too).
        const failed = problem(500, "Internal Server Error", `the report could not be filed: ${err instanceof Error ? err.message : String(err)}`);
        try {
          ctx.store.transaction(() => finish(failed));
        } catch (stale) {
          if (!(stale instanceof StaleClaim)) throw stale;
          ctx.database(`UPDATE ${label} to the error 500${where(fence)}: 0 rows, another claim holds it · ROLLBACK (the failure is not stored)`);
          return answerAfterStale(ctx, keys, key, label, fingerprint);
        }
        ctx.database(`${label} completed with the error 500${where(fence)} (stored for replay) · COMMIT`);
        return failed;
      }

      // 3. The report and the response, in one transaction, rolled back whole unless the key was ours.
      let inserted: number | undefined;
      let answer: Answer;
      try {
        answer = ctx.store.transaction(() => {
          const answer = created(ctx.store.insertReport(ctx.report));
          inserted = (answer.body as { id: number }).id;
          finish(answer);
          return answer;
        });
      } catch (stale) {
        if (!(stale instanceof StaleClaim)) throw stale;
        ctx.database(`INSERT report ${inserted}, UPDATE ${label} completed${where(fence)}: 0 rows · ROLLBACK (report ${inserted} undone)`);
        return answerAfterStale(ctx, keys, key, label, fingerprint);
      }
      ctx.database(`INSERT report ${inserted} + ${label} completed${where(fence)} · COMMIT`, true);
      // The moment key-after has its report committed but not its key; here both are in, and the
      // answer has not left yet.
      ctx.crashPoint("between-commits");
      return answer;
    },
  };
}

/** A stale holder answers from what the key holds now: the winner's response, or 409 while it runs. */
function answerAfterStale(ctx: CreateContext, keys: KeyStore, key: string, label: string, fingerprint: string): Answer {
  const row = keys.get(ctx.caller, key);
  ctx.server(`fenced out: ${label} belongs to fence ${row?.fence ?? "none"} now`, "warn");
  return answerFromKey(ctx, key, label, row, decideKey(row, fingerprint, ctx.now()));
}

export const keyed: Variant = claimThenComplete("keyed", false);
