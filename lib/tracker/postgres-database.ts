/**
 * The tracker's database on PostgreSQL (database.ts's TrackerDatabase), over postgres-store.ts: the
 * same methods as on SQLite (sqlite-database.ts), with PostgreSQL's own statements:
 *
 *   insertReport         INSERT the report (autocommit)
 *   claimKey             the claim INSERT … ON CONFLICT DO NOTHING RETURNING fence (one statement),
 *                        or, for a key that is there, a read and perhaps a take-over
 *                        UPDATE … WHERE lease_until <= $now AND fence = $seen
 *   recordKey            INSERT the key completed, with its response (autocommit)
 *   completeWithReport   BEGIN, INSERT report, UPDATE key completed (with `AND state = 'in_progress'
 *                        AND fence = $fence` when fenced), COMMIT, or ROLLBACK unless one row changed
 *
 * The claim goes first, with no read before it: a new key (the common case) costs that one
 * statement; a key that is there already costs the claim, a SELECT, and perhaps a take-over.
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
import type { PostgresStore, PostgresTransaction } from "./postgres-store.ts";

/** How often a request that lost a race for a key reads it again before answering 409. */
const CLAIM_ROUNDS = 3;

// Every claim here draws a token from the sequence, keyed's too: its take-over's compare-and-set
// (`fence = $seen`) needs it. So the fence is said for both variants; the completion checks it only
// for fenced.
const WORDS: StatementWords = {
  reportInserted: (id) => ({
    what: "insert",
    report: id,
    text: t("INSERT report {id} (autocommit) · COMMIT", { id: String(id) }),
  }),
  keyClaimed(label, c, leaseMs) {
    const values = { label, fence: String(c.fence), ms: String(leaseMs) };
    if (c.takenFrom !== undefined)
      return {
        what: "take-over",
        fence: c.fence,
        was: c.takenFrom,
        text: t(
          "UPDATE {label} … WHERE lease_until <= now: TAKEN OVER (lease ran out), fence {fence} (was {was}), lease {ms} ms · COMMIT",
          { ...values, was: String(c.takenFrom) },
        ),
      };
    if (c.renewedFrom !== undefined)
      return {
        what: "claim",
        fence: c.fence,
        text: t(
          "UPDATE {label} … WHERE expires_at <= now: its TTL ran out, claimed as new, fence {fence} (was {was}), lease {ms} ms · COMMIT",
          { ...values, was: String(c.renewedFrom) },
        ),
      };
    return {
      what: "claim",
      fence: c.fence,
      text: t(
        "INSERT {label} … ON CONFLICT DO NOTHING RETURNING fence: claimed as in_progress, fence {fence}, lease {ms} ms · COMMIT",
        values,
      ),
    };
  },
  reportAndKeyCommitted: (label, id, fence) =>
    fence === undefined
      ? {
          what: "insert",
          report: id,
          text: t("BEGIN · INSERT report {id} + UPDATE {label} completed · COMMIT", {
            id: String(id),
            label,
          }),
        }
      : {
          what: "insert",
          report: id,
          fence,
          text: t(
            "BEGIN · INSERT report {id} + UPDATE {label} completed WHERE fence = {fence} · COMMIT",
            { id: String(id), label, fence: String(fence) },
          ),
        },
  reportAndKeyRolledBack: (label, id, fence) => ({
    what: "rollback",
    ...(id === undefined ? {} : { report: id }),
    ...(fence === undefined ? {} : { fence }),
    text:
      fence === undefined
        ? t(
            "BEGIN · INSERT report {id}, UPDATE {label} completed: 0 rows · ROLLBACK (report {id} undone)",
            { id: String(id ?? "?"), label },
          )
        : t(
            "BEGIN · INSERT report {id}, UPDATE {label} completed WHERE fence = {fence}: 0 rows · ROLLBACK (report {id} undone)",
            { id: String(id ?? "?"), label, fence: String(fence) },
          ),
  }),
};

/** The PostgreSQL database of a tracker, over an open store. */
export function postgresDatabase(store: PostgresStore): TrackerDatabase<PostgresStore> {
  /** The key's final state, in the caller's transaction; KeyNotOurs (rolling back) unless exactly one row changed. */
  const finish = async (
    tx: PostgresTransaction,
    caller: string,
    key: string,
    answer: Answer,
    fencedBy: number | undefined,
  ): Promise<void> => {
    const changed =
      fencedBy === undefined
        ? await tx.completeKey(caller, key, answer)
        : await tx.completeKeyFenced(caller, key, fencedBy, answer);
    if (changed !== 1) throw new KeyNotOurs();
  };
  return {
    store,
    words: WORDS,
    insertReport: (report) => store.insertReport(report),
    getReport: (id) => store.getReport(id),
    putReport: (id, report) => store.putReport(id, report),
    page: (after, limit, title) => store.page(after, limit, title),
    getKey: (caller, key) => store.getKey(caller, key),
    async claimKey({
      caller,
      key,
      fingerprint,
      now,
      leaseMs,
      ttlMs,
    }): Promise<Claimed | NotClaimed> {
      // A new key is claimed by the INSERT alone; a key that is there is read and decided on, and
      // taken over only if its lease (or TTL) ran out and nobody else took it first.
      for (let round = 1; ; round++) {
        const fence = await store.claimKey(caller, key, fingerprint, now(), leaseMs, ttlMs);
        if (fence !== undefined) return { claimed: true, fence };
        const row = await store.getKey(caller, key);
        const decision = decideKey(row, fingerprint, now());
        if (row === undefined && round < CLAIM_ROUNDS) continue; // swept between the two: claim again
        if (
          (decision.kind !== "claim" && decision.kind !== "take-over") ||
          row === undefined ||
          round >= CLAIM_ROUNDS
        ) {
          return { claimed: false, row, decision };
        }
        const taken = await store.takeOverKey(
          caller,
          key,
          fingerprint,
          now(),
          leaseMs,
          ttlMs,
          row.fence,
        );
        if (taken === undefined) continue;
        // A key past its TTL is new: claimed again by the UPDATE, as a take-over is.
        return decision.kind === "take-over"
          ? { claimed: true, fence: taken, takenFrom: row.fence }
          : { claimed: true, fence: taken, renewedFrom: row.fence };
      }
    },
    recordKey: (caller, key, fingerprint, response, now, ttlMs) =>
      store.recordKey(caller, key, fingerprint, response, now, ttlMs),
    async completeWithReport(caller, key, report, answerFor, fencedBy) {
      let reportId: number | undefined;
      try {
        const answer = await store.transaction(async (tx) => {
          const stored = await tx.insertReport(report);
          reportId = stored.id;
          const answer = answerFor(stored);
          await finish(tx, caller, key, answer, fencedBy);
          return answer;
        });
        return { stored: true, answer, reportId: reportId! };
      } catch (err) {
        if (!(err instanceof KeyNotOurs)) throw err;
        return { stored: false, reportId };
      }
    },
    async completeWithFailure(caller, key, failure, fencedBy) {
      try {
        await store.transaction((tx) => finish(tx, caller, key, failure, fencedBy));
        return true;
      } catch (err) {
        if (!(err instanceof KeyNotOurs)) throw err;
        return false;
      }
    },
    deleteExpired: (now, limit) => store.deleteExpired(now, limit),
    close: () => store.close(),
  };
}
