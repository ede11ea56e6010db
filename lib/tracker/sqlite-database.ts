/**
 * The tracker's database on SQLite (database.ts's TrackerDatabase): the reports (store.ts) and the key
 * table (key-store.ts) in one file, on one connection, each method a short synchronous transaction.
 *
 * One connection is shared by every request, so no transaction may stay open across an await: the
 * statements of every other request that ran meanwhile would join it, and one rollback would undo
 * them all (store.ts refuses it). So the claim is one transaction, the work runs outside any, and the
 * completion is another; each method here begins and ends its own.
 *
 * The claim looks first, without the write lock: a completed key within its TTL never changes back,
 * so what one SELECT sees is the answer (a replay or a 422). Otherwise it looks again and claims in
 * one BEGIN IMMEDIATE transaction, so that of two requests with one key exactly one sees it free.
 */
import { t } from "../core/i18n.ts";
import type { Answer } from "../protocol/http.ts";
import { decideKey } from "../protocol/key-decision.ts";
import {
  type Claimed,
  KeyNotOurs,
  type NotClaimed,
  type StatementWords,
  type TrackerDatabase,
} from "./database.ts";
import { keyStoreOf } from "./key-store.ts";
import type { Report, ReportStore } from "./store.ts";

// The fence is said only where the claim drew one: keyed's claims leave fence 0 (it has none).
const WORDS: StatementWords = {
  reportInserted: (id) => ({
    what: "insert",
    report: id,
    text: t("INSERT report {id} · COMMIT", { id: String(id) }),
  }),
  keyClaimed(label, c, leaseMs) {
    const ms = String(leaseMs);
    if (c.takenFrom !== undefined)
      return c.fence > 0
        ? {
            what: "take-over",
            fence: c.fence,
            was: c.takenFrom,
            text: t(
              "TAKE OVER (lease ran out) {label} as in_progress, fence {fence} (was {was}), lease {ms} ms · COMMIT",
              { label, fence: String(c.fence), was: String(c.takenFrom), ms },
            ),
          }
        : {
            what: "take-over",
            text: t("TAKE OVER (lease ran out) {label} as in_progress, lease {ms} ms · COMMIT", {
              label,
              ms,
            }),
          };
    return c.fence > 0
      ? {
          what: "claim",
          fence: c.fence,
          text: t("claim {label} as in_progress, fence {fence}, lease {ms} ms · COMMIT", {
            label,
            fence: String(c.fence),
            ms,
          }),
        }
      : {
          what: "claim",
          text: t("claim {label} as in_progress, lease {ms} ms · COMMIT", { label, ms }),
        };
  },
  reportAndKeyCommitted: (label, id, fence) =>
    fence === undefined
      ? {
          what: "insert",
          report: id,
          text: t("INSERT report {id} + {label} completed · COMMIT", { id: String(id), label }),
        }
      : {
          what: "insert",
          report: id,
          fence,
          text: t("INSERT report {id} + {label} completed WHERE fence = {fence} · COMMIT", {
            id: String(id),
            label,
            fence: String(fence),
          }),
        },
  reportAndKeyRolledBack: (label, id, fence) => ({
    what: "rollback",
    ...(id === undefined ? {} : { report: id }),
    ...(fence === undefined ? {} : { fence }),
    text:
      fence === undefined
        ? t(
            "INSERT report {id}, UPDATE {label} completed: 0 rows · ROLLBACK (report {id} undone)",
            {
              id: String(id ?? "?"),
              label,
            },
          )
        : t(
            "INSERT report {id}, UPDATE {label} completed WHERE fence = {fence}: 0 rows · ROLLBACK (report {id} undone)",
            { id: String(id ?? "?"), label, fence: String(fence) },
          ),
  }),
};

/** The SQLite database of a tracker, over `store` (its key table is made beside it on first use). */
export function sqliteDatabase(store: ReportStore): TrackerDatabase<ReportStore> {
  const keys = () => keyStoreOf(store);
  /** The key's final state, in the caller's transaction; KeyNotOurs (rolling back) unless exactly one row changed. */
  const finish = (
    caller: string,
    key: string,
    answer: Answer,
    fencedBy: number | undefined,
  ): void => {
    const changed =
      fencedBy === undefined
        ? keys().complete(caller, key, answer)
        : keys().completeFenced(caller, key, fencedBy, answer);
    if (changed !== 1) throw new KeyNotOurs();
  };
  return {
    store,
    words: WORDS,
    insertReport: (report) => store.transaction(() => store.insertReport(report)),
    getReport: (id) => store.getReport(id),
    putReport: (id, report) => store.transaction(() => store.putReport(id, report)),
    page: (after, limit, title) => store.page(after, limit, title),
    getKey: (caller, key) => keys().get(caller, key),
    claimKey({ caller, key, fingerprint, now, leaseMs, ttlMs, fenced }): Claimed | NotClaimed {
      const seen = keys().get(caller, key);
      if (seen?.state === "completed") {
        const early = decideKey(seen, fingerprint, now());
        if (early.kind === "replay" || early.kind === "mismatch")
          return { claimed: false, row: seen, decision: early };
      }
      return store.transaction((): Claimed | NotClaimed => {
        const row = keys().get(caller, key);
        const decision = decideKey(row, fingerprint, now());
        if (decision.kind !== "claim" && decision.kind !== "take-over")
          return { claimed: false, row, decision };
        const fence = keys().claim(caller, key, fingerprint, now(), leaseMs, ttlMs, fenced);
        return decision.kind === "take-over"
          ? { claimed: true, fence, takenFrom: row!.fence }
          : { claimed: true, fence };
      });
    },
    recordKey: (caller, key, fingerprint, response, now, ttlMs) =>
      store.transaction(() => keys().record(caller, key, fingerprint, response, now, ttlMs)),
    completeWithReport(caller, key, report, answerFor, fencedBy) {
      let reportId: number | undefined;
      try {
        const answer = store.transaction(() => {
          const stored: Report = store.insertReport(report);
          reportId = stored.id;
          const answer = answerFor(stored);
          finish(caller, key, answer, fencedBy);
          return answer;
        });
        return { stored: true, answer, reportId: reportId! };
      } catch (err) {
        if (!(err instanceof KeyNotOurs)) throw err;
        return { stored: false, reportId };
      }
    },
    completeWithFailure(caller, key, failure, fencedBy) {
      try {
        store.transaction(() => finish(caller, key, failure, fencedBy));
        return true;
      } catch (err) {
        if (!(err instanceof KeyNotOurs)) throw err;
        return false;
      }
    },
    deleteExpired: (now, limit) => store.transaction(() => keys().deleteExpired(now, limit)),
    close: () => store.close(),
  };
}
