/**
 * `key-after`: "insert the report first, then record the key". It looks the key up, does the work,
 * inserts the report and commits, then records the key and its response in a second commit.
 * A recorded key replays; a different request under it is 422.
 *
 * What breaks it:
 * - a crash between the two commits: the report is in, the key is not, so the retry files again;
 * - two concurrent requests with one key: both look, both find nothing, both insert.
 * Nothing marks the key as taken while the work runs; `keyed` claims it first.
 */
import type { Answer } from "../../protocol/http.ts";
import { answerFromRecorded } from "../../protocol/key-answers.ts";
import { created, keyedRequest } from "../keyed-request.ts";
import type { CreateContext, Variant } from "../variant.ts";

export const keyAfter: Variant = {
  name: "key-after",
  async create(ctx: CreateContext): Promise<Answer> {
    const { key, fingerprint, label } = keyedRequest(ctx);

    // Its rows are only ever completed ones, so the decision is claim (go ahead), replay or 422.
    const recorded = answerFromRecorded(
      ctx,
      key,
      label,
      fingerprint,
      await ctx.db.getKey(ctx.caller, key),
    );
    if (recorded !== undefined) return recorded;

    await ctx.work();
    const answer = created(await ctx.db.insertReport(ctx.report));
    ctx.database(
      `INSERT report ${(answer.body as { id: number }).id} · COMMIT (first commit)`,
      true,
    );
    ctx.crashPoint("between-commits");
    await ctx.db.recordKey(ctx.caller, key, fingerprint, answer, ctx.now(), ctx.ttlMs);
    ctx.database(`INSERT ${label} with the response · COMMIT (second commit)`);
    return answer;
  },
};
