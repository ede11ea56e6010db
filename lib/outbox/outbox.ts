/**
 * Telling a third party about each report exactly once (lesson 07), on SQLite. This module is the
 * outbox: a "to send" row written in the same transaction as the report, and a dispatcher that
 * delivers the rows to the notifier (notifier.ts) later, apart from any request.
 *
 *   outbox        one row per notification owed: the report it is about, the notification as JSON,
 *                 and its state, 'to_send' until the notifier has accepted it, then 'sent'
 *
 * The row shares the report's fate: the tracker's store hook (side-effects.ts, inTransaction) inserts
 * it right after the report, inside the same transaction, so a report is never stored without its
 * row, nor a row without its report (a fenced rollback takes both).
 *
 * The dispatcher reads the 'to_send' rows, posts each to the notifier, and marks it 'sent' once the
 * notifier said 2xx. Between "accepted" and "marked sent" it can die: the row is still 'to_send', so
 * the next dispatcher sends it again. Delivery is at least once, and only the receiver can make it
 * once: each row is sent with a key derived from the row (`downstreamKey`), the same on every
 * redelivery, and the notifier answers a key it has seen from its store instead of delivering again.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { httpCall } from "../client/client.ts";
import { t } from "../core/i18n.ts";
import { shortKey } from "../protocol/key-answers.ts";
import { type Report, ReportStore } from "../tracker/store.ts";
import { describeDelivery, type NotificationRequest } from "./notifier.ts";
import type { OutboxRow } from "./outbox-row.ts";

export type { OutboxRow };

interface Row {
  id: number;
  report_id: number;
  payload: string;
  state: "to_send" | "sent";
}

export class Outbox {
  readonly #add: StatementSync;
  readonly #pending: StatementSync;
  readonly #markSent: StatementSync;
  readonly #all: StatementSync;

  constructor(db: DatabaseSync) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS outbox (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        report_id INTEGER NOT NULL REFERENCES reports (id),
        payload   TEXT    NOT NULL,
        state     TEXT    NOT NULL DEFAULT 'to_send' CHECK (state IN ('to_send', 'sent'))
      );
    `);
    const cols = "id, report_id, payload, state";
    this.#add = db.prepare(
      `INSERT INTO outbox (report_id, payload) VALUES (?, ?) RETURNING ${cols}`,
    );
    this.#pending = db.prepare(`SELECT ${cols} FROM outbox WHERE state = 'to_send' ORDER BY id`);
    this.#markSent = db.prepare(
      "UPDATE outbox SET state = 'sent' WHERE id = ? AND state = 'to_send'",
    );
    this.#all = db.prepare(`SELECT ${cols} FROM outbox ORDER BY id`);
  }

  /** Adds the row owed for `report`. Call it inside the report's transaction. */
  add(report: Report): OutboxRow {
    return toRow(
      this.#add.get(report.id, JSON.stringify(notificationFor(report))) as unknown as Row,
    );
  }

  pending(): OutboxRow[] {
    return (this.#pending.all() as unknown as Row[]).map(toRow);
  }

  all(): OutboxRow[] {
    return (this.#all.all() as unknown as Row[]).map(toRow);
  }

  /** Marks a row sent; returns 1, or 0 if it was sent already (a redelivery). In a transaction. */
  markSent(id: number): number {
    return Number(this.#markSent.run(id).changes);
  }
}

const outboxes = new WeakMap<ReportStore, Outbox>();

/** The outbox table beside a report store (created on first use). */
export function outboxOf(store: ReportStore): Outbox {
  let outbox = outboxes.get(store);
  if (!outbox) {
    outbox = new Outbox(store.db);
    outboxes.set(store, outbox);
  }
  return outbox;
}

/** The line the maintainer reads about a report with this title. */
export function subjectFor(title: string): string {
  return t("New bug report: {title}", { title });
}

/** What the maintainer is told about a stored report. */
export function notificationFor(report: Pick<Report, "id" | "title">): NotificationRequest {
  return { subject: subjectFor(report.title), reportId: report.id };
}

/** The outbox rows of a tracker's database file, read after (or beside) its tracker. */
export function outboxRowsIn(path: string): OutboxRow[] {
  const store = new ReportStore(path);
  try {
    return outboxOf(store).all();
  } finally {
    store.close();
  }
}

/**
 * The key a row is delivered with: derived from the row, so every redelivery carries the same one.
 * AUTOINCREMENT never hands out an id twice in the table's life, so no two rows share a key.
 */
export function downstreamKey(row: Pick<OutboxRow, "id">): string {
  return `outbox-row-${row.id}`;
}

/** The name the tracker's own calls to the notifier go out under (`Authorization: Bearer …`). */
export const TRACKER_CALLER = "bug-tracker";

export interface DispatchOptions {
  store: ReportStore;
  notifierUrl: string;
  /** Send each row's downstream key. Without it a redelivery is a second notification. */
  withKey: boolean;
  /** Tells the trace what the dispatcher did. */
  say?: (text: string, mark?: "ok" | "bad" | "warn") => void;
  /**
   * The named point between "the notifier accepted the row" and "the row is marked sent": a test or
   * lesson kills the dispatcher here.
   */
  afterAccepted?: (row: OutboxRow) => void;
  /** How long one delivery may take (default 5 s). */
  timeoutMs?: number;
}

/** One pass over the 'to_send' rows: deliver each, mark it sent once accepted. */
export async function dispatchPending(
  options: DispatchOptions,
): Promise<{ delivered: number; failed: number }> {
  const outbox = outboxOf(options.store);
  const say = options.say ?? (() => {});
  let delivered = 0;
  let failed = 0;
  const rows = outbox.pending();
  say(t("{n} row(s) to send", { n: rows.length }));
  for (const row of rows) {
    const key = options.withKey ? downstreamKey(row) : undefined;
    const headers: Record<string, string> = { authorization: `Bearer ${TRACKER_CALLER}` };
    if (key !== undefined) headers["idempotency-key"] = `"${key}"`;
    say(
      key === undefined
        ? t("row {id} → POST /notifications (no key)", { id: String(row.id) })
        : t("row {id} → POST /notifications (Idempotency-Key {key})", {
            id: String(row.id),
            key: shortKey(key),
          }),
    );
    const outcome = await httpCall({
      method: "POST",
      url: `${options.notifierUrl}/notifications`,
      body: row.notification,
      headers,
      timeoutMs: options.timeoutMs ?? 5_000,
    });
    const accepted = outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300;
    say(
      t("row {id} ← {delivery}", { id: String(row.id), delivery: describeDelivery(outcome) }),
      accepted ? "ok" : "bad",
    );
    if (!accepted) {
      failed += 1;
      continue; // still 'to_send': the next pass tries again
    }
    options.afterAccepted?.(row);
    const changed = options.store.transaction(() => outbox.markSent(row.id));
    say(
      changed === 0
        ? t("UPDATE outbox row {id} SET state = 'sent' · COMMIT (0 rows: it was sent already)", {
            id: String(row.id),
          })
        : t("UPDATE outbox row {id} SET state = 'sent' · COMMIT", { id: String(row.id) }),
    );
    delivered += 1;
  }
  return { delivered, failed };
}

/** One pass of the dispatcher over a tracker's database file, read after (or beside) its tracker. */
export async function dispatchFile(
  path: string,
  options: Omit<DispatchOptions, "store">,
): Promise<{ delivered: number; failed: number }> {
  const store = new ReportStore(path);
  try {
    return await dispatchPending({ ...options, store });
  } finally {
    store.close();
  }
}

function toRow(r: Row): OutboxRow {
  return {
    id: Number(r.id),
    reportId: Number(r.report_id),
    notification: JSON.parse(r.payload) as NotificationRequest,
    state: r.state,
  };
}
