/**
 * `naive`: every POST inserts a report. Correct when nothing fails; any retry after a lost response
 * stores the report again.
 */
import type { Answer } from "../../protocol/http.ts";
import type { CreateContext, Variant } from "../variant.ts";

export const naive: Variant = {
  name: "naive",
  async create(ctx: CreateContext): Promise<Answer> {
    await ctx.work();
    const report = ctx.store.transaction(() => ctx.store.insertReport(ctx.report));
    ctx.database(`INSERT report ${report.id} · COMMIT`, true);
    // naive has one commit; a crash here is at the same moment as key-after's between its two: the
    // report is in, and no answer has left.
    ctx.crashPoint("between-commits");
    return { status: 201, body: report, headers: { location: `/reports/${report.id}` } };
  },
};
