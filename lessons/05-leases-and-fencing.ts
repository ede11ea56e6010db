/**
 * @title The holder that woke up late: crashes, leases and fencing tokens
 * @summary A lease lets a key outlive a crashed holder; a fencing token stops a holder that was only paused from filing a second copy.
 * @run npm run lesson 5
 * @exercise 05a
 * @exercise 05b
 * @resource Martin Kleppmann, "How to do distributed locking" (2016): https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html
 * @resource Martin Kleppmann, "Designing Data-Intensive Applications" (1st edition, O'Reilly, 2017), ch. 8 "The Trouble with Distributed Systems", sections "The leader and the lock" and "Fencing tokens"
 * @resource C. Gray and D. Cheriton, "Leases: An Efficient Fault-Tolerant Mechanism for Distributed File Cache Consistency" (SOSP 1989)
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
import { basename } from "node:path";
import { type Attempt, type CallResult, fileReport, type Outcome } from "../lib/client/client.ts";
import { agentLog, agentLogAfter } from "../lib/client/narrate.ts";
import { lessonSetup } from "../lib/core/cli.ts";
import { seeded } from "../lib/core/random.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import { ANONYMOUS_CALLER } from "../lib/protocol/caller.ts";
import { type FaultName, Faults } from "../lib/tracker/faults.ts";
import { keyStoreOf } from "../lib/tracker/key-store.ts";
import { serverLog } from "../lib/tracker/narrate.ts";
import { type PacedClock, pacedClock } from "../lib/tracker/paced-clock.ts";
import { startTracker, type Tracker } from "../lib/tracker/service.ts";
import { countReportsIn, ReportStore } from "../lib/tracker/store.ts";
import { superviseTracker } from "../lib/tracker/supervisor.ts";

const { trace, seed, heading } = lessonSetup(import.meta);
const random = seeded(seed);
const scratch = scratchDir();
const started = performance.now();

// This lesson's numbers, scaled down as in lessons 01 and 04. The agent waits 100 ms for an answer;
// the longest a live handler may work is budgeted at 150 ms; the lease is 300 ms, longer than the two
// together, as the rule in section 4 asks.
const TIMEOUT_MS = 100;
const LONGEST_WORK_MS = 150;
const LEASE_MS = 300;
const report = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' on /login has no effect.",
  module: "auth",
};

// The clock. A lease runs out by time, and time is what a test cannot trust: on a busy machine a
// real 300 ms lease may end a little before or after the agent's own timers, and whether a retry
// meets a 409 or a take-over would be luck. So every tracker here runs on a clock the lesson holds
// (lib/tracker/paced-clock.ts): it moves by exactly what the agent waited, its timeout when no answer
// came and the wait a 409 asked for, and by nothing else: not the host's scheduling, not a process
// start-up, not a --step pause. The holder's pause is a gate (the pause-past-lease fault), never a
// sleep. Real time still passes as the agent waits, so the lesson takes the time it narrates.
/** Moves the tracker's clock by what the agent waited after `last`, and says so. */
function paced(clock: PacedClock, setClock?: (ms: number) => Promise<void>) {
  return async (last: Attempt, waitedMs: number): Promise<void> => {
    const before = clock.now();
    const now = clock.advance(last, waitedMs);
    await setClock?.(now);
    if (now !== before)
      trace.event("lesson", `the tracker's clock: ${before} → ${now} ms (what the agent waited)`);
  };
}

const status = (o: Outcome): string =>
  o.kind === "response"
    ? `${o.status}${o.headers["idempotent-replayed"] === "true" ? " replayed" : ""}`
    : o.kind;
/** Rows of the closing table, filled in as the cases run. */
const summary: string[][] = [];

trace.title(heading);
trace.prose(`Lesson 04's keyed tracker claims a key as in_progress before the work, so a second request with the
  key gets 409. The claim carries a lease: once it runs out, another request may take the key over. A lease is a
  guess from time alone: "the holder has not finished by now, so it must be dead". This lesson plays both
  ways the guess can go: the holder really died, and the holder was only paused.`);
trace.prose(`The trackers here run on a clock the lesson moves by exactly what the agent waited (its ${TIMEOUT_MS} ms
  timeout, the wait a 409 asked for), so a lease runs out when the story says, not when a busy machine gets
  round to it; the pause itself is a gate, not a sleep.`);

// ## 1. kill -9 after the claim
// A real tracker process (a child of this lesson, on a SQLite file in WAL mode) claims the key, then
// is killed with SIGKILL before its work: no unwinding, no answer, the claim left in the file. A
// supervisor (the lesson) starts a fresh process on the same file and port. Without a lease the key
// would say in_progress forever and every retry would get 409; with one, the retries get 409 until
// it runs out, then one takes the key over with the next fencing token and does the work.
// This agent waits up to 2 s per attempt, not 100 ms: a process that has just started can be slow to
// answer on a busy machine, and no attempt here is meant to time out (the paced clock would count it).
trace.section("1 · kill -9 after the claim (fenced, real processes)");
const killed = await (async () => {
  const db = scratch.path("killed.sqlite");
  const clock = pacedClock();
  const log = serverLog(trace);
  const tracker = await superviseTracker({
    variant: "fenced",
    db,
    faults: { 1: "crash-after-claim" },
    leaseMs: LEASE_MS,
    clockMs: clock.now(),
    onEvent: (e, generation) =>
      log({ ...e, text: `${generation > 1 ? "[restarted] " : ""}${e.text}` }),
  });
  trace.event(
    "lesson",
    `tracker process started (fenced) over ${basename(db)}, lease ${LEASE_MS} ms`,
  );
  const pace = paced(clock, (ms) => tracker.setClock(ms));
  const agent = agentLogAfter(trace, () => tracker.current.flush());
  let attempts: Attempt[];
  try {
    const result = await fileReport({
      url: tracker.url,
      report,
      policy: "same-key",
      maxAttempts: 4,
      timeoutMs: 2_000,
      random,
      onAttempt: agent.onAttempt,
      beforeRetry: async (retry, last, waitedMs) => {
        await agent.settled();
        if (retry === 1) {
          const exit = await tracker.restartAfterExit();
          trace.event(
            "lesson",
            `the process is gone (${exit.signal ?? `exit code ${exit.code}`}); a new one listens on the same file and port`,
            "warn",
          );
        }
        await pace(last, waitedMs);
      },
    });
    attempts = result.attempts;
    await agent.settled();
  } finally {
    await tracker.close();
  }
  // Read back from the file, as a fresh process would: the token the take-over drew.
  const store = new ReportStore(db);
  const fence = keyStoreOf(store).get(ANONYMOUS_CALLER, attempts[0]!.key!)?.fence;
  store.close();
  return { reports: countReportsIn(db), statuses: attempts.map((a) => status(a.outcome)), fence };
})();
trace.knows(
  killed.statuses.join(", "),
  "the claim outlived its process; once its lease ran out, the retry took the key over and filed it",
);
trace.count(killed.reports, 1);
trace.prose(`Without a lease the dead holder's claim would say in_progress forever, and every retry would get 409.
  The lease is what lets the key be used again: it is there for liveness. The take-over drew fence ${killed.fence} from the
  counter in the file, which survived the crash with everything else that was committed.`);
summary.push([
  "kill -9 after the claim, fenced",
  `${killed.reports} (${killed.statuses.join(" → ")})`,
  "1",
]);

// ## 2. The paused holder
// Now the guess goes wrong. Request #1 claims the key and stops (the pause-past-lease fault: a gate
// holding it, as a stop-the-world GC pause, a swapped-out process or a stalled disk would). It is not
// dead. The agent times out and retries: 409. It waits out the lease as asked and retries: the lease
// has run out, so #3 takes the key over, files the report, answers 201. Then #1 wakes (the fault lets
// it go once the request that took its key over is done) and carries on where it stopped.
async function pausedHolder(variant: "keyed" | "fenced") {
  return pausedCase(
    variant,
    "paused",
    { 1: "pause-past-lease" },
    undefined,
    async (tracker, faults, result) => {
      await faults.reached(1, "handled");
      const stored = storedKey(tracker, result)?.body as { id?: number } | undefined;
      const given =
        result.final.kind === "response" ? (result.final.body as { id?: number }).id : undefined;
      return { reports: tracker.store.countReports(), given, stored: stored?.id };
    },
  );
}

/**
 * A tracker of `variant` on a paced clock with the fault `plan`, and the agent's same-key call (4
 * attempts, a 100 ms timeout) against it; `steer` runs before each retry, `after` once the call ends.
 */
async function pausedCase<T>(
  variant: "keyed" | "fenced",
  name: string,
  plan: Record<number, FaultName>,
  steer: ((retry: number, faults: Faults) => Promise<void>) | undefined,
  after: (tracker: Tracker, faults: Faults, result: CallResult) => Promise<T>,
): Promise<T> {
  const clock = pacedClock();
  const faults = new Faults(plan);
  const tracker = await startTracker({
    variant,
    db: scratch.path(`${name}-${variant}.sqlite`),
    faults,
    leaseMs: LEASE_MS,
    now: clock.now,
    onEvent: serverLog(trace),
  });
  try {
    const pace = paced(clock);
    const result = await fileReport({
      url: tracker.url,
      report,
      policy: "same-key",
      maxAttempts: 4,
      timeoutMs: TIMEOUT_MS,
      random,
      onAttempt: agentLog(trace),
      beforeRetry: async (retry, last, waitedMs) => {
        await steer?.(retry, faults);
        await pace(last, waitedMs);
      },
    });
    return await after(tracker, faults, result);
  } finally {
    await tracker.close();
  }
}

/** The response the key holds for the call's key at the end. */
const storedKey = (tracker: Tracker, result: CallResult) =>
  keyStoreOf(tracker.store).get(ANONYMOUS_CALLER, result.attempts[0]!.key!)?.response;

trace.section("2a · The paused holder wakes: keyed");
const pausedKeyed = await pausedHolder("keyed");
trace.knows(
  `a 201 for report ${pausedKeyed.given}`,
  `#1 woke and committed report and key in one perfect transaction: a second report; the key now replays report ${pausedKeyed.stored}`,
);
trace.count(pausedKeyed.reports, 1);

// The fix is one condition. Every claim, a new one or a take-over, draws the next value of a counter
// kept in the database (fence_counter), in the claim's own transaction: a fencing token, larger for
// every newer claim. The completing transaction inserts the report, then updates the key only if
// this claim still holds it:
//   UPDATE idempotency_keys SET state = 'completed', status = ?, headers = ?, body = ?
//   WHERE caller = ? AND key = ? AND state = 'in_progress' AND fence = ?
// node:sqlite's run() says how many rows changed. Anything but 1 throws inside the transaction, so
// it rolls back, the report with it, and the request answers from what the key holds now. The check
// sits inside the writing transaction (BEGIN IMMEDIATE holds SQLite's write lock): "is my lease still
// valid?" asked before writing would straddle the very pause it is meant to catch.
trace.section("2b · The same pause: fenced");
trace.prose(`fenced is keyed with one condition added to the completing UPDATE: AND state = 'in_progress' AND
  fence = <this claim's token>. The report is inserted first, in the same transaction; unless the UPDATE
  changed exactly one row, the whole transaction rolls back.`);
const pausedFenced = await pausedHolder("fenced");
trace.knows(
  `a 201 for report ${pausedFenced.given}`,
  `#1 woke with fence 1, the key held fence 2: 0 rows changed, ROLLBACK, and it replayed the winner's answer (report ${pausedFenced.stored})`,
);
trace.count(pausedFenced.reports, 1);
summary.push(
  [
    "paused holder, keyed",
    `${pausedKeyed.reports} (the key replays report ${pausedKeyed.stored})`,
    "1",
  ],
  [
    "paused holder, fenced",
    `${pausedFenced.reports} (the key replays report ${pausedFenced.stored})`,
    "1",
  ],
);

// ## 3. A stale holder's failure
// A paused holder may also wake only to fail (the service it called has long given up on it). Its
// failure is a write to the key as well: the stored 500 of lesson 04 (Stripe API v1 replays errors).
// Here #3 has taken the key over and is still working (slow, held at its gate) when #1 wakes and
// fails. keyed stores the 500 over #3's claim: the agent's next retry is told the report failed,
// while #3 is about to file it. fenced's failure write is conditional on the fence like every other
// write to the key: 0 rows, nothing stored, and #3's claim stands.
async function staleFailure(variant: "keyed" | "fenced") {
  const steer = async (retry: number, faults: Faults): Promise<void> => {
    if (retry !== 3) return;
    // #3 has taken the key over and is held; #1 wakes now, and its work fails.
    await faults.reached(3, "held");
    trace.event("lesson", "#1 wakes while #3 still works, and its work fails", "warn");
    faults.fail(1);
    await faults.reached(1, "handled");
  };
  return pausedCase(
    variant,
    "stale",
    { 1: "pause-past-lease", 3: "slow" },
    steer,
    async (tracker, faults, result) => {
      trace.event("lesson", "#3 is let go and finishes its work");
      faults.release(3);
      await faults.reached(3, "handled");
      return {
        reports: tracker.store.countReports(),
        told: status(result.final),
        stored: storedKey(tracker, result)?.status,
      };
    },
  );
}

trace.section("3a · A stale holder fails: keyed");
const staleKeyed = await staleFailure("keyed");
trace.knows(
  `the last answer: ${staleKeyed.told}`,
  `the stale holder's 500 was written over the new holder's claim; then #3 filed the report all the same, and the key now says ${staleKeyed.stored}`,
);
trace.count(staleKeyed.reports, 1);

trace.section("3b · A stale holder fails: fenced");
const staleFenced = await staleFailure("fenced");
trace.knows(
  `the last answer: ${staleFenced.told}`,
  `the stale failure changed 0 rows; the new holder's claim stood, it filed the report, and the key says ${staleFenced.stored}`,
);
trace.count(staleFenced.reports, 1);
trace.prose(`Both hold one report, but keyed told the agent "${staleKeyed.told}", that the report failed, and later
  replays ${staleKeyed.stored} for the same key. An agent that believes the 500 and files again under a new key
  makes the duplicate itself. fenced's stale holder stores nothing and answers 409, which is not stored
  either: like Stripe, which does not save a request that "conflicts with another request that's executing
  concurrently" ("you can retry these requests"). Every write to the key must be conditional on the fence:
  the completion, the failure, and a lease renewal if the tracker had one (a holder that renews its lease
  as it works would write SET lease_until = ? WHERE … AND fence = ?; this tracker does not renew, and a
  paused process stops renewing anyway).`);
summary.push(
  ["stale failure, keyed", `${staleKeyed.reports} (the agent was told ${staleKeyed.told})`, "1"],
  ["stale failure, fenced", `${staleFenced.reports} (the agent was told ${staleFenced.told})`, "1"],
);

// ## 4. The lease rule, and what the lease is for
// The course's rule: the lease must exceed the client's timeout plus the longest processing time, so
// that a holder which is merely slow, within its budget, is never taken over. It cannot cover a pause:
// nothing bounds a GC pause or a frozen VM. So the lease only decides when a take-over may happen
// (liveness: a dead holder does not block the key forever); the fence is what keeps it safe. A holder
// whose lease ran out but whom nobody took over is not wrong at all: its token still holds the key,
// and it commits. Here #1 is paused far past its lease, nobody comes, and the lesson lets it go.
trace.section("4 · The lease rule, and a late holder nobody took over");
const ruleHolds = LEASE_MS > TIMEOUT_MS + LONGEST_WORK_MS;
trace.table(
  ["client timeout", "longest processing", "sum", "lease", "lease > sum"],
  [
    [
      `${TIMEOUT_MS} ms`,
      `${LONGEST_WORK_MS} ms`,
      `${TIMEOUT_MS + LONGEST_WORK_MS} ms`,
      `${LEASE_MS} ms`,
      ruleHolds ? "yes" : "NO",
    ],
  ],
);
trace.prose(`The rule, as the original course states it: the lease must exceed the client's timeout plus the longest
  processing time, so that a holder which is merely slow, within its budget, is never taken over. Strictly,
  since the lease starts at the claim, "longer than the longest processing" already protects a live holder;
  the client's timeout is a margin on top. No margin covers a pause, though: nothing bounds a GC pause or a
  frozen VM. So the lease decides only when a take-over may happen (liveness); the fence keeps it safe.`);
const late = await (async () => {
  let clock = 0;
  const faults = new Faults({ 1: "pause-past-lease" });
  const tracker: Tracker = await startTracker({
    variant: "fenced",
    db: scratch.path("late.sqlite"),
    faults,
    leaseMs: LEASE_MS,
    now: () => clock,
    onEvent: serverLog(trace),
  });
  try {
    const call = fileReport({
      url: tracker.url,
      report,
      policy: "same-key",
      maxAttempts: 1,
      timeoutMs: 5_000,
      random,
      onAttempt: agentLog(trace),
    });
    await faults.reached(1, "held");
    clock = 4 * LEASE_MS;
    trace.event(
      "lesson",
      `#1 stays paused until the tracker's clock reads ${clock} ms, far past its lease; no other request comes`,
      "warn",
    );
    faults.release(1);
    const result = await call;
    return { reports: tracker.store.countReports(), told: status(result.final) };
  } finally {
    await tracker.close();
  }
})();
trace.knows(
  `${late.told}`,
  "the lease had run out, but no newer claim existed: fence 1 still held the key, and the UPDATE changed 1 row",
);
trace.count(late.reports, 1);
summary.push(["late holder, nobody took over, fenced", `${late.reports} (${late.told})`, "1"]);

// ## 5. What "one transaction" does and does not guard
// Lesson 04's rule, report and key in one transaction, was kept in every case above. In 2a the two
// requests each committed one such transaction, both complete and consistent on their own, and the
// result was two reports. A transaction makes one request all-or-nothing; only a condition that
// involves the other request (the fence) can stop two requests from each writing one.
trace.section("5 · One transaction guards one request");
trace.prose(`In 2a, #1 and #3 each ran "INSERT report + complete the key" as one transaction, and each committed:
  ${pausedKeyed.reports} reports. Atomicity guards one request's insides; it cannot stop two requests from each
  writing one. The fence ties the two together: the later claim's token makes the earlier one's UPDATE match no
  row.`);

// ## The cases, measured
// Every number below was counted in this run's SQLite files.
trace.section("Lesson 05, as measured in this run");
trace.table(["case", "reports", "one logical call should leave"], summary);
trace.prose(`The lease is for liveness: a dead holder's key is not stuck forever. The fence is for safety: a holder
  that was only paused, however long, cannot complete a key another claim holds. Exercises 05a-05b: npm run
  check 5. (This run took ${Math.round(performance.now() - started)} ms, tracker processes included.)`);

scratch.remove();
