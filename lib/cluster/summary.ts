/**
 * Lesson 10's closing table: one row per case, what was counted in this run (reports in the SQLite
 * files and the PostgreSQL schemas, notifications at the notifier) beside what one logical call
 * should leave.
 */
import type { RaceResult } from "./claim-race.ts";
import { type OutboxRun, outboxCells, ROWS } from "./dispatchers.ts";
import { raceCell } from "./race-story.ts";

/** What each case of lesson 10 measured. */
export interface LessonTenResults {
  /** Section 1: reports per instance's own file; section 2: reports and what the agent got. */
  own: { perInstance: readonly number[] };
  shared: { reports: number; gotten: string };
  races: {
    constraint: RaceResult;
    checkThenInsert: RaceResult;
    serializable: RaceResult;
    constraintSerializable: RaceResult;
  };
  paused: { keyed: number; fenced: number };
  outbox: { unlocked: OutboxRun; locked: OutboxRun; killed: OutboxRun };
}

export function summaryTable(r: LessonTenResults): { header: string[]; rows: string[][] } {
  const ownReports = r.own.perInstance.reduce((a, b) => a + b, 0);
  return {
    header: ["case", "counted", "one logical call should leave"],
    rows: [
      [
        "keys in each instance's own file",
        `${ownReports} (per instance: ${r.own.perInstance.join(", ")})`,
        "1",
      ],
      ["keys in the shared PostgreSQL", `${r.shared.reports} (${r.shared.gotten})`, "1"],
      [
        "one key, two instances: unique constraint + ON CONFLICT",
        raceCell(r.races.constraint),
        "1",
      ],
      [
        "one key, two instances: check-then-insert, no constraint",
        raceCell(r.races.checkThenInsert),
        "1",
      ],
      ["the same at SERIALIZABLE", raceCell(r.races.serializable), "1"],
      [
        "unique constraint + ON CONFLICT at SERIALIZABLE",
        raceCell(r.races.constraintSerializable),
        "1",
      ],
      ["paused past its lease on instance 1, keyed", String(r.paused.keyed), "1"],
      ["paused past its lease on instance 1, fenced", String(r.paused.fenced), "1"],
      [
        "two dispatchers, plain SELECT (no lock)",
        outboxCells.unlocked(r.outbox.unlocked),
        `${ROWS} POSTs`,
      ],
      ["two dispatchers, SKIP LOCKED", outboxCells.locked(r.outbox.locked), String(ROWS)],
      ["one dispatcher killed mid-batch", outboxCells.killed(r.outbox.killed), String(ROWS)],
    ],
  };
}
