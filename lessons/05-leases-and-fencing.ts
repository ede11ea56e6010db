/**
 * @title The holder that woke up late: crashes, leases and fencing tokens
 * @summary A lease lets a key outlive a crashed holder; a fencing token stops a holder that was
 *   only paused from filing a second copy.
 * @run npm run lesson 5
 * @exercise 05a
 * @exercise 05b
 * @resource Martin Kleppmann, "How to do distributed locking" (2016):
 *   https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html
 * @resource Martin Kleppmann, "Designing Data-Intensive Applications" (1st edition, O'Reilly,
 *   2017), ch. 8 "The Trouble with Distributed Systems", sections "The leader and the lock"
 *   and "Fencing tokens"
 * @resource C. Gray and D. Cheriton, "Leases: An Efficient Fault-Tolerant Mechanism for Distributed
 *   File Cache Consistency" (SOSP 1989)
 * @resource Node.js, node:sqlite: StatementSync.run() returns { changes, lastInsertRowid }
 * @resource SQLite, "Write-Ahead Logging": https://www.sqlite.org/wal.html
 * @resource Stripe, "Idempotent requests": https://docs.stripe.com/idempotency
 *
 * What you will see: a real tracker process killed with SIGKILL right after it claimed a key; the
 * agent's retries get 409 while the claim's lease lives, then one takes the key over: one report.
 * Then a holder that is only paused past its lease, on `keyed` (it wakes and files a second report)
 * and on `fenced` (its update changes 0 rows, its transaction rolls back, it replays the winner's
 * answer). Then a stale holder's failure, a late holder nobody took over, and the lease rule with
 * this lesson's numbers.
 */
import type { CallResult } from "../lib/client/client.ts";
import { lessonSetup } from "../lib/core/cli.ts";
import { t } from "../lib/core/i18n.ts";
import { seeded } from "../lib/core/random.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import {
  agentCall,
  fenceInFile,
  killedAndRestarted,
  pacedRun,
  pacer,
  reportIn,
  shortOutcome,
  storedKey,
  withTracker,
} from "../lib/tracker/experiments.ts";
import type { FaultName, Faults } from "../lib/tracker/faults.ts";
import { pacedClock } from "../lib/tracker/paced-clock.ts";
import type { Tracker } from "../lib/tracker/service.ts";
import { countReportsIn } from "../lib/tracker/store.ts";

const { trace, seed, heading } = lessonSetup(import.meta);
const random = seeded(seed);
const scratch = scratchDir();
const started = performance.now();

// This lesson's numbers, scaled down as in lessons 01 and 04. The agent waits 100 ms for an
// answer; the longest a live handler may work is budgeted at 150 ms; the lease is 300 ms, longer
// than the two together, as the rule in section 4 asks.
const TIMEOUT_MS = 100;
const LONGEST_WORK_MS = 150;
const LEASE_MS = 300;
/** The closing table: a row per case as it runs, the reports left (and how), one expected. */
const summary: string[][] = [];
const measured = (label: string, reports: string) => summary.push([label, reports, "1"]);

trace.title(heading);
trace.prose(
  t(`Lesson 04's keyed tracker claims a key as in_progress before the work, so a second request
  with the key gets 409. The claim carries a lease: once it runs out, another request may take the
  key over. A lease is a guess from time alone: "the holder has not finished by now, so it must be
  dead". This lesson plays both ways the guess can go: the holder really died, and the holder was
  only paused.`),
);
trace.prose(
  t(`The trackers run on a clock the lesson moves by exactly what the agent waited, so a lease
  runs out when the story says, not when a busy machine gets round to it; a pause is a gate.`),
);

trace.section(t("1 · kill -9 after the claim (fenced, real processes)"));
const killedDb = scratch.path("killed.sqlite");
const killedClock = pacedClock();
const killedAttempts = await killedAndRestarted(trace, {
  variant: "fenced",
  db: killedDb,
  faults: { 1: "crash-after-claim" },
  leaseMs: LEASE_MS,
  clockMs: killedClock.now(),
  // Each attempt may wait 2 s: a process that has just started can be slow to answer on a busy
  // machine, and no attempt here is meant to time out.
  call: { maxAttempts: 4, timeoutMs: 2_000, random },
  beforeRetry: (_, last, waited, setClock) => pacer(trace, killedClock, setClock)(last, waited),
});
const killed = {
  reports: countReportsIn(killedDb),
  statuses: killedAttempts.map((a) => shortOutcome(a.outcome)),
  // Read back from the file, as a fresh process would: the token the take-over drew.
  fence: fenceInFile(killedDb, killedAttempts[0]!.key!),
};
trace.knows(
  killed.statuses.join(" → "),
  t(`the claim outlived its process; once its lease ran out, the retry took the key over and
  filed it`),
);
trace.count(killed.reports, 1);
trace.prose(
  t(
    `Without a lease the dead holder's claim would say in_progress forever, and every retry would
  get 409. The lease is what lets the key be used again: it is there for liveness. The take-over
  drew fence {fence} from the counter in the file, which survived the crash with everything else
  that was committed.`,
    { fence: killed.fence },
  ),
);
const run = killed.statuses.join(" → ");
const killedRun = t("{reports} ({run})", { reports: killed.reports, run });
measured(t("kill -9 after the claim, fenced"), killedRun);

/** A case of sections 2 and 3: a tracker on a paced clock, the agent's same-key call against it. */
const pausedCase = <T>(
  variant: "keyed" | "fenced",
  faults: Record<number, FaultName>,
  steer: (retry: number, faults: Faults) => Promise<void>,
  after: (tracker: Tracker, faults: Faults, result: CallResult) => Promise<T>,
): Promise<T> => {
  const db = scratch.path(`${Object.values(faults).join("-")}-${variant}.sqlite`);
  const call = { maxAttempts: 4, timeoutMs: TIMEOUT_MS, random };
  return pacedRun(trace, { variant, db, faults, leaseMs: LEASE_MS }, call, steer, after);
};

/** The response the call's key holds at the end. */
const keyAnswer = (tracker: Tracker, result: CallResult) =>
  storedKey(tracker, result.attempts[0]!.key!)?.response;

// Request #1 claims the key and stops (the pause-past-lease fault: a gate, as a stop-the-world GC
// pause, a swapped-out process or a stalled disk would hold it). It is not dead. The agent times
// out, gets 409, waits out the lease as asked; #3 takes the key over and files the report. Then #1
// wakes (once the request that took its key over is done) and carries on where it stopped.
const pausedHolder = (variant: "keyed" | "fenced") =>
  pausedCase(
    variant,
    { 1: "pause-past-lease" },
    async () => {},
    async (tracker, faults, result) => {
      await faults.reached(1, "handled");
      const given = reportIn(result.final.kind === "response" ? result.final.body : undefined);
      const stored = reportIn(keyAnswer(tracker, result)?.body);
      return { reports: tracker.store.countReports(), given, stored };
    },
  );

trace.section(t("2a · The paused holder wakes: keyed"));
const pausedKeyed = await pausedHolder("keyed");
trace.knows(
  t("a 201 for report {given}", pausedKeyed),
  t(
    `#1 woke and committed report and key in one perfect transaction: a second report; the key now
  replays report {stored}`,
    pausedKeyed,
  ),
);
trace.count(pausedKeyed.reports, 1);

// node:sqlite's run() says how many rows the UPDATE changed; anything but 1 throws inside the
// transaction, so it rolls back, the report with it. The check sits inside the writing
// transaction (BEGIN IMMEDIATE holds SQLite's write lock): "is my lease still valid?" asked before
// writing would straddle the very pause it is meant to catch.
trace.section(t("2b · The same pause: fenced"));
trace.prose(
  t(`fenced is keyed plus a fencing token: every claim, a new one or a take-over, draws the next
  number from a counter in the database (fence_counter), larger for every newer claim; and the
  completing UPDATE adds AND state = 'in_progress' AND fence = <this claim's token>. The report is
  inserted first, in the same transaction; unless the UPDATE changed exactly one row, the whole
  transaction rolls back.`),
);
const pausedFenced = await pausedHolder("fenced");
trace.knows(
  t("a 201 for report {given}", pausedFenced),
  t(
    `#1 woke with fence 1, the key held fence 2: 0 rows changed, ROLLBACK, and it replayed the
  winner's answer (report {stored})`,
    pausedFenced,
  ),
);
trace.count(pausedFenced.reports, 1);
for (const [variant, run] of Object.entries({ keyed: pausedKeyed, fenced: pausedFenced }))
  measured(
    t("paused holder, {variant}", { variant }),
    t("{reports} (the key replays report {stored})", run),
  );

// A paused holder may also wake only to fail. Its failure is a write to the key as well: the stored
// 500 of lesson 04. Here #3 has taken the key over and is still working (slow, held at its gate)
// when #1 wakes and fails.
const staleFailure = (variant: "keyed" | "fenced") =>
  pausedCase(
    variant,
    { 1: "pause-past-lease", 3: "slow" },
    async (retry, faults) => {
      if (retry !== 3) return;
      await faults.reached(3, "held");
      trace.event("lesson", t("#1 wakes while #3 still works, and its work fails"), "warn");
      faults.fail(1);
      await faults.reached(1, "handled");
    },
    async (tracker, faults, result) => {
      trace.event("lesson", t("#3 is let go and finishes its work"));
      faults.release(3);
      await faults.reached(3, "handled");
      const told = shortOutcome(result.final);
      return {
        reports: tracker.store.countReports(),
        told,
        stored: keyAnswer(tracker, result)?.status,
      };
    },
  );

trace.section(t("3a · A stale holder fails: keyed"));
const staleKeyed = await staleFailure("keyed");
trace.knows(
  t("the last answer: {told}", staleKeyed),
  t(
    `the stale holder's 500 was written over the new holder's claim; then #3 filed the report all
  the same, and the key now says {stored}`,
    staleKeyed,
  ),
);
trace.count(staleKeyed.reports, 1);

trace.section(t("3b · A stale holder fails: fenced"));
const staleFenced = await staleFailure("fenced");
trace.knows(
  t("the last answer: {told}", staleFenced),
  t(
    `the stale failure changed 0 rows; the new holder's claim stood, it filed the report, and the
  key says {stored}`,
    staleFenced,
  ),
);
trace.count(staleFenced.reports, 1);
trace.prose(
  t(
    `Both hold one report, but keyed told the agent "{told}", that the report failed, and later
  replays {stored} for the same key. An agent that believes the 500 and files again under a new key
  makes the duplicate itself. fenced's stale holder stores nothing and answers 409, which is not
  stored either: like Stripe, which does not save a request that "conflicts with another request
  that's executing concurrently" ("you can retry these requests"). Every write to the key must be
  conditional on the fence: the completion, the failure, and a lease renewal if the tracker had one
  (SET lease_until = ? WHERE … AND fence = ?; this tracker does not renew, and a paused process
  stops renewing anyway).`,
    staleKeyed,
  ),
);
for (const [variant, run] of Object.entries({ keyed: staleKeyed, fenced: staleFenced }))
  measured(
    t("stale failure, {variant}", { variant }),
    t("{reports} (the agent was told {told})", run),
  );

// A holder whose lease ran out but whom nobody took over is not wrong at all: its token still holds
// the key, and it commits. Here #1 is paused far past its lease, nobody comes, and the lesson lets
// it go.
trace.section(t("4 · The lease rule, and a late holder nobody took over"));
const sum = TIMEOUT_MS + LONGEST_WORK_MS;
const rule = [TIMEOUT_MS, LONGEST_WORK_MS, sum, LEASE_MS].map((n) => `${n} ms`);
trace.table(
  [t("client timeout"), t("longest processing"), t("sum"), t("lease"), t("lease > sum")],
  [[...rule, LEASE_MS > sum ? t("yes") : t("NO")]],
);
trace.prose(
  t(`The rule, as the original course states it: the lease must exceed the client's timeout plus
  the longest processing time, so that a holder which is merely slow, within its budget, is never
  taken over. Strictly, since the lease starts at the claim, "longer than the longest processing"
  already protects a live holder; the client's timeout is a margin on top. No margin covers a pause,
  though: nothing bounds a GC pause or a frozen VM. So the lease decides only when a take-over may
  happen (liveness); the fence keeps it safe.`),
);
let lateClock = 0;
const lateTracker = {
  variant: "fenced",
  db: scratch.path("late.sqlite"),
  faults: { 1: "pause-past-lease" },
  leaseMs: LEASE_MS,
  now: () => lateClock,
} as const;
const once = { policy: "same-key", maxAttempts: 1, timeoutMs: 5_000, random } as const;
const late = await withTracker(trace, lateTracker, async (tracker, faults) => {
  const call = agentCall(trace, tracker.url, once);
  await faults.reached(1, "held");
  lateClock = 4 * LEASE_MS;
  trace.event(
    "lesson",
    t(
      `#1 stays paused until the tracker's clock reads {ms} ms, far past its lease; no other
  request comes`,
      { ms: String(lateClock) },
    ),
    "warn",
  );
  faults.release(1);
  const told = shortOutcome((await call).final);
  return { reports: tracker.store.countReports(), told };
});
trace.knows(
  late.told,
  t(`the lease had run out, but no newer claim existed: fence 1 still held the key, and the UPDATE
  changed 1 row`),
);
trace.count(late.reports, 1);
measured(
  t("late holder, nobody took over, fenced"),
  t("{reports} ({run})", { ...late, run: late.told }),
);

trace.section(t("5 · One transaction guards one request"));
trace.prose(
  t(
    `In 2a, #1 and #3 each ran "INSERT report + complete the key" as one transaction, and each
  committed: {reports} reports. Atomicity guards one request's insides; it cannot stop two requests
  from each writing one. The fence ties the two together: the later claim's token makes the earlier
  one's UPDATE match no row.`,
    pausedKeyed,
  ),
);

// Every number below was counted in this run's SQLite files.
trace.section(t("Lesson 05, as measured in this run"));
trace.table([t("case"), t("reports"), t("one logical call should leave")], summary);
trace.prose(
  t(
    `The lease is for liveness: a dead holder's key is not stuck forever. The fence is for safety:
  a holder that was only paused, however long, cannot complete a key another claim holds. Exercises
  05a-05b: npm run check 5. (This run took {ms} ms, tracker processes included.)`,
    { ms: String(Math.round(performance.now() - started)) },
  ),
);

scratch.remove();
