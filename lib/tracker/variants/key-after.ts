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
import { t } from "../../core/i18n.ts";
import type { Answer } from "../../protocol/http.ts";
import { answerIfRecorded, created, keyedRequest } from "../keyed-request.ts";
import type { CreateContext, Variant } from "../variant.ts";

export const keyAfter: Variant = {
  name: "key-after",
  async create(ctx: CreateContext): Promise<Answer> {
    const { key, fingerprint, label } = keyedRequest(ctx);

    // Its rows are only ever completed ones, so the decision is go ahead, replay or 422.
    const recorded = answerIfRecorded(
      ctx,
      key,
      label,
      fingerprint,
      await ctx.db.getKey(ctx.caller, key),
    );
    if (recorded !== undefined) return recorded;

    await ctx.work();
    const report = await ctx.db.insertReport(ctx.report);
    const answer = created(report);
    ctx.database(
      {
        what: "insert",
        report: report.id,
        text: t("INSERT report {id} · COMMIT (first commit)", { id: String(report.id) }),
      },
      true,
    );
    ctx.crashPoint("between-commits");
    await ctx.db.recordKey(ctx.caller, key, fingerprint, answer, ctx.now(), ctx.ttlMs);
    ctx.database({
      what: "record-key",
      text: t("INSERT {label} with the response · COMMIT (second commit)", { label }),
    });
    return answer;
  },
};
