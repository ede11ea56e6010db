/**
 * `keyed` and `fenced`: one implementation, parameterised by a single choice, whether a claim has a
 * fencing token that the writes finishing it check. Everything else is the same code.
 *
 * Both claim the key as `in_progress` with a lease in one short transaction, do the work, then store
 * the report and the response in one transaction. The same key replays the stored response
 * (`Idempotent-Replayed: true`), a different request under the key is 422, a key still in progress
 * within its lease is 409 with Retry-After, and an expired lease may be taken over. fenced's claims,
 * a new one or a take-over, draw the next fencing token from a counter in the database; keyed's draw
 * none on SQLite (on PostgreSQL every claim draws one from the sequence, which its take-over needs:
 * postgres-store.ts).
 *
 * Two transactions, never one held across the work (on SQLite one connection is shared by every
 * request: a transaction left open across an `await` would take in the statements of every other
 * request that runs meanwhile, and one rollback would undo them all).
 *
 * This is the protocol, written once for both stores: the statements and transactions are the
 * database's (database.ts; SQLite's in sqlite-database.ts, PostgreSQL's in postgres-database.ts), and
 * so are the trace's words for them, which name each store's own SQL.
 *
 * The difference (lesson 05): after a take-over, two requests believe they hold the key, the one
 * that took it over and the old holder that was only paused past its lease.
 * - `keyed` finishes with `UPDATE … WHERE caller = ? AND key = ?`: the paused holder, waking, still
 *   completes the key and inserts its report. Two reports, and its stored response overwrites the
 *   new holder's (or its stored failure wipes the new holder's claim).
 * - `fenced` adds `AND state = 'in_progress' AND fence = ?` with the token of its own claim. A stale
 *   holder's update changes 0 rows; the transaction rolls back, its report with it, and it answers
 *   from what the key holds now: the winner's stored response, or 409 while the winner still runs.
 * Both roll back unless exactly one row changed; for `keyed` that never happens
 * (the row is there), so the fence and its condition are the whole difference.
 */
import { t } from "../../core/i18n.ts";
import { type Answer, detailLanguage, inClientLanguage, problem } from "../../protocol/http.ts";
import { decideKey } from "../../protocol/key-decision.ts";
import { answerKeyNotFree, created, keyedRequest } from "../keyed-request.ts";
import type { CreateContext, Variant } from "../variant.ts";

/** A keyed variant: `checkFence` decides whether finishing a claim is conditional on its token. */
export function claimThenComplete(name: "keyed" | "fenced", checkFence: boolean): Variant {
  return {
    name,
    async create(ctx: CreateContext): Promise<Answer> {
      const { key, fingerprint, label } = keyedRequest(ctx);
      const { db } = ctx;

      // 1. Look the key up and, if it is free, claim it (the database makes the look and the claim
      //    one step, so that of two requests with one key exactly one sees it free). Only fenced's
      //    claims draw a fencing token.
      const claim = await db.claimKey({
        caller: ctx.caller,
        key,
        fingerprint,
        now: () => ctx.now(),
        leaseMs: ctx.leaseMs,
        ttlMs: ctx.ttlMs,
        fenced: checkFence,
      });
      if (!claim.claimed) return answerKeyNotFree(ctx, key, label, claim.row, claim.decision);
      ctx.database(db.words.keyClaimed(label, claim, ctx.leaseMs));
      ctx.claimed(key, claim.takenFrom !== undefined);
      ctx.crashPoint("after-claim");
      // The writes that finish the claim: for fenced, only while this claim still holds the key.
      const fencedBy = checkFence ? claim.fence : undefined;

      // 2. The work, outside any transaction. A slow or pause-past-lease fault holds it here.
      try {
        await ctx.work();
      } catch (err) {
        // Execution began, so the failure is the key's result (Stripe API v1 saves 500s too).
        // Stored as the client will read it: in Chinese for a client that asked for it (and
        // replayed so to every retry), else in English.
        const reason = err instanceof Error ? err.message : String(err);
        const said = t("the report could not be filed: {reason}", {
          reason: (err as { said?: string }).said ?? reason,
        });
        const failed: Answer = inClientLanguage(
          {
            ...problem(500, "Internal Server Error", `the report could not be filed: ${reason}`),
            said,
          },
          detailLanguage(ctx.headers),
        );
        if (!(await db.completeWithFailure(ctx.caller, key, failed, fencedBy))) {
          ctx.database({
            what: "failure-rollback",
            ...(fencedBy === undefined ? {} : { fence: fencedBy }),
            text:
              fencedBy === undefined
                ? t(
                    "UPDATE {label} to the error 500: 0 rows, another claim holds it · ROLLBACK (the failure is not stored)",
                    { label },
                  )
                : t(
                    "UPDATE {label} to the error 500 WHERE fence = {fence}: 0 rows, another claim holds it · ROLLBACK (the failure is not stored)",
                    { label, fence: String(fencedBy) },
                  ),
          });
          return answerAfterStale(ctx, key, label, fingerprint);
        }
        ctx.database({
          what: "store-error",
          status: 500,
          ...(fencedBy === undefined ? {} : { fence: fencedBy }),
          text:
            fencedBy === undefined
              ? t("{label} completed with the error 500 (stored for replay) · COMMIT", { label })
              : t(
                  "{label} completed with the error 500 WHERE fence = {fence} (stored for replay) · COMMIT",
                  { label, fence: String(fencedBy) },
                ),
        });
        return failed;
      }

      // 3. The report and the response, in one transaction, rolled back whole unless the key was ours.
      const done = await db.completeWithReport(ctx.caller, key, ctx.report, created, fencedBy);
      if (!done.stored) {
        ctx.database(db.words.reportAndKeyRolledBack(label, done.reportId, fencedBy));
        return answerAfterStale(ctx, key, label, fingerprint);
      }
      ctx.database(db.words.reportAndKeyCommitted(label, done.reportId, fencedBy), true);
      // The moment key-after has its report committed but not its key; here both are in, and the
      // answer has not left yet.
      ctx.crashPoint("between-commits");
      return done.answer;
    },
  };
}

/** A stale holder answers from what the key holds now: the winner's response, or 409 while it runs. */
async function answerAfterStale(
  ctx: CreateContext,
  key: string,
  label: string,
  fingerprint: string,
): Promise<Answer> {
  const row = await ctx.db.getKey(ctx.caller, key);
  ctx.server({
    what: "fenced-out",
    mark: "warn",
    ...(row ? { fence: row.fence } : {}),
    text: row
      ? t("fenced out: {label} belongs to fence {fence} now", { label, fence: String(row.fence) })
      : t("fenced out: {label} belongs to fence none now", { label }),
  });
  return answerKeyNotFree(ctx, key, label, row, decideKey(row, fingerprint, ctx.now()));
}

export const keyed: Variant = claimThenComplete("keyed", false);
