/**
 * `keyed`: claims the key as `in_progress` with a lease in one short transaction, does the work,
 * then stores the report and the response in one transaction. The same key replays the stored
 * response (`Idempotent-Replayed: true`), a different request under the key is 422, a key still in
 * progress within its lease is 409 with Retry-After, and an expired lease may be taken over.
 *
 * Two transactions, never one held across the work: the store has one connection shared by every
 * request, so a transaction left open across an `await` would take in the statements of every other
 * request that runs meanwhile, and one rollback would undo them all (store.ts refuses it).
 *
 * What breaks it: a take-over does not check who completes. A holder paused past its lease wakes
 * after another request took the key over, and still inserts its report: two reports (lesson 05).
 * The `fenced` variant differs in one place, marked below: it completes with `completeFenced` and
 * rolls the report back unless exactly one row changed.
 */
import { problem, type Answer } from "../http.ts";
import { created, inProgress, keyedRequest, mismatch, replay } from "../key-answers.ts";
import { decideKey } from "../key-decision.ts";
import type { CreateContext, Variant } from "../variant.ts";

export const keyed: Variant = {
  name: "keyed",
  async create(ctx: CreateContext): Promise<Answer> {
    const { key, fingerprint, keys, label } = keyedRequest(ctx);

    // 1. Look the key up and, if it is free, claim it: one short transaction, so that of two
    //    requests with one key exactly one sees it free.
    const step = ctx.store.transaction(() => {
      const row = keys.get(ctx.caller, key);
      const decision = decideKey(row, fingerprint, ctx.now());
      const fence =
        decision.kind === "claim" || decision.kind === "take-over"
          ? keys.claim(ctx.caller, key, fingerprint, ctx.now(), ctx.leaseMs, ctx.ttlMs)
          : undefined;
      return { row, decision, fence };
    });
    const { row, decision, fence } = step;
    switch (decision.kind) {
      case "replay":
        ctx.server(`${label} completed before: replaying the stored ${row!.response!.status}`, "ok");
        return replay(row!);
      case "mismatch":
        ctx.server(`${label} was used for a different request: 422`, "bad");
        throw mismatch(key);
      case "in-progress":
        ctx.server(`${label} is in progress (lease ends in ${Math.ceil(decision.retryAfterMs)} ms): 409`, "warn");
        throw inProgress(key, decision.retryAfterMs);
      case "claim":
      case "take-over":
        ctx.database(
          `${decision.kind === "claim" ? "claim" : "TAKE OVER (lease ran out)"} ${label} as in_progress, fence ${fence}, lease ${ctx.leaseMs} ms · COMMIT`,
        );
    }
    ctx.crashPoint("after-claim");

    // 2. The work, outside any transaction. A slow fault holds it here.
    try {
      await ctx.work();
    } catch (err) {
      // Execution began, so the failure is the key's result (Stripe API v1 saves 500s too).
      const failed = problem(500, "Internal Server Error", `the report could not be filed: ${err instanceof Error ? err.message : String(err)}`);
      ctx.store.transaction(() => keys.complete(ctx.caller, key, failed));
      ctx.database(`${label} completed with the error 500 (stored for replay) · COMMIT`);
      return failed;
    }

    // 3. The report and the response, in one transaction. (fenced: completeFenced, and roll back
    //    unless it changed exactly one row.)
    const answer = ctx.store.transaction(() => {
      const answer = created(ctx.store.insertReport(ctx.report));
      keys.complete(ctx.caller, key, answer);
      return answer;
    });
    ctx.database(`INSERT report ${(answer.body as { id: number }).id} + ${label} completed · COMMIT`, true);
    // The moment key-after has its report committed but not its key; here both are in.
    ctx.crashPoint("between-commits");
    return answer;
  },
};
