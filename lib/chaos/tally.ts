/**
 * The chaos run's verdict, computed from the database file alone and what each client was told:
 * each logical operation has a title of its own, so the reports it left behind are the rows with
 * that title.
 *
 *   duplicates   an operation stored more than once: every report beyond its first
 *   lost         an operation the system does not hold, after every client kept retrying with its
 *                key until the system answered (the settle phase saw to that): no report with its
 *                title, or a client told "201, report #n" where report #n is not one of them
 *   unanswered   an operation that never got a 2xx, even with every fault stopped
 *   refused      an operation answered with a final 4xx (valid requests: this should not happen)
 *   strays       reports no operation filed
 */

/** What the client of one operation ended with. */
export interface OpResult {
  index: number;
  title: string;
  /** The report id in the 2xx answer the client got, if it got one. */
  acked?: number;
  /** A final status that was neither 2xx nor worth a retry. */
  refused?: number;
}

export interface StoredRow {
  id: number;
  title: string;
}

export interface Tally {
  operations: number;
  acknowledged: number;
  stored: number;
  duplicates: number;
  /** Operations stored more than once. */
  duplicatedOps: number[];
  lost: number;
  /** Lost although a client was told it was stored. */
  lostAcknowledged: number;
  /** Lost with no client ever told it was stored. */
  lostUnacknowledged: number;
  lostOps: number[];
  unanswered: number;
  refused: number;
  strays: number;
  /** Report ids per operation index. */
  rowsOf: Map<number, number[]>;
}

/** `rows` may be a stream (a statement's iterate()): it is read once, row by row, never held whole. */
export function tally(ops: readonly OpResult[], rows: Iterable<StoredRow>): Tally {
  const opByTitle = new Map(ops.map((o) => [o.title, o.index]));
  const rowsOf = new Map<number, number[]>(ops.map((o) => [o.index, []]));
  let strays = 0;
  let stored = 0;
  for (const row of rows) {
    stored += 1;
    const index = opByTitle.get(row.title);
    if (index === undefined) strays += 1;
    else rowsOf.get(index)!.push(row.id);
  }
  const t: Tally = {
    operations: ops.length,
    acknowledged: 0,
    stored,
    duplicates: 0,
    duplicatedOps: [],
    lost: 0,
    lostAcknowledged: 0,
    lostUnacknowledged: 0,
    lostOps: [],
    unanswered: 0,
    refused: 0,
    strays,
    rowsOf,
  };
  for (const op of ops) {
    const ids = rowsOf.get(op.index)!;
    if (op.acked !== undefined) t.acknowledged += 1;
    else if (op.refused !== undefined) t.refused += 1;
    else t.unanswered += 1;
    if (ids.length > 1) {
      t.duplicates += ids.length - 1;
      t.duplicatedOps.push(op.index);
    }
    const missing = ids.length === 0 || (op.acked !== undefined && !ids.includes(op.acked));
    if (missing) {
      t.lost += 1;
      t.lostOps.push(op.index);
      if (op.acked !== undefined) t.lostAcknowledged += 1;
      else t.lostUnacknowledged += 1;
    }
  }
  return t;
}

/** Whether the run kept every operation exactly once and answered each. */
export function isClean(t: Tally): boolean {
  return (
    t.duplicates === 0 && t.lost === 0 && t.unanswered === 0 && t.refused === 0 && t.strays === 0
  );
}
