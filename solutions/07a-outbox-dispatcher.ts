/**
 * Exercise 07a · An outbox dispatcher that survives its own crash (reference answer)
 *
 * Goal: one pass of the outbox dispatcher of lesson 07. Every row still 'to_send' (oldest first) is
 * posted to the notifier with an Idempotency-Key derived from the row, and marked 'sent' once the
 * notifier has accepted it. A row the notifier did not accept stays 'to_send' for the next pass.
 */
import { httpCall } from "../lib/client/client.ts";
import type { OutboxRow, OutboxTable } from "../lib/outbox/outbox-row.ts";
import type { ReportStore } from "../lib/tracker/store.ts";

export interface DispatchInput {
  /** The tracker's database: `store.transaction(() => …)` runs a function in one of its transactions. */
  store: ReportStore;
  /** The store's outbox table: its rows still 'to_send', and marking one sent. */
  outbox: OutboxTable;
  /** The notifier's base URL: POST <notifierUrl>/notifications. */
  notifierUrl: string;
  /** Called after the notifier accepted a row and before you mark it sent (the tests crash you here). */
  afterAccepted?: (row: OutboxRow) => void;
}

/** The Idempotency-Key a row is delivered with, on every pass. */
export function rowKey(row: OutboxRow): string {
  return `outbox-row-${row.id}`;
}

/** One pass over the 'to_send' rows; returns how many rows it marked sent. */
export async function dispatch(input: DispatchInput): Promise<number> {
  let sent = 0;
  for (const row of input.outbox.pending()) {
    const outcome = await httpCall({
      method: "POST",
      url: `${input.notifierUrl}/notifications`,
      body: row.notification,
      headers: { "idempotency-key": `"${rowKey(row)}"` },
      timeoutMs: 2_000,
    });
    if (outcome.kind !== "response" || outcome.status < 200 || outcome.status >= 300) continue;
    input.afterAccepted?.(row);
    input.store.transaction(() => input.outbox.markSent(row.id));
    sent += 1;
  }
  return sent;
}
