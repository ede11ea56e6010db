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
 * What you will see: the tracker tells a maintainer about each new report through a third-party
 * notifier (a real `node:http` service with keys of its own). A real tracker process is killed with
 * SIGKILL at each design's worst moment: notify before the commit, after it, or with the request's
 * key passed on. Then the outbox: a "to send" row in the report's transaction, a dispatcher process
 * killed between "accepted" and "marked sent", and its redelivery, without a key and with one.
 */
import { lessonSetup } from "../lib/core/cli.ts";
import { t } from "../lib/core/i18n.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import { type CellFault, type CellResult, runCell } from "../lib/matrix/matrix.ts";
import { redeliverAfterKill } from "../lib/outbox/dispatcher.ts";
import { type NotifierEvent, withNotifier } from "../lib/outbox/notifier.ts";
import type { NotifyConfig } from "../lib/outbox/notify-effects.ts";
import { dispatchFile, downstreamKey, outboxRowsIn } from "../lib/outbox/outbox.ts";
import { countReportsIn } from "../lib/tracker/store.ts";
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
trace.prose(
  t(`Filing a report now has a second effect: the maintainer is told, through a notification service
    run by somebody else. Lesson 04's rule was "record the key and do the side effect in one
    transaction". The notifier is not in our database, so no transaction of ours can include it:
    whatever order we pick, a crash can fall between the two. The notifier here is a real HTTP
    service on 127.0.0.1 with idempotency keys of its own (the way Stripe's API takes them on POST)
    and a count of what the maintainer received.`),
);

/** One row of the closing table. */
interface Case {
  label: string;
  reports: number;
  notifications: number;
  /** Notifications held at the crash beyond the reports stored then (none: sent after commit). */
  early?: number;
}
const cases: Case[] = [];

/** What the notifier tells the trace. */
const notifierSays = (e: NotifierEvent): void => trace.event("notifier", e.text, e.mark);

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
  return withNotifier(notifierSays, async (notifier) => {
    let early = 0;
    const cell = await runCell(VARIANT, fault, {
      ...cellOptions(name, { notifierUrl: notifier.url, ...notify }),
      atCrash: (db) => {
        const reports = countReportsIn(db);
        const notified = notifier.delivered().length;
        early = Math.max(0, notified - reports);
        trace.event(
          "lesson",
          t(
            `the process is dead: the maintainer holds {notified} notification(s), the database \
{reports} report(s)`,
            { notified, reports },
          ),
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

// The tracker's hook beforeCommit (lib/tracker/side-effects.ts) calls the notifier from the
// handler's work; crash-before-commit kills the process right after it.
trace.section(t("1 · Notify in the handler, then commit; killed in between"));
const before = await inlineCase("before", t("inline: notify, then commit"), "crash-before-commit", {
  inline: "before-commit",
});
trace.knows(
  t("one 201 after {calls}", { calls: before.cell.calls[0]!.join(" → ") }),
  t(
    `the maintainer was told of a report that did not exist yet ({early} notification more than \
reports at the crash), then told again: {duplicates} duplicate`,
    { early: before.early, duplicates: before.duplicates },
  ),
);
counts(before);

// The hook afterCommit, skipped for a replayed answer (the work was done before); the kill comes
// right after the commit.
trace.section(t("2 · Commit, then notify; killed in between"));
const afterCommit = await inlineCase(
  "after",
  t("inline: commit, then notify"),
  "crash-between-commits",
  { inline: "after-commit" },
);
trace.knows(
  t("a 201, replayed"),
  t(
    `the report is stored and its key completed; the call to the notifier died with the process, \
and a replay does no work: {n} notifications`,
    { n: afterCommit.notifications },
  ),
);
counts(afterCommit);
trace.prose(
  t(`Neither order is safe: before the commit, a crash leaves a notification for nothing, and the
    retry sends another; after it, a crash leaves a report nobody hears of. Two writes to two
    systems with no transaction around both: one of them can always be the last thing the process
    did.`),
);

// The key passed on is scoped to this purpose: "<key>/<caller>/notify".
trace.section(t("3 · Notify before the commit, passing the request's key downstream"));
const passed = await inlineCase("passed", t("inline: key passed on"), "crash-before-commit", {
  inline: "before-commit",
  passKey: true,
});
trace.knows(
  t("one 201 after {calls}", { calls: passed.cell.calls[0]!.join(" → ") }),
  t(
    `the second call carried the same key and the notifier did not deliver again: {n} \
notification; but at the crash it was there before its report ({early})`,
    { n: passed.notifications, early: passed.early },
  ),
);
counts(passed);
trace.prose(
  t(`This works when the downstream takes keys, and only as long as the client retries: had the
    agent given up after the crash, the maintainer would keep a notification for a report that never
    came to be. It also needs the request to carry a key at all (naive's callers send none).`),
);

// The hook inTransaction writes the outbox row inside fenced's completing transaction (both commit,
// or a stale holder's rollback takes both). The dispatcher is a separate process on the same SQLite
// file (any journal mode lets processes share a file; WAL lets it read while the tracker writes),
// killed at the one moment the pattern cannot avoid: accepted, not yet marked.
async function outboxCase(name: string, withKey: boolean): Promise<Case & { duplicates: number }> {
  return withNotifier(notifierSays, async (notifier) => {
    // The agent files the report through a lost response and a retry: the retry is replayed, so
    // there is still one report and one row.
    const cell = await runCell(
      VARIANT,
      "lose-response",
      cellOptions(name, { notifierUrl: notifier.url, outbox: true }),
    );
    const rows = outboxRowsIn(cell.db);
    const toSend = rows.filter((r) => r.state === "to_send").length;
    trace.event(
      "lesson",
      t("the file holds {reports} report(s) and {rows} outbox row(s), {toSend} to send", {
        reports: cell.reports,
        rows: rows.length,
        toSend,
      }),
    );
    await redeliverAfterKill(trace, { db: cell.db, notifierUrl: notifier.url, withKey });
    const delivered = notifier.delivered();
    const result = {
      label: withKey ? t("outbox: a key per row") : t("outbox: no key"),
      reports: cell.reports,
      notifications: delivered.length,
      duplicates: delivered.filter((n) => n.duplicate).length,
    };
    const left = outboxRowsIn(cell.db).filter((r) => r.state === "to_send").length;
    // The agent sees only its own call; the outbox rows and the notifications are the server's.
    const seen = cell.calls[0]?.join(" → ") ?? t("no call");
    trace.knows(
      t("its call: {seen}", { seen }),
      t(
        `{left} outbox row(s) still to send; {n} notification(s) for {reports} report(s), \
{duplicates} a duplicate of one already delivered`,
        { left, n: result.notifications, reports: result.reports, duplicates: result.duplicates },
      ),
    );
    counts(result);
    cases.push(result);
    return result;
  });
}

/** A case's two counts: reports in the file, notifications at the notifier; one each is right. */
function counts(c: Case): void {
  trace.count(c.reports, 1);
  trace.count(c.notifications, 1, t("notifications the maintainer received"));
}

trace.section(
  t("4a · The outbox, delivered without a key; the dispatcher killed after the notifier accepted"),
);
const outboxNoKey = await outboxCase("outbox-nokey", false);
trace.section(t("4b · The same, each row delivered with a key derived from it"));
const outboxKeyed = await outboxCase("outbox-keyed", true);
trace.prose(
  t(
    `The outbox gives at-least-once delivery: a row is sent until it is marked, so a crash in
      between sends it twice ({noKey} notifications in 4a). Exactly once takes the receiver's help:
      the key {key} names the row, not the attempt, and the notifier replayed its stored answer for
      the second delivery ({keyed} notification in 4b). The pattern's own description says as much:
      the relay may publish a message more than once, so the consumer must be idempotent
      (microservices.io, "Transactional outbox").`,
    {
      noKey: outboxNoKey.notifications,
      key: downstreamKey({ id: 1 }),
      keyed: outboxKeyed.notifications,
    },
  ),
);

// Lesson 05's paused holder files twice on keyed: two rows, two keys. The cells' traces are as in
// lesson 05 (not shown): here, the rows they left and what the dispatcher made of them.
trace.section(t("5 · The fence guards the outbox row too: a holder paused past its lease"));
const guarded: string[][] = [];
for (const variant of ["keyed", "fenced"] as const) {
  const c = await withNotifier(notifierSays, async (notifier) => {
    const cell = await runCell(variant, "pause-past-lease", {
      dbPath: (file) => scratch.path(`paused-${file}`),
      seed,
      leaseMs: LEASE_MS,
      notify: { notifierUrl: notifier.url, outbox: true },
    });
    const rows = outboxRowsIn(cell.db);
    trace.event(
      "lesson",
      t(
        `{variant}: the paused holder woke after a take-over; the file holds {reports} report(s) \
and {rows} outbox row(s)`,
        { variant, reports: cell.reports, rows: rows.length },
      ),
      cell.reports === 1 ? "ok" : "bad",
    );
    const say = (text: string, mark?: "ok" | "bad" | "warn") => trace.event("outbox", text, mark);
    await dispatchFile(cell.db, { notifierUrl: notifier.url, withKey: true, say });
    return {
      label: t("outbox: paused holder, {variant}", { variant }),
      reports: cell.reports,
      rows: rows.length,
      notifications: notifier.delivered().length,
    };
  });
  trace.count(
    c.notifications,
    1,
    t("{variant}: notifications the maintainer received", { variant }),
  );
  guarded.push([variant, String(c.reports), String(c.rows), String(c.notifications)]);
  cases.push({ label: c.label, reports: c.reports, notifications: c.notifications });
}
trace.table([t("tracker"), t("reports"), t("outbox rows"), t("notifications")], guarded);
trace.prose(
  t(`Keys deduplicate deliveries of one row; they cannot merge two rows. The outbox row must be
    written where the report is, in the transaction that decides whether the report exists: fenced's
    stale holder rolls back its report and its row together.`),
);

// Every number below was counted in this run: reports in the files, notifications at the notifier.
trace.section(t("Lesson 07, as measured in this run"));
trace.table(
  [t("case"), t("reports"), t("notifications"), t("before its report"), t("should be")],
  cases.map((c) => [
    c.label,
    String(c.reports),
    String(c.notifications),
    c.early === undefined ? "–" : String(c.early),
    t("1 and 1"),
  ]),
);
trace.prose(
  t(`"before its report": the notifications the maintainer held when the tracker process died,
    beyond the reports its database held then. The outbox sends nothing before the report's commit:
    its row commits with it.`),
);
trace.prose(
  t(
    `When the side effect is outside your database: pass your key downstream if the other side takes
      keys, or write a "to send" row in the same transaction as the data and let a separate sender
      deliver it, with a key derived from the row, so that the receiver can deduplicate the
      redelivery that will come. Exercise 07a: npm run check 7. Next, lesson 08: every variant
      against every fault. (This run took {ms} ms, tracker and dispatcher processes included.)`,
    { ms: Math.round(performance.now() - started) },
  ),
);

scratch.remove();
