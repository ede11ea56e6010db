/**
 * The types of the outbox table (lesson 07): one row per notification owed, and the two things a
 * dispatcher asks of the table. Types only, in a module of their own: exercise 07a imports them,
 * and a learner who opens this file finds no dispatcher here.
 *
 *   outbox   id          numbered from 1, never reused (AUTOINCREMENT)
 *            report_id   the report the notification is about
 *            payload     the notification, as JSON
 *            state       'to_send' until the notifier has accepted it, then 'sent'
 */
import type { NotificationRequest } from "./notifier.ts";

/** One row of the outbox table. */
export interface OutboxRow {
  id: number;
  reportId: number;
  /** What to deliver. */
  notification: NotificationRequest;
  state: "to_send" | "sent";
}

/** What a dispatcher reads and writes in the outbox table. */
export interface OutboxTable {
  /** The rows still 'to_send', oldest first. */
  pending(): OutboxRow[];
  /** Marks a row sent; returns 1, or 0 if it was sent already. Call it in a store's transaction. */
  markSent(id: number): number;
}
