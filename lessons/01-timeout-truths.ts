/**
 * @title The three truths behind a timeout
 * @summary A timeout only says "no answer yet": the request may never have arrived, may be done, or
 *   may still be running.
 * @run npm run lesson 1
 * @exercise 01a
 * @resource RFC 9110 §9.2.2 Idempotent Methods:
 *   https://www.rfc-editor.org/rfc/rfc9110.html#section-9.2.2
 * @resource RFC 9110 §9.2.1 Safe Methods and §18.2 Table 7 (POST: idempotent "no")
 * @resource Amazon Builders' Library, "Timeouts, retries, and backoff with jitter" (Marc Brooker)
 *
 * What you will see: a test agent files one bug report to a real `node:http` tracker over
 * loopback, backed by a real SQLite file. Three times the agent waits 150 ms and hears nothing, and
 * three times it retries blindly. Each time the server did something different, and the database
 * ends up with a different number of reports. Then the same accident with PUT instead of POST.
 */
import { fileReport, httpCall, type Outcome } from "../lib/client/client.ts";
import { agentLog, statusText } from "../lib/client/narrate.ts";
import { lessonSetup } from "../lib/core/cli.ts";
import { t } from "../lib/core/i18n.ts";
import { seeded } from "../lib/core/random.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import { type FaultName, Faults } from "../lib/tracker/faults.ts";
import { serverLog } from "../lib/tracker/narrate.ts";
import { startTracker } from "../lib/tracker/service.ts";

const { trace, seed, heading } = lessonSetup(import.meta);
const random = seeded(seed);
const scratch = scratchDir();

// The agent's patience: a real client would wait seconds (the course's story says 2 s); here it is
// scaled down so the chapter runs in about a second. At most two attempts, and no idempotency key:
// a *blind* retry.
const TIMEOUT_MS = 150;
const report = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' on /login has no effect.",
  module: "auth",
};

trace.title(heading);
trace.prose(
  t(
    `The agent files one bug report and waits {ms} ms. When no answer comes, it only knows "no
  answer". It cannot see the server. Here are the three things that may have happened there, played
  for real: a fault is injected on the server for request #1, and the agent retries once, blindly.`,
    { ms: TIMEOUT_MS },
  ),
);

// Each case gets a fresh tracker and a fresh SQLite file, a fault for request #1, and the same
// agent. `faults` is how the lesson steers the server: request numbers count arrivals at the server
// (the retry is #2), and every pause is a gate the lesson opens, never a sleep.
interface CaseResult {
  firstAttempt: Outcome;
  reports: number;
}

async function runCase(
  name: string,
  fault: FaultName,
  steer?: (faults: Faults, call: Promise<unknown>) => Promise<void>,
): Promise<CaseResult> {
  const faults = new Faults({ 1: fault });
  const tracker = await startTracker({
    variant: "naive",
    db: scratch.path(`${name}.sqlite`),
    faults,
    onEvent: serverLog(trace),
  });
  try {
    const call = fileReport({
      url: tracker.url,
      report,
      policy: "blind-retry",
      maxAttempts: 2,
      timeoutMs: TIMEOUT_MS,
      // The agent gives up on the attempt the fault strikes, TIMEOUT_MS after it struck; the one
      // the server answers is never late, however busy this machine is (the lesson is about the
      // fault).
      giveUp: (n) => faults.noAnswer(n, TIMEOUT_MS),
      random,
      onAttempt: agentLog(trace),
    });
    await steer?.(faults, call);
    const result = await call;
    return { firstAttempt: result.attempts[0]!.outcome, reports: tracker.store.countReports() };
  } finally {
    await tracker.close();
  }
}

// A connection broken, or a proxy that dropped the request before any handler ran.
trace.section(t("Truth 1 · the request never arrived"));
const truth1 = await runCase("truth1", "drop-request");
trace.knows(
  t("no answer after {ms} ms", { ms: TIMEOUT_MS }),
  t("the request never reached a handler: nothing was stored"),
);
trace.count(truth1.reports, 1);

// A reset connection, a crashed proxy, a network partition: after the commit.
trace.section(t("Truth 2 · it arrived, was done, and the answer was lost"));
const truth2 = await runCase("truth2", "lose-response");
trace.knows(
  t("no answer after {ms} ms", { ms: TIMEOUT_MS }),
  t("the report was stored; only the answer was lost"),
);
trace.count(truth2.reports, 1);

// A lock, a long query, a GC pause. The lesson holds request #1 at its gate until the agent has its
// answer from the retry, then lets #1 finish: the agent believes it is done while the server is
// still working for it.
trace.section(t("Truth 3 · it arrived and is still running"));
const truth3 = await runCase("truth3", "slow", async (faults, call) => {
  await faults.reached(2, "arrived");
  trace.event(
    "lesson",
    t("#2 arrived while #1 is still in progress: two requests for one report are in flight"),
    "warn",
  );
  await call;
  faults.release(1);
  await faults.reached(1, "committed");
});
trace.knows(
  t("no answer after {ms} ms", { ms: TIMEOUT_MS }),
  t("the first request was still running; it finished after the retry"),
);
trace.count(truth3.reports, 1);

trace.section(t("What the agent saw on its first attempt"));
const firsts = [truth1, truth2, truth3].map((c) => c.firstAttempt);
const kinds = firsts.map((o) =>
  o.kind === "timeout"
    ? t("timeout (no answer within {ms} ms)", { ms: TIMEOUT_MS })
    : statusText(o),
);
trace.table(
  [t("case"), t("first attempt's outcome")],
  kinds.map((k, i) => [t("truth {n}", { n: i + 1 }), k]),
);
const identical = new Set(kinds).size === 1;
trace.prose(
  identical
    ? t("Identical in all three cases. Whether a retry is safe cannot be read from the failure.")
    : t("The outcomes differ in this run, which should not happen: look at the trace above."),
);

// The rule played live: the same lost answer, once for PUT /reports/7 (the client names the
// resource, so a repeat replaces it) and once for POST /reports (a new resource each time).
trace.section(t("RFC 9110 §9.2.2 · idempotent methods"));
trace.prose(
  t(`"A request method is considered 'idempotent' if the intended effect on the server of multiple
  identical requests with that method is the same as the effect for a single such request."`),
);
trace.prose(
  t(`"PUT, DELETE, and safe request methods are idempotent" (the safe ones, §9.2.1: GET, HEAD,
  OPTIONS, TRACE). POST is not: §18.2, Table 7 lists it as idempotent "no".`),
);
trace.prose(
  t(`"A client SHOULD NOT automatically retry a request with a non-idempotent method unless it has
  some means to know that the request semantics are actually idempotent, regardless of the method,
  or some means to detect that the original request was never applied." That escape clause is where
  idempotency keys come in (lesson 04).`),
);

async function sendTwice(method: "PUT" | "POST", path: string): Promise<number> {
  const faults = new Faults({ 1: "lose-response" });
  const tracker = await startTracker({
    db: scratch.path(`${method}.sqlite`),
    faults,
    onEvent: serverLog(trace),
  });
  try {
    for (let attempt = 1; attempt <= 2; attempt++) {
      trace.event("agent", t("attempt {attempt} → {method} {path}", { attempt, method, path }));
      const o = await httpCall({
        method,
        url: tracker.url + path,
        body: report,
        timeoutMs: TIMEOUT_MS,
        giveUp: faults.noAnswer(attempt, TIMEOUT_MS),
      });
      trace.event(
        "agent",
        t("attempt {attempt} ← {outcome}", {
          attempt,
          outcome: statusText(o),
        }),
        o.kind === "response" ? "ok" : "bad",
      );
      if (o.kind === "response") break;
    }
    return tracker.store.countReports();
  } finally {
    await tracker.close();
  }
}

trace.section(t("The same lost answer, with PUT and with POST"));
const putRows = await sendTwice("PUT", "/reports/7");
trace.count(putRows, 1, t("rows after PUT twice"));
const postRows = await sendTwice("POST", "/reports");
trace.count(postRows, 1, t("rows after POST twice"));

// Every number in this table was counted in the SQLite files above, in this run.
trace.section(t("The three truths, as measured in this run"));
trace.table(
  [t("truth"), t("server state when the agent gave up"), t("reports after a blind retry")],
  [
    [t("1 never arrived"), t("nothing happened"), String(truth1.reports)],
    [t("2 done, answer lost"), t("report stored"), String(truth2.reports)],
    [t("3 still running"), t("in progress"), String(truth3.reports)],
    [t("PUT, answer lost"), t("report 7 stored"), String(putRows)],
    [t("POST, answer lost"), t("report stored"), String(postRows)],
  ],
);
trace.prose(
  t(`A timeout is not a failure: it is "unknown". Before retrying, ask whether sending again makes
  another side effect. Next: how long to wait before the retry (lesson 02). Exercise 01a: npm run
  check 1.`),
);

scratch.remove();
