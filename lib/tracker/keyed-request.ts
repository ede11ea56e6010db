/**
 * What the tracker's keyed variants read from a request first: its key (400 if missing or malformed),
 * the fingerprint of the report as the tracker understands it, and a label for the trace; and the
 * answer to a stored report.
 */

import { requestFingerprint } from "../protocol/fingerprint.ts";
import type { Answer } from "../protocol/http.ts";
import { requestKey, shortKey } from "../protocol/key-answers.ts";
import { normalisedReport } from "./report-body.ts";
import type { Report } from "./store.ts";
import type { CreateContext } from "./variant.ts";

/** What a keyed variant needs first: the key (400 if bad), the fingerprint, a label for the trace. */
export function keyedRequest(ctx: CreateContext): {
  key: string;
  fingerprint: string;
  label: string;
} {
  const key = requestKey(ctx);
  return { key, fingerprint: fingerprintOf(ctx), label: `key ${shortKey(key)}` };
}

/** The fingerprint of the report as the tracker understands it (report-body.ts), not of the raw bytes. */
export function fingerprintOf(ctx: Pick<CreateContext, "method" | "path" | "report">): string {
  return requestFingerprint(ctx.method, ctx.path, normalisedReport(ctx.report));
}

/** The answer to a stored report: 201, the report, its Location. */
export function created(report: Report): Answer {
  return { status: 201, body: report, headers: { location: `/reports/${report.id}` } };
}
