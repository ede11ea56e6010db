/**
 * `naive`: every POST inserts a report. Correct when nothing fails; any retry after a lost response
 * stores the report again.
 */
import type { Answer } from "../../protocol/http.ts";
import { created } from "../keyed-request.ts";
import type { CreateContext, Variant } from "../variant.ts";

export const naive: Variant = {
  name: "naive",
  async create(ctx: CreateContext): Promise<Answer> {
    await ctx.work();
    const report = await ctx.db.insertReport(ctx.report);
    ctx.database(ctx.db.words.reportInserted(report.id), true);
    // naive has one commit; a crash here is at the same moment as key-after's between its two: the
    // report is in, and no answer has left.
    ctx.crashPoint("between-commits");
    return created(report);
  },
};
