/**
 * Lesson 10's section 3 as the lesson prints it: one claim race (claim-race.ts) in a schema of its
 * own, each statement a connection sent shown in the trace as "[connection of instance N] …", and
 * what the lesson then says of the race, built from what the connections got back: the answers, the
 * isolation level the server reported, the rows each SELECT found.
 */
import { currentLang, t } from "../core/i18n.ts";
import type { Trace } from "../core/trace.ts";
import { withSchema } from "../postgres/schema.ts";
import { type ClaimDesign, claimRace, type RaceResult } from "./claim-race.ts";
import { andList, clauses } from "./instance-story.ts";

/** Runs one race on the server at `serverUrl`, in a fresh schema, telling the trace each statement. */
export function run(
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
        trace.event(
          "database",
          t("[connection of instance {instance}] {text}", { instance, text }),
          mark,
        ),
    }),
  );
}

/** The level both connections reported, or each one's if they differ, in capitals. */
export function levelOf(r: RaceResult): string {
  const [a, b] = r.isolation;
  return a === b ? a.toUpperCase() : t("{a} and {b}", { a: a.toUpperCase(), b: b.toUpperCase() });
}

const winners = (r: RaceResult): number => r.answers.filter((a) => a === "201").length;
/** One claim won and one key row is left: the unique constraint's promise. */
export const oneWon = (r: RaceResult): boolean => winners(r) === 1 && r.keyRows === 1;

/** What each connection got: "instance 1: 201, instance 2: 40001, then on its rerun 409". */
export function answersSeen(r: RaceResult): string {
  const [first, second] = r.answers;
  return r.rerun === undefined
    ? t("instance 1: {first}, instance 2: {second}", { first, second })
    : t("instance 1: {first}, instance 2: {second}, then on its rerun {rerun}", {
        first,
        second,
        rerun: r.rerun,
      });
}

/**
 * The constraint's race (3a, and 3d at SERIALIZABLE): one claim won, and the loser got either no
 * row back or 40001 and a rerun. `first` is 3a's race, when this one is 3d's.
 */
export function constraintStory(r: RaceResult, first?: RaceResult): string {
  const values = {
    level: levelOf(r),
    answer: r.answers[1],
    rerun: r.rerun ?? "",
    winners: winners(r),
    keyRows: r.keyRows,
  };
  if (!oneWon(r))
    return t("{winners} claims won, {keyRows} key rows for one key (isolation: {level})", values);
  if (first === undefined)
    return r.rerun === undefined
      ? t(
          "exactly one claim won; the other waited for it, got no row back and answered {answer} (isolation: {level})",
          values,
        )
      : t(
          "exactly one claim won; the other waited for it, got {answer} instead of an empty result, and its rerun answered {rerun} (isolation: {level})",
          values,
        );
  const as3a = oneWon(first) ? "yes" : "no";
  return r.rerun === undefined
    ? t(
        "{as3a, select, yes {one claim won, as in 3a} other {one claim won}}; the loser got no row back and answered {answer} (isolation: {level})",
        { ...values, as3a },
      )
    : t(
        "{as3a, select, yes {one claim won, as in 3a} other {one claim won}}; the loser got {answer} instead of an empty result, and its rerun answered {rerun} (isolation: {level})",
        { ...values, as3a },
      );
}

/** check-then-insert (3b, 3c): what the two SELECTs found, who claimed, at which level. */
export function checkThenInsertStory(r: RaceResult): string {
  const sawNone = r.found.length === 2 && r.found.every((n) => n === 0);
  const refused = r.answers.flatMap((code, i) =>
    code === "201" ? [] : [{ instance: i + 1, code }],
  );
  const level = levelOf(r);
  const only = refused.length === 1 ? refused[0] : undefined;
  if (sawNone && refused.length === 0)
    return t(
      "both looked, both found nothing, both claimed: {keyRows} key rows for one key (isolation: {level})",
      { keyRows: r.keyRows, level },
    );
  if (sawNone && only?.code === "40001")
    return t(
      "both looked, both found nothing; instance {instance}'s claim was refused with 40001, a serialization failure: it must be run again whole (isolation: {level})",
      { instance: only.instance, level },
    );
  const found = t("their SELECTs found {found} rows", { found: andList(r.found) });
  const answers = refused.map(({ instance, code }) =>
    t("instance {instance}'s claim was refused with {code}", { instance, code }),
  );
  return t("{story} (isolation: {level})", {
    story: clauses(
      answers.length === 0
        ? [found, t("both claimed: {keyRows} key rows for one key", { keyRows: r.keyRows })]
        : [found, ...answers],
    ),
    level,
  });
}

/**
 * 3b's paragraph: the level check-then-insert ran at (as the server reported it), what that level
 * let each SELECT see, and why the unique index, not the level, saved 3a; what 3a's loser got on
 * this server decides how the paragraph says what a loser gets.
 */
export function isolationParagraph(checkThenInsert: RaceResult, constraint: RaceResult): string {
  const level = levelOf(checkThenInsert);
  const found = checkThenInsert.found;
  const sawNone = found.length === 2 && found.every((n) => n === 0);
  const sentences = [
    t(
      "Both ran at {level}, the server's default, as read from the server on each connection (SHOW transaction_isolation).",
      { level },
    ),
  ];
  if (winners(checkThenInsert) < 2)
    sentences.push(
      t(
        "At this level the second claim was refused, as 3c shows at SERIALIZABLE on any server; at READ COMMITTED or REPEATABLE READ it goes in.",
      ),
    );
  const saw = { none: sawNone ? "yes" : "no", found: andList(found) };
  if (level === "READ COMMITTED")
    sentences.push(
      t(
        "Under it each statement sees what was committed when it began: both SELECTs began before either claim existed, so {none, select, yes {both saw none} other {they saw {found} rows}}.",
        saw,
      ),
    );
  if (level === "REPEATABLE READ")
    sentences.push(
      t(
        "Under it each transaction sees what was committed when its first statement began: both SELECTs began before either claim existed, so {none, select, yes {both saw none} other {they saw {found} rows}}.",
        saw,
      ),
    );
  sentences.push(
    level === "REPEATABLE READ"
      ? t(
          "REPEATABLE READ, the level this ran at, did not help: each transaction sees its own snapshot, and two INSERTs of new rows do not conflict.",
        )
      : t(
          "REPEATABLE READ would not help: each transaction would see its own snapshot, and two INSERTs of new rows do not conflict.",
        ),
    t(
      "What saved 3a was not the isolation level but the unique index on (caller, key): an INSERT of a key that another transaction has inserted waits for that transaction's outcome, and only one row gets in, at every level.",
    ),
    constraint.rerun === undefined
      ? t(
          "What the loser gets back depends on the level: at READ COMMITTED, ON CONFLICT DO NOTHING inserts nothing and returns no row (3a's 409); at REPEATABLE READ or SERIALIZABLE, when the winner committed after the loser's snapshot was taken, the loser's INSERT fails with SQLSTATE 40001 instead (3d).",
        )
      : t(
          "What the loser gets back depends on the level: at READ COMMITTED, ON CONFLICT DO NOTHING inserts nothing and returns no row; at REPEATABLE READ or SERIALIZABLE, when the winner committed after the loser's snapshot was taken, the loser's INSERT fails with SQLSTATE 40001 instead (3d, and 3a on this server: {answer}, then {rerun}).",
          { answer: constraint.answers[1], rerun: constraint.rerun },
        ),
    t(
      'The wait: PostgreSQL documentation, "Index Uniqueness Checks"; the 40001: PostgreSQL\'s source, nodeModifyTable.c, ExecCheckTupleVisible.',
    ),
  );
  return sentences.join(currentLang() === "zh" ? "" : " ");
}

/** A race's cell in the closing table: "1 (201 and 409)", "1 (201 and 40001, rerun → 409)". */
export function raceCell(r: RaceResult): string {
  const [first, second] = r.answers;
  return r.rerun === undefined
    ? t("{reports} ({first} and {second})", { reports: r.reports, first, second })
    : t("{reports} ({first} and {second}, rerun → {rerun})", {
        reports: r.reports,
        first,
        second,
        rerun: r.rerun,
      });
}
