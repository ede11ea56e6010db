/**
 * The outbox of lesson 07 on PostgreSQL, drained by several dispatchers at once. On SQLite one
 * dispatcher at a time reads the 'to_send' rows; on a shared PostgreSQL every instance may run one,
 * and they must not send the same row side by side. Each takes a batch of rows in a transaction that
 * locks them:
 *
 *   SELECT id, report_id, payload FROM outbox WHERE state = 'to_send'
 *   ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
 *
 * FOR UPDATE locks the rows it returns until the transaction ends; SKIP LOCKED makes another
 * dispatcher's same query pass over rows locked by someone else instead of waiting for them
 * (PostgreSQL documentation, SELECT, "The Locking Clause"). The dispatcher delivers each row and
 * marks it 'sent' inside that transaction, and commits the batch. If it dies first, PostgreSQL rolls
 * its transaction back when the connection goes: the rows are 'to_send' again and unlocked, and the
 * next batch of another dispatcher takes them, the rows it had already delivered included. So each row
 * is still delivered at least once, and the key derived from the row (`downstreamKey`) is what lets the
 * notifier turn a redelivery into a replay.
 */
import type { ClientBase } from "pg";
import { httpCall } from "../client/client.ts";
import { t } from "../core/i18n.ts";
import { describeDelivery, type NotificationRequest } from "./notifier.ts";
import { downstreamKey, notificationFor, TRACKER_CALLER } from "./outbox.ts";

/** One outbox row as a dispatcher takes it. */
export interface PgOutboxRow {
  id: number;
  reportId: number;
  notification: NotificationRequest;
}

/** Creates the reports and outbox tables (in the connection's schema). */
export async function createOutboxTables(db: ClientBase): Promise<void> {
  await db.query(`
    CREATE TABLE reports (
      id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      title text NOT NULL
    );
    CREATE TABLE outbox (
      id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      report_id bigint NOT NULL REFERENCES reports (id),
      payload   jsonb  NOT NULL,
      state     text   NOT NULL DEFAULT 'to_send' CHECK (state IN ('to_send', 'sent'))
    );`);
}

/** Files a report and its outbox row in one transaction, as the tracker's outbox hook does. */
export async function fileWithOutboxRow(
  db: ClientBase,
  title: string,
): Promise<{ reportId: number; rowId: number }> {
  await db.query("BEGIN");
  try {
    const report = await db.query<{ id: string }>(
      "INSERT INTO reports (title) VALUES ($1) RETURNING id",
      [title],
    );
    const reportId = Number(report.rows[0]!.id);
    const row = await db.query<{ id: string }>(
      "INSERT INTO outbox (report_id, payload) VALUES ($1, $2) RETURNING id",
      [reportId, JSON.stringify(notificationFor({ id: reportId, title }))],
    );
    await db.query("COMMIT");
    return { reportId, rowId: Number(row.rows[0]!.id) };
  } catch (err) {
    await db.query("ROLLBACK");
    throw err;
  }
}

/** The statement that takes a batch: the rows nobody else holds, locked until this transaction ends. */
export const TAKE_BATCH_SQL = `SELECT id, report_id, payload FROM outbox WHERE state = 'to_send'
  ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`;

/** The tempting version: the same rows, read without locking them; two dispatchers read the same ones. */
export const READ_BATCH_SQL = `SELECT id, report_id, payload FROM outbox WHERE state = 'to_send'
  ORDER BY id LIMIT $1`;

/**
 * Opens a transaction and takes at most `limit` rows (locked with FOR UPDATE SKIP LOCKED, or only
 * read when `lock` is false); finish it with `deliverBatch` (or ROLLBACK). The transaction is READ
 * COMMITTED whatever the server's default: its UPDATEs mark rows that another dispatcher may have
 * marked since the batch was read (the unlocked version), which READ COMMITTED allows and REPEATABLE
 * READ or SERIALIZABLE would fail with 40001, after the notifier had already been called.
 */
export async function takeBatch(
  db: ClientBase,
  limit: number,
  lock = true,
): Promise<PgOutboxRow[]> {
  await db.query("BEGIN ISOLATION LEVEL READ COMMITTED");
  const { rows } = await db.query<{ id: string; report_id: string; payload: NotificationRequest }>(
    lock ? TAKE_BATCH_SQL : READ_BATCH_SQL,
    [limit],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    reportId: Number(r.report_id),
    notification: r.payload,
  }));
}

export interface DeliverOptions {
  notifierUrl: string;
  say?: (text: string, mark?: "ok" | "bad" | "warn") => void;
  /** Runs after the notifier accepted a row, before it is marked sent (a lesson kills the process here). */
  afterAccepted?: (row: PgOutboxRow) => void;
}

/**
 * Delivers each taken row with its key, marks it sent, and commits the batch. A row the notifier
 * refuses stays 'to_send' (its UPDATE is not run); the commit then releases it for a later batch.
 */
export async function deliverBatch(
  db: ClientBase,
  rows: readonly PgOutboxRow[],
  options: DeliverOptions,
): Promise<number> {
  const say = options.say ?? (() => {});
  let delivered = 0;
  try {
    for (const row of rows) {
      const key = downstreamKey(row);
      say(t("row {id} → POST /notifications (Idempotency-Key {key})", { id: String(row.id), key }));
      const outcome = await httpCall({
        method: "POST",
        url: `${options.notifierUrl}/notifications`,
        body: row.notification,
        headers: { authorization: `Bearer ${TRACKER_CALLER}`, "idempotency-key": `"${key}"` },
        timeoutMs: 5_000,
      });
      const accepted = outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300;
      say(
        t("row {id} ← {delivery}", { id: String(row.id), delivery: describeDelivery(outcome) }),
        accepted ? "ok" : "bad",
      );
      if (!accepted) continue;
      options.afterAccepted?.(row);
      await db.query("UPDATE outbox SET state = 'sent' WHERE id = $1", [row.id]);
      delivered += 1;
    }
    await db.query("COMMIT");
  } catch (err) {
    await db.query("ROLLBACK").catch(() => {});
    throw err;
  }
  return delivered;
}

/** The outbox's rows by state, read by anyone (no locks taken). */
export async function outboxStates(db: ClientBase): Promise<{ toSend: number; sent: number }> {
  const { rows } = await db.query<{ state: string; n: string }>(
    "SELECT state, count(*) AS n FROM outbox GROUP BY state",
  );
  const of = (s: string): number => Number(rows.find((r) => r.state === s)?.n ?? 0);
  return { toSend: of("to_send"), sent: of("sent") };
}

/** The ids of the 'to_send' rows, and which of them nobody holds (a SKIP LOCKED look of its own, rolled back). */
export async function toSendRows(
  db: ClientBase,
): Promise<{ toSend: number[]; unlocked: number[] }> {
  const ids = (rows: { id: string }[]): number[] => rows.map((r) => Number(r.id));
  const toSend = ids(
    (await db.query<{ id: string }>("SELECT id FROM outbox WHERE state = 'to_send' ORDER BY id"))
      .rows,
  );
  await db.query("BEGIN");
  try {
    return {
      toSend,
      unlocked: ids(
        (
          await db.query<{ id: string }>(
            "SELECT id FROM outbox WHERE state = 'to_send' ORDER BY id FOR UPDATE SKIP LOCKED",
          )
        ).rows,
      ),
    };
  } finally {
    await db.query("ROLLBACK");
  }
}
