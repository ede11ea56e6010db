/**
 * The tracker's database on SQLite (database.ts's TrackerDatabase): the reports (store.ts) and the key
 * table (key-store.ts) in one file, on one connection, each method a short synchronous transaction.
 *
 * One connection is shared by every request, so no transaction may stay open across an await: the
 * statements of every other request that ran meanwhile would join it, and one rollback would undo
 * them all (store.ts refuses it). So the claim is one transaction, the work runs outside any, and the
 * completion is another; each method here begins and ends its own.
 *
 * Another process may hold the file's write lock (another tracker on the same file, a learner's
 * `sqlite3` shell): node:sqlite is synchronous, so SQLite's own busy wait would stop every request of
 * this process, reads included, until the lock came free. Here the connection does not wait
 * (`busy_timeout = 0`, service.ts); a statement that finds the file locked is tried again on a
 * timer, from 2 ms apart up to 50 ms apart, while the other requests go on (reads in WAL mode need
 * no lock), and after `lockWaitMs` gives up with DatabaseUnavailable: 503 with Retry-After.
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
  type Completion,
  DatabaseUnavailable,
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

/** How long a statement waits for another connection's write lock by default, ms. */
export const DEFAULT_LOCK_WAIT_MS = 5_000;

/** SQLITE_BUSY (and its extended codes): another connection holds the lock this statement needs. */
function isBusy(err: unknown): boolean {
  const code = (err as { errcode?: unknown }).errcode;
  return typeof code === "number" && (code & 0xff) === 5;
}

/**
 * `run` now if the file is free; otherwise again and again on a timer, the event loop free between
 * tries, for at most `waitMs`; then DatabaseUnavailable. `run` is one whole synchronous transaction
 * (or a read), so a try that found the lock taken has done nothing.
 */
function whenFree<T>(run: () => T, waitMs: number, path: string): T | Promise<T> {
  try {
    return run();
  } catch (err) {
    if (!isBusy(err)) throw err;
  }
  return (async () => {
    const until = performance.now() + waitMs;
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      try {
        return run();
      } catch (err) {
        if (!isBusy(err)) throw err;
      }
      if (performance.now() >= until)
        throw new DatabaseUnavailable(
          `another connection has held the write lock on the SQLite file ${path} for ${waitMs} ms`,
        );
    }
  })();
}

/** The SQLite database of a tracker, over `store` (its key table is made beside it on first use). */
export function sqliteDatabase(
  store: ReportStore,
  options: { lockWaitMs?: number } = {},
): TrackerDatabase<ReportStore> {
  const waitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
  const free = <T>(run: () => T): T | Promise<T> => whenFree(run, waitMs, store.path);
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
    insertReport: (report) => free(() => store.transaction(() => store.insertReport(report))),
    getReport: (id) => free(() => store.getReport(id)),
    putReport: (id, report) => free(() => store.transaction(() => store.putReport(id, report))),
    page: (after, limit, title) => free(() => store.page(after, limit, title)),
    getKey: (caller, key) => free(() => keys().get(caller, key)),
    claimKey: ({ caller, key, fingerprint, now, leaseMs, ttlMs, fenced }) =>
      free((): Claimed | NotClaimed => {
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
      }),
    recordKey: (caller, key, fingerprint, response, now, ttlMs) =>
      free(() =>
        store.transaction(() => keys().record(caller, key, fingerprint, response, now, ttlMs)),
      ),
    completeWithReport: (caller, key, report, answerFor, fencedBy) =>
      free((): Completion => {
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
      }),
    completeWithFailure: (caller, key, failure, fencedBy) =>
      free(() => {
        try {
          store.transaction(() => finish(caller, key, failure, fencedBy));
          return true;
        } catch (err) {
          if (!(err instanceof KeyNotOurs)) throw err;
          return false;
        }
      }),
    deleteExpired: (now, limit) =>
      free(() => store.transaction(() => keys().deleteExpired(now, limit))),
    close: () => store.close(),
  };
}
