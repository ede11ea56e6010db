/**
 * @title Will sending it again make another copy: idempotency keys
 * @summary One key per logical operation, reused on every retry: the server replays instead of filing again; 409 while in progress, 422 for a misused key.
 * @run npm run lesson 4
 * @exercise 04a
 * @exercise 04b
 * @exercise 04c
 * @resource IETF draft-ietf-httpapi-idempotency-key-header-07 (15 Oct 2025, expired 18 Apr 2026): https://datatracker.ietf.org/doc/html/draft-ietf-httpapi-idempotency-key-header
 * @resource RFC 9651 §3.3.3 Strings (the sf-string form of the key): https://www.rfc-editor.org/rfc/rfc9651.html#section-3.3.3
 * @resource Stripe, "Idempotent requests": https://docs.stripe.com/idempotency and https://docs.stripe.com/api/idempotent_requests
 * @resource RFC 9110 §9.2.2 (the retry rule's escape clause) and §10.2.3 (Retry-After)
 * @resource openai/codex: codex-rs/app-server-protocol/src/protocol/v2/account.rs, codex-rs/tui/src/chatwidget/usage.rs
 *
 * What you will see: the response to a bug report is lost and the agent retries, against a tracker
 * without keys, with a fresh key per attempt, and with one key reused: 2, 2 and 1 reports. Then two
 * requests with one key at once, a key reused for another report (422), a stored error replayed, a
 * real tracker process killed with SIGKILL between two commits and restarted on the same SQLite file,
 * a key outliving its TTL, the two forms of the header, and Codex's reset button.
 */
import { basename } from "node:path";
import {
  type Attempt,
  describeOutcome,
  fileReport,
  httpCall,
  type Outcome,
  type PolicyName,
} from "../lib/client/client.ts";
import { agentLog, agentLogAfter } from "../lib/client/narrate.ts";
import { lessonSetup } from "../lib/core/cli.ts";
import { nowMs } from "../lib/core/clock.ts";
import { seeded, uuid } from "../lib/core/random.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import { Faults } from "../lib/tracker/faults.ts";
import { keyStoreOf } from "../lib/tracker/key-store.ts";
import { serverLog } from "../lib/tracker/narrate.ts";
import { DEFAULT_TTL_MS, startTracker } from "../lib/tracker/service.ts";
import { countReportsIn } from "../lib/tracker/store.ts";
import { superviseTracker } from "../lib/tracker/supervisor.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

const { trace, seed, heading } = lessonSetup(import.meta);
const random = seeded(seed);
const scratch = scratchDir();
const started = performance.now();

// Scaled down as in lesson 01: the agent waits 100 ms for an answer. A keyed tracker's claim lasts
// 400 ms (its lease): long beside the agent's patience, so a retry finds the first request still
// holding its key, and short enough that waiting out a 409 takes a moment, not a minute. The
// trackers here run on the lesson's clock (nowMs), which stands still while --step pauses, as the
// agent's timers do: a lease does not run out while you read.
const TIMEOUT_MS = 100;
const LEASE_MS = 400;
const report = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' on /login has no effect.",
  module: "auth",
};

trace.title(heading);
trace.prose(`RFC 9110 §9.2.2 lets a client retry a POST on its own only if it "has some means to know that the
  request semantics are actually idempotent". An Idempotency-Key is that means: the client names the logical
  operation with one key and sends the same key on every attempt; the server remembers key → result and,
  seeing the key again, answers with the stored result instead of doing the work again.`);

/** One row of the closing table, filled in as the cases run. */
const summary: string[][] = [];
const count = (n: number): string => String(n);
const isReplay = (o: Outcome): boolean =>
  o.kind === "response" && o.headers["idempotent-replayed"] === "true";

// ## 1. The lost response, three ways
// The same accident as lesson 01's truth 2: the tracker commits the report, then the answer is lost.
// The agent retries after its timeout. Three clients against two trackers: no key (naive tracker),
// a fresh key per attempt, one key for the logical call.
async function lostResponse(
  variant: VariantName,
  policy: PolicyName,
): Promise<{ reports: number; attempts: Attempt[] }> {
  const faults = new Faults({ 1: "lose-response" });
  const tracker = await startTracker({
    variant,
    db: scratch.path(`lost-${variant}-${policy}.sqlite`),
    faults,
    leaseMs: LEASE_MS,
    now: nowMs,
    onEvent: serverLog(trace),
  });
  try {
    const result = await fileReport({
      url: tracker.url,
      report,
      policy,
      maxAttempts: 3,
      timeoutMs: TIMEOUT_MS,
      random,
      onAttempt: agentLog(trace),
    });
    return { reports: tracker.store.countReports(), attempts: result.attempts };
  } finally {
    await tracker.close();
  }
}

trace.section("1a · The answer is lost: naive tracker, blind retry");
const lostNaive = await lostResponse("naive", "blind-retry");
trace.knows(
  `no answer after ${TIMEOUT_MS} ms, then a 201`,
  "the first request was stored; the retry stored it again",
);
trace.count(lostNaive.reports, 1);

trace.section("1b · keyed tracker, but a fresh key on every attempt");
trace.prose(`The classic mistake: the client does send an Idempotency-Key, but makes a new UUID for each attempt.
  To the server the retry is a different operation.`);
const lostFresh = await lostResponse("keyed", "fresh-key");
trace.knows("two different keys", "two different operations, as far as the server can tell");
trace.count(lostFresh.reports, 1);

trace.section("1c · keyed tracker, one key for the logical call");
const lostSame = await lostResponse("keyed", "same-key");
const replayedLost = isReplay(lostSame.attempts.at(-1)!.outcome);
trace.knows(
  `the second answer carries Idempotent-Replayed: ${replayedLost}`,
  "the retry found the key completed and got the stored 201 back",
);
trace.count(lostSame.reports, 1);
summary.push(
  ["lost response, naive + blind-retry", count(lostNaive.reports), "1"],
  ["lost response, keyed + fresh-key", count(lostFresh.reports), "1"],
  ["lost response, keyed + same-key", count(lostSame.reports), "1"],
);

// ## 2. Two requests with one key at once
// Lesson 01's truth 3: the first request is still running when the retry arrives. `key-after` looks
// the key up, does the work, inserts the report and commits, then records the key in a second
// commit: nothing marks the key as taken while the work runs, so both requests find it free.
// `keyed` claims the key as in_progress in a short transaction before the work: of two requests with
// one key, exactly one finds it free; the other gets 409 with Retry-After and comes back later.
// The lesson holds request #1 at its gate and lets it go once #2 has been answered.
async function concurrent(variant: VariantName): Promise<{ reports: number; attempts: Attempt[] }> {
  const faults = new Faults({ 1: "slow" });
  const tracker = await startTracker({
    variant,
    db: scratch.path(`concurrent-${variant}.sqlite`),
    faults,
    leaseMs: LEASE_MS,
    now: nowMs,
    onEvent: serverLog(trace),
  });
  try {
    const call = fileReport({
      url: tracker.url,
      report,
      policy: "same-key",
      maxAttempts: 3,
      timeoutMs: TIMEOUT_MS,
      random,
      onAttempt: agentLog(trace),
    });
    await faults.reached(2, "answered");
    trace.event("lesson", "#2 has its answer: the lesson lets #1 go on", "warn");
    faults.release(1);
    await faults.reached(1, "committed");
    const result = await call;
    return { reports: tracker.store.countReports(), attempts: result.attempts };
  } finally {
    await tracker.close();
  }
}

trace.section(
  "2a · One key, two requests at once: key-after (insert the report, then record the key)",
);
const raceAfter = await concurrent("key-after");
trace.knows(
  "a 201 for the retry",
  "the first request was still running; both looked the key up before either recorded it",
);
trace.count(raceAfter.reports, 1);

trace.section("2b · The same with keyed (claim the key first, with a lease)");
const raceKeyed = await concurrent("keyed");
const conflict = raceKeyed.attempts.find(
  (a) => a.outcome.kind === "response" && a.outcome.status === 409,
)?.outcome;
const retryAfter =
  conflict?.kind === "response"
    ? `Retry-After: ${conflict.headers["retry-after"]} s, retry-after-ms: ${conflict.headers["retry-after-ms"]}`
    : "no 409";
trace.knows(
  `409 (${retryAfter}), then a replay`,
  "one request did the work; the other waited and got its stored answer",
);
trace.count(raceKeyed.reports, 1);
trace.prose(`Retry-After counts whole seconds (RFC 9110 §10.2.3: delay-seconds), too coarse for a 400 ms lease, so
  the tracker also sends retry-after-ms, the header the Stainless-generated SDKs read first
  (anthropic-sdk-python's _parse_retry_after_header in _base_client.py; retryRequest in the client.ts of the
  Anthropic and OpenAI TypeScript SDKs). The agent's same-key policy waits for it, then retries with the same
  key.`);
// Why two short transactions and not one around the whole request: the tracker has one SQLite
// connection, shared by every request, and a transaction belongs to the connection, not to the
// request. Held open across `await ctx.work()`, it would take in the statements every other request
// runs meanwhile; its rollback would undo their work and its commit would commit their half-done
// work. And BEGIN IMMEDIATE holds the file's write lock, so every other writer (another process on the
// same file) would queue behind the slow work. lib/tracker/store.ts refuses a transaction that spans
// an await; between the two transactions the lease is what keeps other requests off the key.
trace.prose(`keyed runs two short transactions, never one held across the work: the claim (read the key, mark it
  in_progress with a lease, COMMIT), then the work with no transaction open, then the report and the stored
  response together (COMMIT). The tracker's one SQLite connection is shared by every request, and a
  transaction belongs to the connection: held open across an await it would swallow the statements of every
  request that ran meanwhile, and one rollback would undo them all. The lease keeps the key taken in between.`);
summary.push(
  ["one key at once, key-after", count(raceAfter.reports), "1"],
  ["one key at once, keyed", count(raceKeyed.reports), "1"],
);

// ## 3. A key reused for a different report, and a stored error
// The key names one operation. The tracker keeps a fingerprint of the request (method, route and the
// body as canonical JSON, so key order and white space do not matter) and answers 422 when the same
// key comes with another request. It checks this before "in progress": a misused key is the client's
// bug whatever state the first request is in, and the draft asks the client to correct it, while a
// 409 needs no correction.
trace.section("3a · Same key, different report: 422, checked before 409");
const misuse = await (async () => {
  const faults = new Faults({ 1: "slow" });
  const tracker = await startTracker({
    variant: "keyed",
    db: scratch.path("misuse.sqlite"),
    faults,
    leaseMs: LEASE_MS,
    now: nowMs,
    onEvent: serverLog(trace),
  });
  try {
    const key = uuid(random);
    const send = async (what: string, body: object): Promise<Outcome> => {
      trace.event("agent", `${what} → POST /reports (Idempotency-Key ${key.slice(0, 8)}…)`);
      const o = await httpCall({
        method: "POST",
        url: `${tracker.url}/reports`,
        body,
        headers: { "idempotency-key": `"${key}"` },
        timeoutMs: 5_000,
      });
      trace.event(
        "agent",
        `${what} ← ${describeOutcome(o)}`,
        o.kind === "response" && o.status < 300 ? "ok" : "bad",
      );
      return o;
    };
    // The first request stays open (a generous timeout it never reaches: the lesson releases it).
    trace.event("agent", `first → POST /reports (Idempotency-Key ${key.slice(0, 8)}…)`);
    const first = httpCall({
      method: "POST",
      url: `${tracker.url}/reports`,
      body: report,
      headers: { "idempotency-key": `"${key}"` },
      timeoutMs: 5_000,
    });
    await faults.reached(1, "held");
    const other = await send("another report, same key", {
      ...report,
      title: "Logout button does nothing",
    });
    const same = await send("same report, same key", {
      module: report.module,
      body: report.body,
      title: report.title,
    });
    faults.release(1);
    const firstOutcome = await first;
    trace.event("agent", `first ← ${describeOutcome(firstOutcome)}`, "ok");
    const status = (o: Outcome): string => (o.kind === "response" ? String(o.status) : o.kind);
    return { other: status(other), same: status(same), reports: tracker.store.countReports() };
  } finally {
    await tracker.close();
  }
})();
trace.knows(
  `${misuse.other} for the other report; ${misuse.same} for the same report, its JSON fields in another order, while the first still ran`,
  "the fingerprint, not the key alone, decides: the same fields in any order are the same request",
);
trace.count(misuse.reports, 1);

// Stripe saves "the resulting status code and body of the first request … regardless of whether it
// succeeds or fails … including 500 errors" (API v1): once execution has begun, the error is the
// key's result. Here the handler's work fails after the claim; the same-key retry gets the stored
// 500 back and nothing runs again. To try the operation again the client needs a new key.
trace.section("3b · A stored error is replayed too (Stripe API v1)");
const storedError = await (async () => {
  const tracker = await startTracker({
    variant: "keyed",
    db: scratch.path("error.sqlite"),
    faults: new Faults({ 1: "internal-error" }),
    leaseMs: LEASE_MS,
    now: nowMs,
    onEvent: serverLog(trace),
  });
  try {
    const result = await fileReport({
      url: tracker.url,
      report,
      policy: "same-key",
      maxAttempts: 2,
      timeoutMs: TIMEOUT_MS,
      random,
      onAttempt: agentLog(trace),
    });
    const last = result.final;
    return {
      status: last.kind === "response" ? last.status : 0,
      replayed: isReplay(last),
      reports: tracker.store.countReports(),
    };
  } finally {
    await tracker.close();
  }
})();
trace.knows(
  `${storedError.status} twice, the second with Idempotent-Replayed: ${storedError.replayed}`,
  "the work failed once and was not run again",
);
trace.count(storedError.reports, 0);
summary.push(
  ["same key, other report", `${misuse.reports} (other → ${misuse.other})`, "1"],
  ["stored error replayed", count(storedError.reports), "0"],
);

// ## 4. Killed between the two commits
// key-after's other weakness. A real tracker process (a child of this lesson, over a SQLite file in
// WAL mode) commits the report, then is killed with SIGKILL before it records the key: no unwinding,
// no answer. A supervisor (the lesson) starts a fresh process on the same file and port, and the
// agent retries with the same key. keyed has one commit for the report and the response, so at the
// same moment both are in.
async function killedBetweenCommits(
  variant: VariantName,
): Promise<{ reports: number; attempts: Attempt[] }> {
  const db = scratch.path(`crash-${variant}.sqlite`);
  const log = serverLog(trace);
  const tracker = await superviseTracker({
    variant,
    db,
    faults: { 1: "crash-between-commits" },
    onEvent: (e, generation) =>
      log({ ...e, text: `${generation > 1 ? "[restarted] " : ""}${e.text}` }),
  });
  trace.event("lesson", `tracker process started (${variant}) over ${basename(db)}`);
  // The process's events come through a pipe and may trail the answer: the agent's lines wait for them.
  const agent = agentLogAfter(trace, () => tracker.current.flush());
  let attempts: Attempt[];
  try {
    const result = await fileReport({
      url: tracker.url,
      report,
      policy: "same-key",
      maxAttempts: 2,
      timeoutMs: 5_000,
      random,
      onAttempt: agent.onAttempt,
      // The agent's retry waits at this gate until the supervisor has the new process listening.
      beforeRetry: async () => {
        await agent.settled();
        const exit = await tracker.restartAfterExit();
        trace.event(
          "lesson",
          `the tracker process is gone (${exit.signal ?? `exit code ${exit.code}`}); a new one is listening on the same file and port`,
          "warn",
        );
      },
    });
    attempts = result.attempts;
    await agent.settled();
  } finally {
    await tracker.close();
  }
  return { reports: countReportsIn(db), attempts };
}

trace.section("4a · key-after, killed (SIGKILL) between its two commits");
const crashAfter = await killedBetweenCommits("key-after");
trace.knows(
  "the connection was reset, then a 201",
  "the report was committed; the key was not, so the retry filed it again",
);
trace.count(crashAfter.reports, 1);

trace.section("4b · keyed, killed at the same moment");
const crashKeyed = await killedBetweenCommits("keyed");
trace.knows(
  `the connection was reset, then a 201 with Idempotent-Replayed: ${isReplay(crashKeyed.attempts.at(-1)!.outcome)}`,
  "report and key were committed together; the new process replayed",
);
trace.count(crashKeyed.reports, 1);
trace.prose(`"Record the key" and "do the side effect" in one transaction: that is the rule key-after breaks twice.
  One transaction is not the whole story, though: keyed trusts its lease, and a holder that is only paused
  past it can still write a second copy. Lesson 05 shows it, and the fencing token that stops it.`);
summary.push(
  ["killed between commits, key-after", count(crashAfter.reports), "1"],
  ["killed between commits, keyed", count(crashKeyed.reports), "1"],
);

// ## 5. Keys expire
// The draft: the resource "SHOULD define such expiration policy and publish it". Stripe: keys may be
// removed "after they're at least 24 hours old", and "we generate a new request if a key is reused
// after the original is pruned". This tracker publishes a TTL of 24 h (its --help says so) and checks
// it when it reads a key. The service's clock is injected here, so a day passes at once.
trace.section("5 · After the TTL the same key is a new request");
const expiry = await (async () => {
  let clock = 0;
  const tracker = await startTracker({
    variant: "keyed",
    db: scratch.path("ttl.sqlite"),
    now: () => clock,
    onEvent: serverLog(trace),
  });
  try {
    const key = uuid(random);
    const statuses: string[] = [];
    for (const [label, at] of [
      ["at 0 h", 0],
      ["at 23 h", 23 * 3_600_000],
      ["at 25 h", 25 * 3_600_000],
    ] as const) {
      clock = at;
      trace.event("agent", `${label}: POST /reports with the same key`);
      const o = await httpCall({
        method: "POST",
        url: `${tracker.url}/reports`,
        body: report,
        headers: { "idempotency-key": `"${key}"` },
        timeoutMs: 5_000,
      });
      trace.event("agent", `${label} ← ${describeOutcome(o)}`, "ok");
      statuses.push(
        `${label}: ${o.kind === "response" ? o.status : o.kind}${isReplay(o) ? " replayed" : ""}`,
      );
    }
    return { statuses, reports: tracker.store.countReports() };
  } finally {
    await tracker.close();
  }
})();
trace.knows(
  expiry.statuses.join(", "),
  `the TTL is ${DEFAULT_TTL_MS / 3_600_000} h: after it the key is forgotten`,
);
trace.count(expiry.reports, 2, "reports (2 by design: a new request)");
trace.prose(
  `So the TTL must outlast every retry schedule that may reuse a key: a retry a day later is a new request.`,
);
summary.push(["same key after the TTL", count(expiry.reports), "2"]);

// ## 6. The header, both forms, and what the tracker refuses
// The draft makes the key an Item Structured Field whose value "MUST be a String" (RFC 9651 §3.3.3:
// quoted, printable ASCII, with \" and \\ as its only escapes); Stripe's documentation shows it bare.
// The tracker takes both, and they name the same key. It refuses with 400, storing nothing, a key
// that is missing, empty, over 255 characters (Stripe's limit), not printable ASCII, unparseable, or
// sent twice (two header lines, which node:http would silently join: the tracker reads rawHeaders).
trace.section("6 · Both forms of the header, and what is refused");
const forms = await (async () => {
  const tracker = await startTracker({ variant: "keyed", db: scratch.path("forms.sqlite") });
  try {
    const key = uuid(random);
    const rows: string[][] = [];
    const cases: Array<[string, string | string[] | undefined]> = [
      ["draft: sf-string", `"${key}"`],
      ["Stripe: bare", key],
      ["sf-string with escapes", '"say \\"hi\\" \\\\o/"'],
      ["missing", undefined],
      ["empty", '""'],
      ["256 characters", `"${"k".repeat(256)}"`],
      ["not printable ASCII", '"clé"'],
      ["no closing quote", `"${key}`],
      ["bare with a space", "two words"],
      ["two header lines", [key, key]],
    ];
    for (const [what, value] of cases) {
      const headers: Record<string, string | string[]> =
        value === undefined ? {} : { "idempotency-key": value };
      const o = await httpCall({
        method: "POST",
        url: `${tracker.url}/reports`,
        body: report,
        headers,
        timeoutMs: 5_000,
      });
      const shown =
        value === undefined
          ? "(none)"
          : [value]
              .flat()
              .map((v) => (v.length > 24 ? `${v.slice(0, 21)}…` : v))
              .join(" / ");
      const outcome =
        o.kind === "response" ? `${o.status}${isReplay(o) ? " (replay)" : ""}` : o.kind;
      rows.push([what, shown, outcome]);
    }
    return { rows, reports: tracker.store.countReports(), keys: keyStoreOf(tracker.store).count() };
  } finally {
    await tracker.close();
  }
})();
trace.table(["form", "Idempotency-Key as sent", "answer"], forms.rows);
trace.knows(
  `${forms.reports} reports, ${forms.keys} keys stored`,
  "the two forms are one key (one report); the escaped key is another; every 400 stored nothing",
);
trace.count(forms.reports, 2);
trace.prose(`The IETF text is a draft, not an RFC: draft-ietf-httpapi-idempotency-key-header-07, the latest version,
  is dated 15 October 2025 and expired on 18 April 2026. Its -06 text says a resource SHOULD respond "with the
  result of the previously completed operation, success or an error", SHOULD answer 422 for a key reused with a
  different payload, 409 while the first request is still processing and 400 when a required key is missing,
  and SHOULD define an expiry policy and publish it. Stripe, the best-known implementation, differs in details:`);
trace.table(
  ["case", "IETF draft (-06 text) recommends", "Stripe does"],
  [
    [
      "same key, completed",
      "SHOULD return the earlier result",
      "returns the saved status and body, 500s included (API v1)",
    ],
    ["same key, other body", "SHOULD answer 422", "compares the parameters, errors on a mismatch"],
    ["same key, in progress", "SHOULD answer 409", 'not saved; "you can retry these requests"'],
    ["lifetime", "SHOULD define and publish expiry", "keys may be pruned after at least 24 hours"],
    ["form", "sf-string, quoted", "bare, up to 255 characters"],
  ],
);

// ## 7. Codex: a request id per transmission, one key per logical operation
// openai/codex's TUI offers to spend a rate-limit reset credit. On confirm it makes one UUID
// (`Uuid::new_v4()`); after an error the "Try again" item re-sends with the same key, and
// account.rs documents the field: "Identifies one logical reset attempt. A UUID is recommended;
// reuse the same value when retrying that attempt." The backend's outcome `AlreadyRedeemed` ("the
// same idempotency key already completed a reset successfully") counts as success, and the test
// `rate_limit_reset_retry_reuses_idempotency_key` asserts the key survives an Err("response lost").
// Each send, meanwhile, is its own request with its own `id`: the app-server protocol's messages are
// JSON-RPC-like (openai/codex @ 47cb26a5, codex-rs/app-server-protocol/src/jsonrpc_lite.rs,
// `JSONRPCRequest { id: RequestId, method, params }`; its header: "We do not do true JSON-RPC 2.0, as we
// neither send nor expect the "jsonrpc": "2.0" field"). That id pairs an answer with one transmission.
// Here the agent does the same over HTTP, with an x-request-id header.
trace.section("7 · Codex's reset button: a request id per send, one key per logical reset attempt");
trace.prose(`In Codex each send is a request of the app-server protocol, a JSON-RPC-style message with its own id
  (codex-rs/app-server-protocol/src/jsonrpc_lite.rs); the id pairs an answer with one transmission. The
  Idempotency-Key of the reset is made once, on confirm, and names the logical attempt. Here the agent does
  the same over HTTP: a new x-request-id per send, one key.`);
const codex = await (async () => {
  const faults = new Faults({ 1: "lose-response" });
  const tracker = await startTracker({
    variant: "keyed",
    db: scratch.path("codex.sqlite"),
    faults,
    onEvent: serverLog(trace),
  });
  try {
    const idempotencyKey = uuid(random); // on confirm: one logical reset attempt
    const rows: string[][] = [];
    for (let requestId = 1; requestId <= 2; requestId++) {
      const label = requestId === 1 ? "confirm" : "Try again";
      trace.event(
        "agent",
        `${label}: request id ${requestId}, Idempotency-Key ${idempotencyKey.slice(0, 8)}…`,
      );
      const o = await httpCall({
        method: "POST",
        url: `${tracker.url}/reports`,
        body: report,
        headers: { "idempotency-key": `"${idempotencyKey}"`, "x-request-id": String(requestId) },
        timeoutMs: TIMEOUT_MS,
      });
      trace.event(
        "agent",
        `request id ${requestId} ← ${describeOutcome(o)}`,
        o.kind === "response" ? "ok" : "bad",
      );
      rows.push([
        String(requestId),
        `${idempotencyKey.slice(0, 8)}…`,
        o.kind === "response" ? `${o.status}${isReplay(o) ? " replayed: success" : ""}` : o.kind,
      ]);
      if (o.kind === "response") break;
    }
    return { rows, reports: tracker.store.countReports() };
  } finally {
    await tracker.close();
  }
})();
trace.table(["request id", "idempotency key", "outcome"], codex.rows);
trace.count(codex.reports, 1);
summary.push(["Codex: new request id, same key", count(codex.reports), "1"]);

// ## The cases, measured
// Every number below was counted in this run's SQLite files.
trace.section("Lesson 04, as measured in this run");
trace.table(["case", "reports", "one logical call should leave"], summary);
trace.prose(`Key per logical operation, reused on every retry; key and side effect in one transaction; replay,
  409, 422, a published TTL. Next, lesson 05: what a lease cannot promise. Exercises 04a-04c: npm run check 4.
  (This run took ${Math.round(performance.now() - started)} ms, tracker processes included.)`);

scratch.remove();
