/**
 * Lesson 10's section 3 as the lesson prints it: one claim race (claim-race.ts) in a schema of its
 * own, each statement a connection sent shown in the trace as "[connection of instance N] …", and
 * what the lesson then says of the race, built from what the connections got back: the answers, the
 * isolation level the server reported, the rows each SELECT found.
 */
import type { Trace } from "../core/trace.ts";
import { withSchema } from "../postgres/schema.ts";
import { type ClaimDesign, claimRace, type RaceResult } from "./claim-race.ts";
import { andList } from "./instance-story.ts";

/** Runs one race on the server at `serverUrl`, in a fresh schema, telling the trace each statement. */
export function runRace(
  trace: Trace,
  serverUrl: string,
  design: ClaimDesign,
  isolation?: "SERIALIZABLE",
): Promise<RaceResult> {
  return withSchema(serverUrl, "lesson10_race", (url) =>
    claimRace({
      url,
      design,
      ...(isolation ? { isolation } : {}),
      say: (instance, text, mark) =>
        trace.event("database", `[connection of instance ${instance}] ${text}`, mark),
    }),
  );
}

/** The level both connections reported, or each one's if they differ, in capitals. */
export function levelOf(r: RaceResult): string {
  const [a, b] = r.isolation;
  return (a === b ? a : `${a} and ${b}`).toUpperCase();
}

const winners = (r: RaceResult): number => r.answers.filter((a) => a === "201").length;
/** One claim won and one key row is left: the unique constraint's promise. */
export const oneWon = (r: RaceResult): boolean => winners(r) === 1 && r.keyRows === 1;

/** What each connection got: "instance 1: 201, instance 2: 40001, then on its rerun 409". */
export function answersSeen(r: RaceResult): string {
  const [a, b] = r.answers;
  return r.rerun === undefined
    ? `instance 1: ${a}, instance 2: ${b}`
    : `instance 1: ${a}, instance 2: ${b}, then on its rerun ${r.rerun}`;
}

/**
 * The constraint's race (3a, and 3d at SERIALIZABLE): one claim won, and the loser got either no
 * row back or 40001 and a rerun. `first` is 3a's race, when this one is 3d's.
 */
export function constraintStory(r: RaceResult, first?: RaceResult): string {
  const level = levelOf(r);
  const [, answer] = r.answers;
  if (!oneWon(r))
    return `${winners(r)} claims won, ${r.keyRows} key rows for one key (isolation: ${level})`;
  const loser =
    r.rerun === undefined
      ? `got no row back and answered ${answer}`
      : `got ${answer} instead of an empty result, and its rerun answered ${r.rerun}`;
  if (first === undefined)
    return `exactly one claim won; the other waited for it, ${loser} (isolation: ${level})`;
  const won = oneWon(first) ? "one claim won, as in 3a" : "one claim won";
  return `${won}; the loser ${loser} (isolation: ${level})`;
}

/** check-then-insert (3b, 3c): what the two SELECTs found, who claimed, at which level. */
export function checkThenInsertStory(r: RaceResult): string {
  return `${lookedAndClaimed(r)} (isolation: ${levelOf(r)})`;
}

function lookedAndClaimed(r: RaceResult): string {
  const sawNone = r.found.length === 2 && r.found.every((n) => n === 0);
  const looked = sawNone
    ? "both looked, both found nothing"
    : `their SELECTs found ${andList(r.found)} rows`;
  const refused = r.answers.flatMap((a, i) =>
    a === "201"
      ? []
      : [
          a === "40001"
            ? `instance ${i + 1}'s claim was refused with ${a}, a serialization failure`
            : `instance ${i + 1}'s claim was refused with ${a}`,
        ],
  );
  if (refused.length === 0) return `${looked}, both claimed: ${r.keyRows} key rows for one key`;
  return `${looked}; ${refused.join(", ")}: it must be run again whole`;
}

/**
 * 3b's paragraph: the level check-then-insert ran at (as the server reported it), what that level
 * let each SELECT see, and why the unique index, not the level, saved 3a; what 3a's loser got on
 * this server decides how the paragraph says what a loser gets.
 */
export function isolationParagraph(checkThenInsert: RaceResult, constraint: RaceResult): string {
  const level = levelOf(checkThenInsert);
  const found = checkThenInsert.found;
  const saw =
    found.length === 2 && found.every((n) => n === 0)
      ? "both saw none"
      : `they saw ${andList(found)} rows`;
  const sentences = [
    `Both ran at ${level}, the server's default, as read from the server on each connection (SHOW transaction_isolation).`,
  ];
  if (winners(checkThenInsert) < 2)
    sentences.push(
      "At this level the second claim was refused, as 3c shows at SERIALIZABLE on any server; at READ COMMITTED or REPEATABLE READ it goes in.",
    );
  if (level === "READ COMMITTED")
    sentences.push(
      `Under it each statement sees what was committed when it began: both SELECTs began before either claim existed, so ${saw}.`,
    );
  if (level === "REPEATABLE READ")
    sentences.push(
      `Under it each transaction sees what was committed when its first statement began: both SELECTs began before either claim existed, so ${saw}.`,
    );
  sentences.push(
    level === "REPEATABLE READ"
      ? "REPEATABLE READ, the level this ran at, did not help: each transaction sees its own snapshot, and two INSERTs of new rows do not conflict."
      : "REPEATABLE READ would not help: each transaction would see its own snapshot, and two INSERTs of new rows do not conflict.",
    "What saved 3a was not the isolation level but the unique index on (caller, key): an INSERT of a key that another transaction has inserted waits for that transaction's outcome, and only one row gets in, at every level.",
    constraint.rerun === undefined
      ? "What the loser gets back depends on the level: at READ COMMITTED, ON CONFLICT DO NOTHING inserts nothing and returns no row (3a's 409); at REPEATABLE READ or SERIALIZABLE, when the winner committed after the loser's snapshot was taken, the loser's INSERT fails with SQLSTATE 40001 instead (3d)."
      : `What the loser gets back depends on the level: at READ COMMITTED, ON CONFLICT DO NOTHING inserts nothing and returns no row; at REPEATABLE READ or SERIALIZABLE, when the winner committed after the loser's snapshot was taken, the loser's INSERT fails with SQLSTATE 40001 instead (3d, and 3a on this server: ${constraint.answers[1]}, then ${constraint.rerun}).`,
    `The wait: PostgreSQL documentation, "Index Uniqueness Checks"; the 40001: PostgreSQL's source, nodeModifyTable.c, ExecCheckTupleVisible.`,
  );
  return sentences.join(" ");
}

/** A race's cell in the closing table: "1 (201 and 409)", "1 (201 and 40001, rerun → 409)". */
export function raceCell(r: RaceResult): string {
  const [a, b] = r.answers;
  return r.rerun === undefined
    ? `${r.reports} (${a} and ${b})`
    : `${r.reports} (${a} and ${b}, rerun → ${r.rerun})`;
}
