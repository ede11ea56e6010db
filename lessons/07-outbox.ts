/**
 * @title Side effects outside your database: the outbox
 * @summary A notification cannot share the report's transaction: call it inline and a crash sends
 * it twice or never; write a "to send" row in the transaction, deliver it with a key, and let the
 * receiver deduplicate.
 * @run npm run lesson 7
 * @exercise 07a
 * @resource Chris Richardson, "Pattern: Transactional outbox":
 * https://microservices.io/patterns/data/transactional-outbox.html
 * @resource Stripe, "Idempotent requests" (keys on POST, replay of the saved result):
 * https://docs.stripe.com/idempotency
 * @resource IETF draft-ietf-httpapi-idempotency-key-header-07 (15 Oct 2025, expired 18 Apr 2026),
 * §2.6 Idempotency Enforcement
 * @resource SQLite, "Write-Ahead Logging" (readers do not block the writer, the writer does not
 * block readers): https://www.sqlite.org/wal.html
 *
 * What you will see: the tracker now also tells a maintainer about each new report, through a
 * third-party notifier (a real `node:http` service with idempotency keys of its own, counting what
 * the maintainer receives). A real tracker process is killed with SIGKILL at the worst moment for
 * each design: the notifier called inline before the commit (a notification for a report that does
 * not exist, then a second one), inline after the commit (no notification at all), inline with the
 * request's key passed downstream (one). Then the outbox: the report and a "to send" row in one
 * transaction, a separate dispatcher process killed after the notifier accepted the row and before
 * it marked the row sent, and the redelivery: two notifications without a key, one with it.
 */
import { lessonSetup } from "../lib/core/cli.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import { type CellFault, type CellResult, runCell } from "../lib/matrix/matrix.ts";
import { type DispatcherRun, runDispatcher } from "../lib/outbox/dispatcher.ts";
import { type Notifier, startNotifier } from "../lib/outbox/notifier.ts";
import type { NotifyConfig } from "../lib/outbox/notify-effects.ts";
import { dispatchPending, downstreamKey, outboxRowsIn } from "../lib/outbox/outbox.ts";
import { countReportsIn, ReportStore } from "../lib/tracker/store.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

const { trace, seed, heading } = lessonSetup(import.meta);
const scratch = scratchDir();
const started = performance.now();

// The tracker of this lesson: fenced, the one lesson 08's matrix finds right in every cell. Every
// duplicate or loss below is therefore the notification's, not the report's. Its lease is 300 ms,
// scaled down as in lesson 05; its clock is paced by the agent's waits
// (lib/tracker/paced-clock.ts).
const VARIANT: VariantName = "fenced";
const LEASE_MS = 300;

trace.title(heading);
trace.prose(`Filing a report now has a second effect: the maintainer is told, through a notification
  service run by somebody else. Lesson 04's rule was "record the key and do the side effect in one
  transaction". The notifier is not in our database, so no transaction of ours can include it:
  whatever order we pick, a crash can fall between the two. The notifier here is a real HTTP service
  on 127.0.0.1 with idempotency keys of its own (the way Stripe's API takes them on POST) and a
  count of what the maintainer received.`);

/** One row of the closing table. */
interface Case {
  label: string;
  reports: number;
  notifications: number;
  /**
   * Notifications the maintainer held at the crash beyond the reports the database held then;
   * undefined where nothing is sent before the report's commit (the outbox row commits with it).
   */
  early?: number;
}
const cases: Case[] = [];

/** A fresh notifier whose events go to the trace; closed after `run`. */
async function withNotifier<T>(run: (notifier: Notifier) => Promise<T>): Promise<T> {
  const notifier = await startNotifier({ onEvent: (e) => trace.event("notifier", e.text, e.mark) });
  try {
    return await run(notifier);
  } finally {
    await notifier.close();
  }
}

const cellOptions = (name: string, notify: NotifyConfig) => ({
  dbPath: (file: string) => scratch.path(`${name}-${file}`),
  seed,
  trace,
  heading: false as const,
  leaseMs: LEASE_MS,
  notify,
});

/**
 * A real tracker process that tells the maintainer as `notify` says, killed by `fault` during the
 * agent's first attempt and restarted on the same file; the agent retries with its one key. What
 * the maintainer had at the moment of the crash is measured from the file and the notifier.
 */
async function inlineCase(
  name: string,
  label: string,
  fault: CellFault,
  notify: Omit<NotifyConfig, "notifierUrl">,
): Promise<Case & { early: number; duplicates: number; cell: CellResult }> {
  return withNotifier(async (notifier) => {
    let early = 0;
    const cell = await runCell(VARIANT, fault, {
      ...cellOptions(name, { notifierUrl: notifier.url, ...notify }),
      atCrash: (db) => {
        const reports = countReportsIn(db);
        const notified = notifier.delivered().length;
        early = Math.max(0, notified - reports);
        trace.event(
          "lesson",
          `the process is dead: the maintainer holds ${notified} notification(s), the database ${reports} report(s)`,
          early > 0 ? "bad" : "warn",
        );
      },
    });
    const delivered = notifier.delivered();
    const result = {
      label,
      reports: cell.reports,
      notifications: delivered.length,
      duplicates: delivered.filter((n) => n.duplicate).length,
      early,
      cell,
    };
    cases.push(result);
    return result;
  });
}

// ## 1. Call the notifier in the handler, then commit
// The obvious code: inside POST /reports, after the work, tell the maintainer, then store the
// report. The tracker's hook (lib/tracker/side-effects.ts, beforeCommit) makes that call from the
// handler's work; the fault crash-before-commit kills the process right after it, before the
// commit. The agent's retry waits out the claim's lease (409), takes the key over, and does it all
// again.
trace.section("1 · Notify in the handler, then commit; killed in between");
const before = await inlineCase("before", "inline: notify, then commit", "crash-before-commit", {
  inline: "before-commit",
});
trace.knows(
  `one 201 after ${before.cell.calls[0]!.join(" → ")}`,
  `the maintainer was told of a report that did not exist yet (${before.early} notification more than reports at the crash), then told again: ${before.duplicates} duplicate`,
);
counts(before);

// ## 2. Commit, then call the notifier
// The other order: store the report, then tell the maintainer (the hook afterCommit, skipped for a
// replayed answer: the work was done before). The kill comes right after the commit, the moment of
// crash-between-commits. The retry gets the stored 201 replayed, and nobody calls the notifier.
trace.section("2 · Commit, then notify; killed in between");
const afterCommit = await inlineCase(
  "after",
  "inline: commit, then notify",
  "crash-between-commits",
  { inline: "after-commit" },
);
trace.knows(
  `a 201, replayed`,
  `the report is stored and its key completed; the call to the notifier died with the process, and a replay does no work: ${afterCommit.notifications} notifications`,
);
counts(afterCommit);
trace.prose(`Neither order is safe: before the commit, a crash leaves a notification for nothing,
  and the retry sends another; after it, a crash leaves a report nobody hears of. Two writes to two
  systems with no transaction around both: one of them can always be the last thing the process
  did.`);

// ## 3. Pass the key downstream
// When the downstream service takes idempotency keys, the tracker can pass its own request's key
// on, scoped to this purpose ("<key>/<caller>/notify"): the retry's second call to the notifier
// carries the same key, and the notifier answers from its store instead of delivering again.
trace.section("3 · Notify before the commit, passing the request's key downstream");
const passed = await inlineCase("passed", "inline: key passed on", "crash-before-commit", {
  inline: "before-commit",
  passKey: true,
});
trace.knows(
  `one 201 after ${passed.cell.calls[0]!.join(" → ")}`,
  `the second call carried the same key and the notifier did not deliver again: ${passed.notifications} notification; but at the crash it was there before its report (${passed.early})`,
);
counts(passed);
trace.prose(`This works when the downstream takes keys, and only as long as the client retries: had
  the agent given up after the crash, the maintainer would keep a notification for a report that
  never came to be. It also needs the request to carry a key at all (naive's callers send none).`);

// ## 4. The outbox
// The report and a "to send" row in one transaction (the hook inTransaction, inside fenced's
// completing transaction: both commit, or a stale holder's rollback takes both). Nothing is sent
// while the request runs. A dispatcher, a separate process here, reads the 'to_send' rows from the
// same SQLite file (any journal mode lets several processes share one file; WAL, which the tracker
// uses, lets the dispatcher read while the tracker writes, neither blocking the other), posts each
// to the notifier, and marks it 'sent'.
// It is killed with SIGKILL at the one moment the pattern cannot avoid: the notifier has accepted
// the row, the row is not marked yet. The next dispatcher sends it again. Without a key the
// notifier cannot know; with a key derived from the row, the same on every redelivery, it can.
async function outboxCase(
  name: string,
  withKey: boolean,
): Promise<Case & { duplicates: number; runs: DispatcherRun[] }> {
  return withNotifier(async (notifier) => {
    // The agent files the report through a lost response and a retry: the retry is replayed, so
    // there is still one report and one row.
    const cell = await runCell(
      VARIANT,
      "lose-response",
      cellOptions(name, { notifierUrl: notifier.url, outbox: true }),
    );
    const rows = outboxRowsIn(cell.db);
    trace.event(
      "lesson",
      `the file holds ${cell.reports} report(s) and ${rows.length} outbox row(s), ${rows.filter((r) => r.state === "to_send").length} to send`,
    );
    const runs: DispatcherRun[] = [];
    for (const kill of [true, false]) {
      trace.event(
        "lesson",
        `dispatcher process started${withKey ? ", sending each row with its key" : ", sending no key"}${kill ? "" : " (a fresh one)"}`,
      );
      const run = await runDispatcher(
        { db: cell.db, notifierUrl: notifier.url, withKey, killAfterAccepted: kill },
        (text, mark) => trace.event("outbox", text, mark),
      );
      trace.event(
        "lesson",
        run.killed
          ? "the dispatcher process is gone (SIGKILL)"
          : `the dispatcher exited: ${run.delivered} row(s) delivered and marked sent`,
        run.killed ? "warn" : "ok",
      );
      runs.push(run);
    }
    const delivered = notifier.delivered();
    const result = {
      label: `outbox: ${withKey ? "a key per row" : "no key"}`,
      reports: cell.reports,
      notifications: delivered.length,
      duplicates: delivered.filter((n) => n.duplicate).length,
      runs,
    };
    const left = outboxRowsIn(cell.db).filter((r) => r.state === "to_send").length;
    // The agent sees only its own call; the outbox rows and the notifications are the server's.
    const seen = cell.calls[0]?.join(" → ") ?? "nothing";
    trace.knows(
      `its call: ${seen}`,
      `${left} outbox row(s) still to send; ${result.notifications} notification(s) for ${result.reports} report(s), ${result.duplicates} a duplicate of one already delivered`,
    );
    counts(result);
    cases.push(result);
    return result;
  });
}

/** A case's two counts: reports in the file, notifications at the notifier; one each is right. */
function counts(c: Case): void {
  trace.count(c.reports, 1);
  trace.count(c.notifications, 1, "notifications the maintainer received");
}

trace.section(
  "4a · The outbox, delivered without a key; the dispatcher killed after the notifier accepted",
);
const outboxNoKey = await outboxCase("outbox-nokey", false);
trace.section("4b · The same, each row delivered with a key derived from it");
const outboxKeyed = await outboxCase("outbox-keyed", true);
trace.prose(`The outbox gives at-least-once delivery: a row is sent until it is marked, so a crash
  in between sends it twice (${outboxNoKey.notifications} notifications in 4a). Exactly once takes
  the receiver's help: the key ${downstreamKey({ id: 1 })} names the row, not the attempt, and the
  notifier replayed its stored answer for the second delivery (${outboxKeyed.notifications}
  notification in 4b). The pattern's own description says as much: the relay may publish a message
  more than once, so the consumer must be idempotent (microservices.io, "Transactional outbox").`);

// ## 5. The outbox is only as good as its transaction
// The row is keyed by the row. If the tracker itself files the report twice, it writes two rows,
// and two keys: the notifier sees two different notifications and delivers both. Lesson 05's
// paused holder does exactly that on keyed; on fenced its rollback takes the row with the report.
// Both trackers' traces are as in lesson 05; here, the rows they left and what the dispatcher made
// of them.
trace.section("5 · The fence guards the outbox row too: a holder paused past its lease");
const guarded: string[][] = [];
for (const variant of ["keyed", "fenced"] as const) {
  const c = await withNotifier(async (notifier) => {
    const cell = await runCell(variant, "pause-past-lease", {
      dbPath: (file) => scratch.path(`paused-${file}`),
      seed,
      leaseMs: LEASE_MS,
      notify: { notifierUrl: notifier.url, outbox: true },
    });
    const rows = outboxRowsIn(cell.db);
    trace.event(
      "lesson",
      `${variant}: the paused holder woke after a take-over; the file holds ${cell.reports} report(s) and ${rows.length} outbox row(s)`,
      cell.reports === 1 ? "ok" : "bad",
    );
    const store = new ReportStore(cell.db);
    try {
      await dispatchPending({
        store,
        notifierUrl: notifier.url,
        withKey: true,
        say: (text, mark) => trace.event("outbox", text, mark),
      });
    } finally {
      store.close();
    }
    return {
      label: `outbox: paused holder, ${variant}`,
      reports: cell.reports,
      rows: rows.length,
      notifications: notifier.delivered().length,
    };
  });
  trace.count(c.notifications, 1, `${variant}: notifications the maintainer received`);
  guarded.push([variant, String(c.reports), String(c.rows), String(c.notifications)]);
  cases.push({ label: c.label, reports: c.reports, notifications: c.notifications });
}
trace.table(["tracker", "reports", "outbox rows", "notifications"], guarded);
trace.prose(`Keys deduplicate deliveries of one row; they cannot merge two rows. The outbox row must
  be written where the report is, in the transaction that decides whether the report exists:
  fenced's stale holder rolls back its report and its row together.`);

// ## The cases, measured
// Every number below was counted in this run: reports in the SQLite files, notifications at the
// notifier.
trace.section("Lesson 07, as measured in this run");
trace.table(
  ["case", "reports", "notifications", "before its report", "should be"],
  cases.map((c) => [
    c.label,
    String(c.reports),
    String(c.notifications),
    c.early === undefined ? "–" : String(c.early),
    "1 and 1",
  ]),
);
trace.prose(`"before its report": the notifications the maintainer held when the tracker process
  died, beyond the reports its database held then. The outbox sends nothing before the report's
  commit: its row commits with it.`);
trace.prose(`When the side effect is outside your database: pass your key downstream if the other
  side takes keys, or write a "to send" row in the same transaction as the data and let a separate
  sender deliver it, with a key derived from the row, so that the receiver can deduplicate the
  redelivery that will come. Exercise 07a: npm run check 7. Next, lesson 08: every variant against
  every fault. (This run took ${Math.round(performance.now() - started)} ms, tracker and dispatcher
  processes included.)`);

scratch.remove();
