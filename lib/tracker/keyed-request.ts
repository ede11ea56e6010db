/**
 * What the tracker's keyed variants read from a request first: its key (400 if missing or
 * malformed), the fingerprint of the report as the tracker understands it, and a label for the
 * trace; the answers when the key is not free, told to the trace; and the answer to a stored report.
 */

import { t } from "../core/i18n.ts";
import { requestFingerprint } from "../protocol/fingerprint.ts";
import type { Answer } from "../protocol/http.ts";
import {
  answerFromKey,
  answerFromRecorded,
  requestKey,
  type StoredKey,
  shortKey,
} from "../protocol/key-answers.ts";
import { decideKey, type KeyDecision } from "../protocol/key-decision.ts";
import { normalisedReport } from "./report-body.ts";
import type { Report } from "./store.ts";
import type { CreateContext } from "./variant.ts";

/** What a keyed variant needs first: the key (400 if bad), the fingerprint, the trace's label. */
export function keyedRequest(ctx: CreateContext): {
  key: string;
  fingerprint: string;
  label: string;
} {
  const key = requestKey(ctx);
  return { key, fingerprint: fingerprintOf(ctx), label: keyLabel(key) };
}

/** A key as the trace names it: "key 6cb0f7c0…bf0a". */
export function keyLabel(key: string): string {
  return t("key {key}", { key: shortKey(key) });
}

/** The fingerprint of the report as the tracker reads it (report-body.ts), not of the raw bytes. */
export function fingerprintOf(ctx: Pick<CreateContext, "method" | "path" | "report">): string {
  return requestFingerprint(ctx.method, ctx.path, normalisedReport(ctx.report));
}

/** The answer to a stored report: 201, the report, its Location. */
export function created(report: Report): Answer {
  return { status: 201, body: report, headers: { location: `/reports/${report.id}` } };
}

/** keyed and fenced, when the key was not free: replay, 422 or 409 (thrown), said in the trace. */
export function answerKeyNotFree(
  ctx: Pick<CreateContext, "server">,
  key: string,
  label: string,
  row: StoredKey | undefined,
  decision: KeyDecision,
): Answer {
  switch (decision.kind) {
    case "replay": {
      const status = row!.response!.status;
      ctx.server({
        what: "replay",
        status,
        mark: "ok",
        text: t("{label} completed before: replaying the stored {status}", { label, status }),
      });
      break;
    }
    case "mismatch":
      ctx.server({
        what: "422",
        status: 422,
        mark: "bad",
        text: t("{label} was used for a different request: 422", { label }),
      });
      break;
    case "in-progress":
      ctx.server({
        what: "409",
        status: 409,
        mark: "warn",
        text: t("{label} is in progress (lease ends in {ms} ms): 409", {
          label,
          ms: String(Math.ceil(decision.retryAfterMs)),
        }),
      });
      break;
    case "claim":
    case "take-over":
      ctx.server({
        what: "409",
        status: 409,
        mark: "warn",
        text: t("{label} is held by no live claim: 409, try again", { label }),
      });
      break;
  }
  return answerFromKey(key, row, decision);
}

/**
 * key-after's look before the work: a recorded key replays, a different request under it is 422
 * (thrown); otherwise undefined, and the request goes ahead. Said in the trace.
 */
export function answerIfRecorded(
  ctx: Pick<CreateContext, "server" | "now">,
  key: string,
  label: string,
  fingerprint: string,
  row: StoredKey | undefined,
): Answer | undefined {
  const decision = decideKey(row, fingerprint, ctx.now());
  if (decision.kind === "replay") {
    const status = row!.response!.status;
    ctx.server({
      what: "replay",
      status,
      mark: "ok",
      text: t("{label} recorded before: replaying the stored {status}", { label, status }),
    });
  } else if (decision.kind === "mismatch")
    ctx.server({
      what: "422",
      status: 422,
      mark: "bad",
      text: t("{label} was recorded for a different request: 422", { label }),
    });
  else ctx.server({ what: "look-up", text: t("{label} not recorded yet: going ahead", { label }) });
  return answerFromRecorded(key, row, decision);
}
