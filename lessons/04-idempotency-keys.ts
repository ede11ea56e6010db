/**
 * @title Will sending it again make another copy: idempotency keys
 * @summary One key per logical operation, reused on every retry: the server replays instead of
 *   filing again; 409 while in progress, 422 for a misused key.
 * @run npm run lesson 4
 * @exercise 04a
 * @exercise 04b
 * @exercise 04c
 * @resource IETF draft-ietf-httpapi-idempotency-key-header-07 (15 Oct 2025, expired 18 Apr
 *   2026): https://datatracker.ietf.org/doc/html/draft-ietf-httpapi-idempotency-key-header
 * @resource RFC 9651 §3.3.3 Strings (the sf-string form of the key):
 *   https://www.rfc-editor.org/rfc/rfc9651.html#section-3.3.3
 * @resource Stripe, "Idempotent requests": https://docs.stripe.com/idempotency and
 *   https://docs.stripe.com/api/idempotent_requests
 * @resource RFC 9110 §9.2.2 (the retry rule's escape clause) and §10.2.3 (Retry-After)
 * @resource openai/codex: codex-rs/app-server-protocol/src/protocol/v2/account.rs,
 *   codex-rs/tui/src/chatwidget/usage.rs
 *
 * What you will see: the response to a bug report is lost and the agent retries, against a tracker
 * without keys, with a fresh key per attempt, and with one key reused: 2, 2 and 1 reports. Then two
 * requests with one key at once, a key reused for another report (422), a stored error replayed, a
 * real tracker process killed with SIGKILL between two commits and restarted on the same SQLite
 * file, a key outliving its TTL, the two forms of the header, and Codex's button that spends a
 * rate-limit reset credit.
 */
import type { PolicyName } from "../lib/client/client.ts";
import { lessonSetup } from "../lib/core/cli.ts";
import { t } from "../lib/core/i18n.ts";
import { seeded, uuid } from "../lib/core/random.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import {
  advancing,
  agentCall,
  agentCallOn,
  type ExperimentTracker,
  isReplay,
  keyForms,
  killedAndRestarted,
  otherThenSameWhileHeld,
  retryAfterOf,
  sendUntilAnswered,
  sendWithKey,
  shortOutcome,
  tryKeyForms,
  withTracker,
} from "../lib/tracker/experiments.ts";
import type { FaultName } from "../lib/tracker/faults.ts";
import { pacedClock } from "../lib/tracker/paced-clock.ts";
import { DEFAULT_TTL_MS } from "../lib/tracker/service.ts";
import { countReportsIn } from "../lib/tracker/store.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

const { trace, seed, heading } = lessonSetup(import.meta);
const random = seeded(seed);
const scratch = scratchDir();
const started = performance.now();

// Scaled down as in lesson 01: the agent waits 100 ms for an answer. A keyed tracker's claim lasts
// 400 ms (its lease): long beside the agent's patience, so a retry finds the first request still
// holding its key, and short enough that waiting out a 409 takes a moment. The trackers run on a
// clock moved only by what the agent waited (lib/tracker/paced-clock.ts): no lease runs out while
// you read a --step pause, and the same seed prints the same numbers.
const TIMEOUT_MS = 100;
const LEASE_MS = 400;
const clock = pacedClock();
/** A tracker over its own SQLite file, `fault` for request #1. */
const on = (file: string, variant: VariantName, fault?: FaultName): ExperimentTracker => ({
  variant,
  db: scratch.path(`${file}.sqlite`),
  leaseMs: LEASE_MS,
  now: clock.now,
  ...(fault ? { faults: { 1: fault } } : {}),
});
/** The agent's call: this lesson's timeout, three attempts; each wait moves the trackers' clock. */
const call = { timeoutMs: TIMEOUT_MS, maxAttempts: 3, random, beforeRetry: advancing(clock) };
/** The closing table: a row per case as it runs, the reports left and what one call should leave */
const summary: string[][] = [];
const measured = (label: string, reports: number | string, expected = 1) =>
  summary.push([label, String(reports), String(expected)]);

trace.title(heading);
trace.prose(
  t(`RFC 9110 §9.2.2 lets a client retry a POST on its own only if it "has some means to know
  that the request semantics are actually idempotent". An Idempotency-Key is that means: the client
  names the logical operation with one key and sends the same key on every attempt; the server
  remembers key → result and, seeing the key again, answers with the stored result instead of doing
  the work again.`),
);

/** The agent's call against a tracker: its last answer, and the reports stored. */
const agentOn = (policy: PolicyName, maxAttempts = 3) =>
  agentCallOn(trace, { ...call, policy, maxAttempts });

const lostResponse = (variant: VariantName, policy: PolicyName) =>
  withTracker(trace, on(`lost-${policy}`, variant, "lose-response"), agentOn(policy));

trace.section(t("1a · The answer is lost: naive tracker, blind retry"));
const lostNaive = await lostResponse("naive", "blind-retry");
trace.knows(
  t("no answer after {ms} ms, then a 201", { ms: TIMEOUT_MS }),
  t("the first request was stored; the retry stored it again"),
);
trace.count(lostNaive.reports, 1);

trace.section(t("1b · keyed tracker, but a fresh key on every attempt"));
trace.prose(
  t(`The classic mistake: the client does send an Idempotency-Key, but makes a new UUID for
  each attempt. To the server the retry is a different operation.`),
);
const lostFresh = await lostResponse("keyed", "fresh-key");
trace.knows(t("two different keys"), t("two different operations, as far as the server can tell"));
trace.count(lostFresh.reports, 1);

trace.section(t("1c · keyed tracker, one key for the logical call"));
const lostSame = await lostResponse("keyed", "same-key");
trace.knows(
  t("the second answer carries Idempotent-Replayed: {replayed}", lostSame),
  t("the retry found the key completed and got the stored 201 back"),
);
trace.count(lostSame.reports, 1);
measured(t("lost response, naive + blind-retry"), lostNaive.reports);
measured(t("lost response, keyed + fresh-key"), lostFresh.reports);
measured(t("lost response, keyed + same-key"), lostSame.reports);

// The slow fault holds request #1 at its gate; the lesson lets it go once #2 has its answer.
const concurrent = (variant: VariantName) =>
  withTracker(trace, on(`concurrent-${variant}`, variant, "slow"), async (tracker, faults) => {
    const result = agentCall(trace, tracker.url, { ...call, policy: "same-key" });
    await faults.reached(2, "answered");
    trace.event("lesson", t("#2 has its answer: the lesson lets #1 go on"), "warn");
    faults.release(1);
    await faults.reached(1, "committed");
    return { reports: tracker.store.countReports(), attempts: (await result).attempts };
  });

trace.section(t("2a · One key, two requests at once: key-after (report first, key after)"));
trace.prose(
  t(`key-after looks the key up, does the work, commits the report, then records the key in a
  second commit. Nothing marks the key as taken while the work runs.`),
);
const raceAfter = await concurrent("key-after");
trace.knows(
  t("a 201 for the retry"),
  t("the first request was still running; both looked the key up before either recorded it"),
);
trace.count(raceAfter.reports, 1);

trace.section(t("2b · The same with keyed (claim the key first, with a lease)"));
trace.prose(
  t(`keyed claims the key as in_progress before the work, in a short transaction of its own: of
  two requests with one key exactly one finds it free. The other gets 409 and comes back later.`),
);
const raceKeyed = await concurrent("keyed");
trace.knows(
  t("409 (Retry-After: {s} s, retry-after-ms: {ms}), then a replay", retryAfterOf(raceKeyed)),
  t("one request did the work; the other waited and got its stored answer"),
);
trace.count(raceKeyed.reports, 1);
trace.prose(
  t(`Retry-After counts whole seconds (RFC 9110 §10.2.3: delay-seconds), too coarse for a 400
  ms lease, so the tracker also sends retry-after-ms, the header the Stainless-generated SDKs read
  first (anthropic-sdk-python's _parse_retry_after_header in _base_client.py; retryRequest in the
  client.ts of the Anthropic and OpenAI TypeScript SDKs). The agent waits for it, then retries with
  the same key.`),
);
trace.prose(
  t(`Two short transactions, never one held across the work: the claim, then the report and the
  stored response together. Held open across the work, a transaction on the shared connection would
  swallow the statements of every request that ran meanwhile. The lease keeps the key taken in
  between.`),
);
measured(t("one key at once, key-after"), raceAfter.reports);
measured(t("one key at once, keyed"), raceKeyed.reports);

// The fingerprint covers the method, the route and the report as canonical JSON. A misused key is
// checked before "in progress": it is the client's bug whatever state the first request is in (the
// draft asks the client to correct it), while a 409 needs no correction.
trace.section(t("3a · Same key, different report: 422, checked before 409"));
const misuse = await withTracker(trace, on("misuse", "keyed", "slow"), (tracker, faults) =>
  otherThenSameWhileHeld(trace, tracker, faults, uuid(random)),
);
trace.knows(
  t(
    `{other} for the other report; {same} for the same report, its JSON fields in another order,
  while the first still ran`,
    misuse,
  ),
  t("the fingerprint, not the key alone, decides: the same fields in any order are one request"),
);
trace.count(misuse.reports, 1);

// Stripe saves "the resulting status code and body of the first request … regardless of whether it
// succeeds or fails … including 500 errors" (API v1).
trace.section(t("3b · A stored error is replayed too (Stripe API v1)"));
trace.prose(
  t(`Once the work has begun, its failure is the key's result: the same-key retry gets the stored
  500 back and nothing runs again. To try again, the client needs a new key.`),
);
const failing = on("error", "keyed", "internal-error");
const storedError = await withTracker(trace, failing, agentOn("same-key", 2));
trace.knows(
  t("{status} twice, the second with Idempotent-Replayed: {replayed}", storedError),
  t("the work failed once and was not run again"),
);
trace.count(storedError.reports, 0);
measured(t("same key, other report"), t("{reports} (other → {other})", misuse));
measured(t("stored error replayed"), storedError.reports, 0);

// A real tracker process over a SQLite file in WAL mode, killed with SIGKILL after the report's
// commit, before the key's: no unwinding, no answer.
const killedBetweenCommits = async (variant: VariantName) => {
  const db = scratch.path(`crash-${variant}.sqlite`);
  const faults = { 1: "crash-between-commits" } as const;
  const call = { maxAttempts: 2, timeoutMs: 5_000, random };
  const attempts = await killedAndRestarted(trace, { variant, db, faults, call });
  return { reports: countReportsIn(db), replayed: String(isReplay(attempts.at(-1)!.outcome)) };
};

trace.section(t("4a · key-after, killed (SIGKILL) between its two commits"));
const crashAfter = await killedBetweenCommits("key-after");
trace.knows(
  t("the connection was reset, then a 201"),
  t("the report was committed; the key was not, so the retry filed it again"),
);
trace.count(crashAfter.reports, 1);

trace.section(t("4b · keyed, killed at the same moment"));
trace.prose(
  t("keyed commits the report and the key's response together: at that moment both are in."),
);
const crashKeyed = await killedBetweenCommits("keyed");
trace.knows(
  t("the connection was reset, then a 201 with Idempotent-Replayed: {replayed}", crashKeyed),
  t("report and key were committed together; the new process replayed"),
);
trace.count(crashKeyed.reports, 1);
trace.prose(
  t(`"Record the key" and "do the side effect" in one transaction: that is the rule key-after
  breaks twice. It is not the whole story: keyed trusts its lease, and a holder only paused past it
  can still write a second copy. Lesson 05 shows it, and what stops it.`),
);
measured(t("killed between commits, key-after"), crashAfter.reports);
measured(t("killed between commits, keyed"), crashKeyed.reports);

// The draft: the resource "SHOULD define such expiration policy and publish it". Stripe: keys may
// be removed "after they're at least 24 hours old", and "we generate a new request if a key is
// reused after the original is pruned". This tracker's --help publishes its TTL, 24 h. Its clock is
// injected here, so a day passes at once.
trace.section(t("5 · After the TTL the same key is a new request"));
let day = 0;
const ttl = { variant: "keyed", db: scratch.path("ttl.sqlite"), now: () => day } as const;
const expiry = await withTracker(trace, ttl, async ({ url, store }) => {
  const key = uuid(random);
  const statuses: string[] = [];
  for (const hours of [0, 23, 25]) {
    day = hours * 3_600_000;
    const at = t("at {hours} h", { hours });
    const outcome = shortOutcome(await sendWithKey(trace, url, at, key));
    statuses.push(t("{at}: {outcome}", { at, outcome }));
  }
  return { statuses, reports: store.countReports() };
});
const [first, second, third] = expiry.statuses;
trace.knows(
  t("{first}, {second}, {third}", { first, second, third }),
  t("the TTL is {hours} h: after it the key is forgotten", { hours: DEFAULT_TTL_MS / 3_600_000 }),
);
trace.count(expiry.reports, 2, t("reports (2 by design: a new request)"));
trace.prose(
  t(`So the TTL must outlast every retry schedule that may reuse a key: a retry a day later is a
  new request.`),
);
measured(t("same key after the TTL"), expiry.reports, 2);

// The draft makes the key an Item Structured Field whose value "MUST be a String" (RFC 9651
// §3.3.3); Stripe's documentation shows it bare. Two header lines would be joined by node:http
// without a word: the tracker reads rawHeaders. The forms: keyForms in lib/tracker/experiments.ts.
trace.section(t("6 · Both forms of the header, and what is refused"));
trace.prose(
  t(`The tracker takes both forms as one key. It answers 400, storing nothing, for a key that is
  missing, empty, over 255 characters (Stripe's limit; the draft sets none), not printable ASCII,
  unparseable, or sent twice.`),
);
const forms = await tryKeyForms(scratch.path("forms.sqlite"), keyForms(uuid(random)));
trace.table([t("form"), t("Idempotency-Key as sent"), t("answer")], forms.rows);
trace.knows(
  t("{reports} reports, {keys} keys stored", { reports: forms.reports, keys: forms.keys }),
  t("the two forms are one key (one report); the escaped key is another; every 400 stored nothing"),
);
trace.count(forms.reports, 2);
trace.prose(
  t(`The IETF text is a draft, not an RFC: draft-ietf-httpapi-idempotency-key-header-07, the
  latest version, is dated 2025-10-15 and expired on 2026-04-18. The words quoted here are those of
  -06 (2025-02), the last version whose full text this workbook checked. A resource
  SHOULD answer "with the result of the previously completed operation, success or an error", 422
  for a key reused with another payload, 409 while the first request still runs, and SHOULD publish
  its expiry policy. Stripe, the best-known implementation, differs in details:`),
);
trace.table(
  [t("case"), t("IETF draft (-06)"), "Stripe"],
  [
    [t("same key, done"), t("SHOULD replay"), t("replays status + body, a 500 too (v1)")],
    [t("other body"), t("SHOULD answer 422"), t("errors: parameters differ")],
    [t("still running"), t("SHOULD answer 409"), t("saves nothing; retry later")],
    [t("lifetime"), t("SHOULD publish it"), t("may prune after ≥ 24 h")],
    [t("key form"), t("sf-string, quoted"), t("bare, ≤ 255 characters")],
  ],
);

// openai/codex's TUI ("Use a reset"): one UUID on confirm (usage.rs), reused by "Try again";
// account.rs: "Identifies one logical reset attempt. A UUID is recommended; reuse the same value
// when retrying that attempt." `AlreadyRedeemed` counts as success; the test
// `rate_limit_reset_retry_reuses_idempotency_key` asserts the key survives an Err("response lost").
// jsonrpc_lite.rs (@ 47cb26a5): "We do not do true JSON-RPC 2.0".
trace.section(t("7 · Codex's rate-limit reset: a request id per send, one key per reset attempt"));
trace.prose(
  t(`Codex's TUI can spend one of your rate-limit reset credits, which lifts a usage limit you
  have reached; two spent for one click would waste one. Each send is a request of the app-server
  protocol, a JSON-RPC-style message with its own id
  (codex-rs/app-server-protocol/src/jsonrpc_lite.rs); the id pairs an answer with one transmission.
  The Idempotency-Key is made once, on confirm, and names the logical reset attempt. Here the agent
  does the same over HTTP: a new x-request-id per send, one key.`),
);
const codexTracker = { ...on("codex", "keyed", "lose-response"), leaseMs: undefined };
const codex = await withTracker(trace, codexTracker, async (tracker) => {
  const key = uuid(random); // on confirm: one logical reset attempt
  const labels = [t("confirm"), t("Try again")];
  const rows = await sendUntilAnswered(trace, tracker.url, key, labels, TIMEOUT_MS);
  return { rows, reports: tracker.store.countReports() };
});
trace.table([t("request id"), t("idempotency key"), t("outcome")], codex.rows);
trace.count(codex.reports, 1);
measured(t("Codex: new request id, same key"), codex.reports);

// Every number below was counted in this run's SQLite files.
trace.section(t("Lesson 04, as measured in this run"));
trace.table([t("case"), t("reports"), t("one logical call should leave")], summary);
trace.prose(
  t(
    `Key per logical operation, reused on every retry; key and side effect in one transaction;
  replay, 409, 422, a published TTL. Next, lesson 05: what a lease cannot promise. Exercises
  04a-04c: npm run check 4. (This run took {ms} ms, tracker processes included.)`,
    { ms: String(Math.round(performance.now() - started)) },
  ),
);

scratch.remove();
