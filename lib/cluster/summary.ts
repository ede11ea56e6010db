/**
 * Lesson 10's closing table: one row per case, what was counted in this run (reports in the SQLite
 * files and the PostgreSQL schemas, notifications at the notifier) beside what one logical call
 * should leave.
 */
import { t } from "../core/i18n.ts";
import type { RaceResult } from "./claim-race.ts";
import { type OutboxRun, outboxCells, ROWS } from "./dispatchers.ts";
import { raceCell } from "./race-story.ts";

/** What each case of lesson 10 measured. */
export interface LessonTenResults {
  /** Section 1: reports per instance's own file; section 2: reports and what the agent got. */
  own: { perInstance: readonly number[] };
  shared: { reports: number; gotten: string };
  /** Section 3: ON CONFLICT and check-then-insert, at the server's level and at SERIALIZABLE. */
  races: {
    onConflict: RaceResult;
    checked: RaceResult;
    checkedSerial: RaceResult;
    onConflictSerial: RaceResult;
  };
  paused: { keyed: number; fenced: number };
  outbox: { unlocked: OutboxRun; locked: OutboxRun; killed: OutboxRun };
}

export function summaryTable(r: LessonTenResults): { header: string[]; rows: string[][] } {
  const ownReports = r.own.perInstance.reduce((a, b) => a + b, 0);
  return {
    header: [t("case"), t("counted"), t("one logical call should leave")],
    rows: [
      [
        t("keys in each instance's own file"),
        t("{reports} (per instance: {counts})", {
          reports: ownReports,
          counts: r.own.perInstance.join(", "),
        }),
        "1",
      ],
      [
        t("keys in the shared PostgreSQL"),
        t("{reports} ({gotten})", { reports: r.shared.reports, gotten: r.shared.gotten }),
        "1",
      ],
      [
        t("one key, two instances: unique constraint + ON CONFLICT"),
        raceCell(r.races.onConflict),
        "1",
      ],
      [
        t("one key, two instances: check-then-insert, no constraint"),
        raceCell(r.races.checked),
        "1",
      ],
      [t("the same at SERIALIZABLE"), raceCell(r.races.checkedSerial), "1"],
      [
        t("unique constraint + ON CONFLICT at SERIALIZABLE"),
        raceCell(r.races.onConflictSerial),
        "1",
      ],
      [t("paused past its lease on instance 1, keyed"), String(r.paused.keyed), "1"],
      [t("paused past its lease on instance 1, fenced"), String(r.paused.fenced), "1"],
      [
        t("two dispatchers, plain SELECT (no lock)"),
        outboxCells.unlocked(r.outbox.unlocked),
        t("{rows} POSTs", { rows: ROWS }),
      ],
      [t("two dispatchers, SKIP LOCKED"), outboxCells.locked(r.outbox.locked), String(ROWS)],
      [t("one dispatcher killed mid-batch"), outboxCells.killed(r.outbox.killed), String(ROWS)],
    ],
  };
}
