/**
 * Exercise 07a · An outbox dispatcher that survives its own crash
 *
 * Goal: one pass of the outbox dispatcher of lesson 07. Every row still 'to_send' (oldest first) is
 * posted to the notifier with an Idempotency-Key derived from the row, and marked 'sent' once the
 * notifier has accepted it. A row the notifier did not accept (an error status, no answer at all)
 * stays 'to_send' for the next pass. Returns how many rows this pass marked sent.
 *
 * The dispatcher can die between "the notifier accepted the row" and "the row is marked sent": the
 * tests make `afterAccepted` throw there, as a SIGKILL would stop you. The next pass sends that row
 * again, and the maintainer must still receive it once: that is your key's job, and the notifier's.
 *
 * Constraints: mark a row only after the notifier accepted it, in a transaction of the store; the key
 * must be the same for a row on every pass and different for different rows. The outbox table is
 * lib/outbox/outbox.ts (`outboxOf`, `pending`, `markSent`); the notifier is lib/outbox/notifier.ts.
 * Lesson 07, section 4, runs this (run `npm run lesson 7`). Check your answer with `npm run check 07a`.
 */
import type { OutboxRow } from "../lib/outbox/outbox.ts";
import type { ReportStore } from "../lib/tracker/store.ts";

export interface DispatchInput {
  /** The tracker's database; `outboxOf(store)` is its outbox table. */
  store: ReportStore;
  /** The notifier's base URL: POST <notifierUrl>/notifications. */
  notifierUrl: string;
  /** Called after the notifier accepted a row and before you mark it sent (the tests crash you here). */
  afterAccepted?: (row: OutboxRow) => void;
}

/** The Idempotency-Key a row is delivered with, on every pass. */
export function rowKey(row: OutboxRow): string {
  // TODO: derive the key from the row, so that a redelivery carries the same one.
  throw new Error("TODO: write rowKey (exercise 07a)");
}

/** One pass over the 'to_send' rows; returns how many rows it marked sent. */
export async function dispatch(input: DispatchInput): Promise<number> {
  // TODO: post each pending row with its key; mark it sent once the notifier answered 2xx.
  throw new Error("TODO: write dispatch (exercise 07a)");
}
