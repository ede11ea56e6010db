/**
 * Lesson 10's section 5: two outbox dispatchers, one per instance, draining one outbox on the shared
 * PostgreSQL. Each is a real process (lib/outbox/postgres-dispatcher.ts) that the lesson steps:
 * `take()` opens its transaction and takes a batch, `deliver()` POSTs the batch to the notifier,
 * marks it sent and commits. The order of the steps is chosen here, so it is the same every run.
 *
 * Also here: what the lesson says of each run, built from what the dispatchers took, what the
 * notifier received, and the outbox's rows afterwards.
 */
import type pg from "pg";
import { t } from "../core/i18n.ts";
import type { Trace } from "../core/trace.ts";
import { startNotifier } from "../outbox/notifier.ts";
import { type PgDispatcher, startPgDispatcher } from "../outbox/postgres-dispatcher.ts";
import {
  createOutboxTables,
  fileWithOutboxRow,
  outboxStates,
  toSendRows,
} from "../outbox/postgres-outbox.ts";
import { withSchema } from "../postgres/schema.ts";
import { andList, clauses } from "./instance-story.ts";

/** Reports filed, each with its outbox row, before the dispatchers start. */
export const ROWS = 6;
/** Rows a dispatcher takes at a time. */
export const BATCH = 3;

/** One outbox, its connection, and the two dispatchers draining it. */
export interface OutboxRig {
  trace: Trace;
  db: pg.Client;
  dispatchers: [PgDispatcher, PgDispatcher];
}

/** What each dispatcher took, batch by batch, and the rows each POSTed to the notifier, in order. */
export interface Drained {
  taken: [number[][], number[][]];
  posted: [number[], number[]];
}

/** A drained outbox, measured: the rows filed, the outbox's rows by state, what the notifier got. */
export interface OutboxRun extends Drained {
  rows: number[];
  states: { toSend: number; sent: number };
  /** Notifications the maintainer received. */
  delivered: number;
  /** Among them, ones the maintainer already had. */
  duplicates: number;
  /** POSTs the notifier answered from a key it had seen (nothing delivered). */
  replays: number;
  /** Every POST the notifier got. */
  posts: number;
}

/**
 * A fresh outbox of ROWS rows (each filed with its report, in one transaction), a notifier and two
 * dispatcher processes, locking their batches (FOR UPDATE SKIP LOCKED) or not (a plain SELECT);
 * runs `work`, then measures.
 */
export function run<T extends Drained>(
  trace: Trace,
  serverUrl: string,
  lock: boolean,
  work: (rig: OutboxRig) => Promise<T>,
): Promise<T & OutboxRun> {
  return withSchema(serverUrl, "lesson10_outbox", async (url, db) => {
    await createOutboxTables(db);
    const rows: number[] = [];
    for (let i = 1; i <= ROWS; i++)
      rows.push((await fileWithOutboxRow(db, `Login button does nothing (${i})`)).rowId);
    trace.event(
      "database",
      t(
        "{reports} reports filed, each with its outbox row in the same transaction: {toSend} rows to send",
        { reports: rows.length, toSend: (await outboxStates(db)).toSend },
      ),
    );
    const notifier = await startNotifier({
      onEvent: (e) => trace.event("notifier", e.text, e.mark),
    });
    const hear = (instance: number) => (text: string, mark?: "ok" | "bad" | "warn") =>
      trace.event("outbox", t("[instance {instance}] {text}", { instance, text }), mark);
    const config = { url, notifierUrl: notifier.url, batch: BATCH, lock };
    const [d1, d2] = await Promise.all([
      startPgDispatcher(config, hear(1)),
      startPgDispatcher(config, hear(2)),
    ]);
    try {
      const result = await work({ trace, db, dispatchers: [d1, d2] });
      const delivered = notifier.delivered();
      return {
        ...result,
        rows,
        states: await outboxStates(db),
        delivered: delivered.length,
        duplicates: delivered.filter((n) => n.duplicate).length,
        replays: notifier.deduplicated,
        posts: delivered.length + notifier.deduplicated,
      };
    } finally {
      await Promise.all([d1.stop(), d2.stop()]);
      await notifier.close();
    }
  });
}

/**
 * 5a and 5b: round by round, both take a batch (both transactions open at once), then each
 * delivers and commits, one after the other, until both find nothing. A batch delivered is POSTed
 * whole.
 */
export async function sideBySide({ dispatchers: [d1, d2] }: OutboxRig): Promise<Drained> {
  const taken: Drained["taken"] = [[], []];
  for (;;) {
    const t1 = await d1.take();
    const t2 = await d2.take();
    await d1.deliver();
    await d2.deliver();
    if (t1.length === 0 && t2.length === 0) break;
    taken[0].push(t1);
    taken[1].push(t2);
  }
  return { taken, posted: [taken[0].flat(), taken[1].flat()] };
}

/**
 * 5c: both take a batch; instance 1's dispatcher kills itself (SIGKILL) right after the notifier
 * accepted the first row of its batch, before marking it sent. Once the server no longer lists its
 * backend (it has seen the connection close and rolled the transaction back), the outbox is read:
 * which rows are to_send, and which of them nobody holds. Then instance 2 delivers its batch and
 * goes on alone until nothing is left. `back`: the rows that came back to the outbox.
 */
export async function killOneMidBatch({
  trace,
  db,
  dispatchers: [d1, d2],
}: OutboxRig): Promise<Drained & { back: number[] }> {
  const t1 = await d1.take();
  const t2 = await d2.take();
  const first = t1[0];
  if (first === undefined)
    throw new Error(
      t("instance 1's dispatcher took no row, so there was no batch to kill it in the middle of"),
    );
  const committed = await d1.deliver(first);
  if (committed !== undefined)
    throw new Error(
      t(
        "instance 1's dispatcher was to kill itself after row {row} was accepted, but it committed {committed} row(s) instead",
        { row: first, committed },
      ),
    );
  const exit = await d1.exited;
  trace.event(
    "lesson",
    t("instance 1's dispatcher is gone ({signal}); its connection closed with it", {
      signal: exit.signal ?? exit.code ?? "?",
    }),
    "warn",
  );
  await backendGone(db, d1.backendPid);
  const { toSend, unlocked: back } = await toSendRows(db);
  const held = toSend.filter((row) => !back.includes(row));
  const values = { rows: back.join(", "), held: held.join(", ") };
  trace.event(
    "database",
    back.length === 0
      ? t("the server rolled back its transaction, and no row is to_send unlocked")
      : held.length > 0
        ? t(
            "the server rolled back its transaction: row(s) {rows} are to_send again, unlocked ({held} are to_send too, locked by instance 2's open batch)",
            values,
          )
        : t(
            "the server rolled back its transaction: row(s) {rows} are to_send again, unlocked",
            values,
          ),
  );
  await d2.deliver();
  const later: number[] = [];
  for (;;) {
    const more = await d2.take();
    await d2.deliver();
    if (more.length === 0) break;
    later.push(...more);
  }
  return { taken: [[t1], [t2, later]], posted: [[first], [...t2, ...later]], back };
}

/** Resolves once the server no longer lists backend `pid`: it has seen the connection close. */
async function backendGone(db: pg.Client, pid: number): Promise<void> {
  const until = Date.now() + 10_000;
  const listed = async (): Promise<boolean> =>
    (await db.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid])).rowCount !== 0;
  while (await listed()) {
    if (Date.now() > until)
      throw new Error(t("the server still lists backend {pid} after 10 s", { pid }));
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The same row ids, whatever the order. */
function sameRows(a: readonly number[], b: readonly number[]): boolean {
  const sorted = (x: readonly number[]): number[] => [...x].sort((p, q) => p - q);
  return a.length === b.length && sorted(a).every((row, i) => row === sorted(b)[i]);
}

/** The rows POSTed more than once, by either dispatcher. */
function postedTwice(run: Drained): number[] {
  const all = run.posted.flat();
  return [...new Set(all.filter((row, i) => all.indexOf(row) !== i))];
}

/** 5a and 5b, who knows it: what each dispatcher's first batch held. */
export function firstBatches(run: Drained, verb: "read" | "took"): string {
  const values = {
    first: (run.taken[0][0] ?? []).join(", "),
    second: (run.taken[1][0] ?? []).join(", "),
  };
  return verb === "read"
    ? t("instance 1 read rows {first}, instance 2 rows {second}", values)
    : t("instance 1 took rows {first}, instance 2 rows {second}", values);
}

/** 5a: a plain SELECT locks nothing, so both dispatchers read and send the same rows. */
export function unlockedStory(run: OutboxRun): string {
  const values = {
    posts: run.posts,
    rows: ROWS,
    twice: andList(postedTwice(run)),
    replays: run.replays,
    delivered: run.delivered,
  };
  if (run.posted.every((rows) => sameRows(rows, run.rows)))
    return t(
      "{posts} POSTs for {rows} rows: every row sent by both; the notifier replayed {replays} by key, so {delivered} notifications",
      values,
    );
  return postedTwice(run).length === 0
    ? t(
        "{posts} POSTs for {rows} rows: no row sent twice; the notifier replayed {replays} by key, so {delivered} notifications",
        values,
      )
    : t(
        "{posts} POSTs for {rows} rows: rows sent twice: {twice}; the notifier replayed {replays} by key, so {delivered} notifications",
        values,
      );
}

/** 5b: SKIP LOCKED, each row taken by one dispatcher. */
export function lockedStory(run: OutboxRun): string {
  const all = run.taken.flat(2);
  const twice = [...new Set(all.filter((row, i) => all.indexOf(row) !== i))];
  const values = {
    posts: run.posts,
    rows: ROWS,
    twice: twice.join(", "),
    sent: run.states.sent,
    toSend: run.states.toSend,
  };
  return twice.length === 0
    ? t(
        "{posts} POSTs to the notifier for {rows} rows: no row taken twice; {sent} rows sent, {toSend} to send",
        values,
      )
    : t(
        "{posts} POSTs to the notifier for {rows} rows: row(s) {twice} taken twice; {sent} rows sent, {toSend} to send",
        values,
      );
}

/** 5c, who knows it: what instance 2 took, first its own batch, then the rest. */
export function survivorTook(run: Drained): string {
  const [own = [], later = []] = run.taken[1];
  return t("instance 2 took rows {own}, then {later}", {
    own: own.join(", "),
    later: later.join(", "),
  });
}

/** 5c: the killed dispatcher's batch came back, and the survivor sent it again, by key. */
export function killedStory(run: OutboxRun & { back: number[] }): string {
  const later = run.taken[1][1] ?? [];
  const resent = run.posted[1].filter((row) => run.posted[0].includes(row));
  const values = {
    back: run.back.join(", "),
    later: later.join(", "),
    resent: andList(resent),
    replays: run.replays,
    delivered: run.delivered,
    rows: ROWS,
  };
  const back =
    run.back.length > 0 && sameRows(run.back, run.taken[0][0] ?? [])
      ? t("instance 1's batch came back to the outbox when its process died", values)
      : t("row(s) {back} came back to the outbox when instance 1's process died", values);
  const again =
    run.back.length > 0 && run.back.every((row) => later.includes(row))
      ? t("instance 2 sent it again", values)
      : t("instance 2 sent {later} again", values);
  const replayed =
    resent.length === 0
      ? t(
          "no row it had sent before: the notifier replayed {replays}, {delivered} notifications for {rows} rows",
          values,
        )
      : t(
          "row {resent} with the same key: the notifier replayed {replays, plural, one {it (# replay)} other {them (# replays)}}, {delivered} notifications for {rows} rows",
          values,
        );
  return clauses([back, t("{again}, {replayed}", { again, replayed })]);
}

/** The labels of section 5's counts: POSTs the notifier got, notifications the maintainer got. */
export const postsLabel = (): string => t("POSTs to the notifier ({rows} rows)", { rows: ROWS });
export const receivedLabel = (): string =>
  t("notifications the maintainer received ({rows} reports)", { rows: ROWS });

/** The closing table's cells of section 5. */
export const outboxCells = {
  unlocked: (run: OutboxRun): string =>
    t(
      "{bad, select, yes {✗ } other {}}{posts} POSTs: {twice} sent twice, kept to {delivered} notifications only by the notifier's key",
      {
        bad: run.posts > ROWS ? "yes" : "no",
        posts: run.posts,
        twice: postedTwice(run).length,
        delivered: run.delivered,
      },
    ),
  locked: (run: OutboxRun): string =>
    t("{delivered} notifications ({posts} POSTs, {duplicates} duplicates)", {
      delivered: run.delivered,
      posts: run.posts,
      duplicates: run.duplicates,
    }),
  killed: (run: OutboxRun): string =>
    t("{delivered} notifications ({posts} POSTs, {replays} replayed by key)", {
      delivered: run.delivered,
      posts: run.posts,
      replays: run.replays,
    }),
};
