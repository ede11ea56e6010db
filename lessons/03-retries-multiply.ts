/**
 * @title How many times: retries multiply across layers
 * @summary Every layer that retries on its own multiplies the load; retry at one point, budget the
 *   retries, and read Retry-After.
 * @run npm run lesson 3
 * @exercise 03a
 * @exercise 03b
 * @resource Amazon Builders' Library, "Timeouts, retries, and backoff with jitter" (Marc Brooker),
 *   section "Retries and backoff"
 * @resource anthropic-sdk-python `src/anthropic/_base_client.py` (`_should_retry`,
 *   `_calculate_retry_timeout`, `_parse_retry_after_header`) and `_constants.py`
 * @resource openai/codex `codex-rs/codex-client/src/retry.rs` and
 *   `codex-rs/model-provider-info/src/lib.rs`
 * @resource smithy-lang/smithy-typescript `packages/core/src/submodules/retry/util-retry/` (AWS SDK
 *   standard retry mode)
 * @resource RFC 9110 §10.2.3 Retry-After:
 *   https://www.rfc-editor.org/rfc/rfc9110.html#section-10.2.3
 * @resource RFC 6585 §4 429 Too Many Requests:
 *   https://www.rfc-editor.org/rfc/rfc6585.html#section-4
 *
 * What you will see: real `node:http` services on loopback, stacked the way retries stack in real
 * systems, in front of servers that fail on purpose and count every request they receive. Five
 * layers of three tries turn one call into 243 requests; a test agent's harness around an LLM SDK
 * turns one into 12; Codex's two layers turn one into 9 as the course tells it and 30 as upstream
 * has it over HTTPS (a fall-back from WebSocket to HTTPS starts the count again). Then a retry
 * budget (a token bucket) lets a server come back that retries kept down, and the rules for 429
 * and Retry-After, played one case at a time.
 */
import { COURSE_CODEX, type CodexRules, UPSTREAM_CODEX } from "../lib/client/codex-retry.ts";
import { codexLog, sdkLog } from "../lib/client/narrate.ts";
import { formatHttpDate } from "../lib/client/retry-after.ts";
import { SDK_MAX_RETRIES } from "../lib/client/sdk-retry.ts";
import { quotaFacts, RetryQuota, retries2026Facts } from "../lib/client/token-bucket.ts";
import { lessonSetup } from "../lib/core/cli.ts";
import { t } from "../lib/core/i18n.ts";
import { seeded } from "../lib/core/random.ts";
import type { Reply } from "../lib/overload/counting-server.ts";
import { oneCallText, oneCallThrough } from "../lib/overload/layers.ts";
import {
  outageRoundsTable,
  outageTotalsTable,
  playOutage,
  totalArrivals,
} from "../lib/overload/outage.ts";
import {
  againstFirstAnswer,
  codexAgainst,
  codexRunsTable,
  firstAnswerCase,
  harnessAgainst,
  stackCountText,
} from "../lib/overload/retry-stacks.ts";

const { trace, seed, heading } = lessonSetup(import.meta);
const random = seeded(seed);

// Real clients wait seconds between retries; here every wait is slept at 1/100 of its real length,
// so the chapter runs in about two seconds. Counts do not depend on the scale: they are read from
// the servers' counters.
const TIME_SCALE = 1 / 100;
const overloaded: Reply = { status: 503, body: { error: { type: "overloaded_error" } } };

trace.title(heading);
trace.prose(
  t(
    `Lesson 01 asked whether a retry is safe. This one asks how many requests a retry really is.
    Every count below is read from a counter in the server that receives the traffic. Time runs at
    1/{scale}: a wait printed as "1.00 s [10.0 ms]" is a real client's 1 s, slept here for 10 ms.`,
    { scale: 1 / TIME_SCALE },
  ),
);

// Five node:http services in a chain, each calling the next with its own retry loop, in front of a
// database that answers 503 to everything (lib/overload/layers.ts).
trace.section(t("Five layers, three tries each"));
trace.prose(
  t(`"Consider a system where the customer's call causes a five-deep stack of service calls. It
  ends with a query to a database, and three retries at each layer." (Amazon Builders' Library,
  "Timeouts, retries, and backoff with jitter".) Each layer here retries at once, with no backoff:
  backoff changes when the retries land, not how many there are.`),
);
const received: number[][] = [];
for (const tries of [
  [3, 3, 3, 3, 3],
  [3, 1, 1, 1, 1],
  [4, 4, 4, 4, 4],
]) {
  const call = await oneCallThrough(tries);
  trace.event("agent", oneCallText(tries, call.outcome), "bad");
  received.push(call.received);
}
const [everyLayer, onePoint, fourTries] = received as [number[], number[], number[]];
const hops = [1, 2, 3, 4, 5].map((n) => t("layer {n}", { n }));
trace.table(
  [t("hop"), t("every layer: 3 tries"), t("only layer 1 retries"), t("every layer: 4 tries")],
  [...hops, t("database")].map((name, i) => [
    name,
    String(everyLayer[i]),
    String(onePoint[i]),
    String(fourTries[i]),
  ]),
);
const [every, one, four] = [everyLayer, onePoint, fourTries].map((h) => String(h.at(-1))) as [
  string,
  string,
  string,
];
trace.prose(
  t(
    `One user call, and the overloaded database received {every} requests: the article's "243x".
    "If each layer retries independently, the load on the database will increase 243x, making it
    unlikely to ever recover." Retrying at one point only (layer 1 here; every other layer passes
    the failure up at once) brought it down to {one}: "our best practice is to retry at a single
    point in the stack." A note on the words: the article says "three retries at each layer", but
    243 = 3^5 counts three tries per layer (the first attempt and two retries); three retries would
    be four tries, {four} requests at the database for one call (the last column).`,
    { every, one, four },
  ),
);

// The model layer ("call the tool again") would come on top of these two. The server records the
// headers each request carried.
trace.section(t("The test agent's stack: a harness loop around an SDK"));
trace.prose(
  t(
    `The SDK-like layer has the defaults of anthropic-sdk-python: {retries} retries; it retries
    408, 409, 429, every 5xx and connection errors; it waits min(0.5 s × 2^k, 8 s) × (1 − 0.25 r)
    for retry k+1, or the server's retry-after-ms / retry-after when that is between 0 and 60 s;
    "x-should-retry: true|false" overrides it all. The harness calls the SDK up to 4 times, pausing
    1 s between.`,
    { retries: SDK_MAX_RETRIES },
  ),
);
const stack = await harnessAgainst(overloaded, {
  attempts: 4,
  pauseMs: 1000,
  random,
  timeScale: TIME_SCALE,
  ...sdkLog(trace, TIME_SCALE),
});
trace.event("server", stackCountText(stack), "warn");
trace.prose(
  t(
    `{harnessAttempts} harness attempts × {perCall} SDK requests = {requests} HTTP requests,
    counted at the server, before the model adds its own "let me try that again". Note what the SDK
    retried: a POST, which RFC 9110 §9.2.2 says a client SHOULD NOT retry on its own, with no
    Idempotency-Key. The Stainless-generated SDKs build a "stainless-python-retry-<uuid>" value but
    never set a header name for it, so no key is sent; what is sent is x-stainless-retry-count. For
    a model call that costs money, not a duplicate; for a tool call that files a bug report, it is
    the duplicate of lesson 01, times twelve.`,
    { ...stack },
  ),
);

// The course page's rules (each layer retries 2 times; 3 × 3 = 9 requests for a 503 with
// Retry-After, 3 without), then upstream's defaults, against a server that answers 503 to all.
trace.section(t("Codex: the page's 3 × 3, and upstream's defaults"));
trace.prose(
  t(`Codex (OpenAI's coding agent) retries in two layers. The HTTP layer resends one HTTP request.
  Above it sits the sampling layer: one "sampling request" asks the model for its next answer and
  reads it as a stream; when that fails (the HTTP layer gave up, or the stream broke), the sampling
  layer waits and sends the whole model request again. The course page says each layer retries 2
  times.`),
);

async function codexAgainst503(rules: CodexRules, retryAfter: boolean) {
  const reply: Reply = retryAfter ? { ...overloaded, headers: { "retry-after": "1" } } : overloaded;
  const rule = rules.name;
  trace.event(
    "lesson",
    retryAfter
      ? t("{rule}; every answer is 503 with Retry-After: 1", { rule })
      : t("{rule}; every answer is 503, no Retry-After", { rule }),
  );
  const log = codexLog(trace, TIME_SCALE);
  const run = await codexAgainst(rules, reply, { random, timeScale: TIME_SCALE, ...log });
  return { ...run, honoured: log.honoured() };
}

const withRA = await codexAgainst503(COURSE_CODEX, true);
trace.event("server", t("received {requests} requests", withRA), "warn");
const noRA = await codexAgainst503(COURSE_CODEX, false);
trace.event("server", t("received {requests} requests", noRA), "warn");
trace.prose(
  t(
    `That is the page's arithmetic, run: {with} requests with Retry-After, {without} without. But
    openai/codex's own code says otherwise for upstream's defaults: DEFAULT_REQUEST_MAX_RETRIES = 4
    (5 HTTP attempts) and DEFAULT_STREAM_MAX_RETRIES = 5 (6 sampling attempts), and the HTTP layer
    (codex-client/src/retry.rs) never reads Retry-After: it sleeps 200 ms × 2^(n−1) × U[0.9, 1.1).
    Some forks have 2 retries and parse Retry-After; upstream does not. Here are upstream's rules
    against the same 503 with Retry-After: 1.`,
    { with: withRA.requests, without: noRA.requests },
  ),
);
const upstream = await codexAgainst503(UPSTREAM_CODEX, true);
trace.event(
  "server",
  t("received {requests} requests; Retry-After honoured {honoured} times", upstream),
  "warn",
);
const codexRows = codexRunsTable([
  { rules: t("course page"), carry: "Retry-After: 1", ...withRA },
  { rules: t("course page"), carry: t("no Retry-After"), ...noRA },
  { rules: t("upstream defaults"), carry: "Retry-After: 1", ...upstream },
]);
trace.table(codexRows.header, codexRows.rows);
// codex-rs/core/src/session/turn.rs: `report_error = retries > 1 || cfg!(debug_assertions) ||
// !responses_websocket_enabled()`, and on a fall-back from WebSocket to HTTPS `retries = 0;
// continue;`.
trace.prose(
  t(
    `{samplingAttempts} sampling attempts and about {requests} requests is the bound for Codex
    talking to the model over HTTPS. Codex can also use a WebSocket; when it falls back from the
    WebSocket to HTTPS it resets the sampling layer's count, and the retries start again. Nor does
    the user always see them: the "Reconnecting… n/m" notice appears only from the second retry on,
    in a debug build, or when the WebSocket transport is off (openai/codex,
    codex-rs/core/src/session/turn.rs).`,
    upstream,
  ),
);

// An outage in rounds (lib/overload/outage.ts): each round 20 calls start together, each allowed 3
// attempts (the AWS SDKs' standard mode). Played twice from the same seed: without a budget, and
// with a shared token bucket that must pay for every retry.
trace.section(t("A retry budget: a token bucket in front of a server coming back"));
const bucket = quotaFacts();
trace.prose(
  t(
    `The bucket has the standard-mode constants of the AWS SDK for JavaScript v3 (smithy-typescript,
    util-retry): {capacity} tokens; a retry after a transient error (500, 502, 503, 504, a timeout,
    a reset connection) costs {transient}, after a throttling error (429) {throttling}. Every
    failure here is a 503: each retry costs {cost503}. A success pays back what its last retry
    cost, or {back} when it needed no retry (recordSuccess in StandardRetryStrategy.ts); an empty
    bucket means no retry: the call fails at once.¹ The backend, a toy model of a metastable
    failure, takes 30 requests a round and stays down while it gets more.`,
    bucket,
  ),
);
const outage = { capacity: 30, callsPerRound: 20, outageRounds: 5, afterRounds: 5 };
const play = { ...outage, timeScale: TIME_SCALE };
const noBudget = await playOutage({ ...play, random: seeded(seed + 1) });
const budget = await playOutage({ ...play, quota: new RetryQuota(), random: seeded(seed + 1) });
const rounds = outageRoundsTable(noBudget, budget);
trace.table(rounds.header, rounds.rows);
const totals = outageTotalsTable(noBudget, budget);
trace.table(totals.header, totals.rows);
trace.prose(
  t(
    `"Retries are 'selfish.' In other words, when a client retries, it spends more of the server's
    time to get a higher chance of success." Together the calls' retries tripled the load on a
    server that was down and, after the fix, kept it swamped: without the budget it never came
    back. With the bucket, retries flowed while it had tokens, then stopped; the load fell to one
    request per call, and the server recovered in the first round after the fix. The article: "This
    allows all calls to retry as long as there are tokens, and then retry at a fixed rate when the
    tokens are exhausted. AWS added this behavior to the AWS SDK in 2016." That rate is set by the
    refunds: a 503 retry costs {cost503} tokens, a plain success pays back {back}, so once drained,
    about one retry per {per503} successes (one per {per429} for throttling errors). botocore, the
    Python SDK, charges 5 for a 503 and 10 only for a connect or read timeout
    (botocore/retries/standard.py).`,
    bucket,
  ),
);
trace.prose(
  t(
    `¹ The constants before November 2026. AWS announced new retry defaults in May 2026 (opt-in
    first, the default from 10 November 2026: AWS Developer Tools blog, "Announcing updated retry
    behavior for AWS SDKs and Tools"; smithy-typescript retries-2026-config.ts): base delay {base}
    ms, throttling base {throttlingBase} ms, {cost} tokens for a non-throttling retry, {throttling}
    for a throttling one.`,
    retries2026Facts(),
  ),
);

// Codex, as the course tells it, splits the 429s: a quota 429 ends at once, other 429s are retried
// only with Retry-After, and a 503 with Retry-After waits as asked; the SDK-like layer has its own
// rules. Both clocks are pinned to one instant, so an HTTP-date gives the same wait on every run.
trace.section(t("429 and Retry-After, case by case"));
trace.prose(
  t(`RFC 9110 §10.2.3: "Servers send the "Retry-After" header field to indicate how long the user
  agent ought to wait before making a follow-up request", as delay-seconds or an HTTP-date; with a
  503 it says how long the service is expected to be unavailable. 429 is not in RFC 9110: it is RFC
  6585 §4, "the user has sent too many requests in a given amount of time", and it MAY include
  Retry-After.`),
);
const PINNED = Date.UTC(2026, 0, 15, 9, 0, 0);
const [inThree, past] = [formatHttpDate(PINNED + 3_000), formatHttpDate(PINNED - 5_000)];
const cases: [string, Reply, "codex" | "sdk"][] = [
  [t("quota 429"), { status: 429, body: { error: { type: "usage_limit_reached" } } }, "codex"],
  [t("429 + Retry-After"), { status: 429, headers: { "retry-after": "2" } }, "codex"],
  [t("429 bare"), { status: 429 }, "codex"],
  [t("503 + Retry-After"), { status: 503, headers: { "retry-after": "1" } }, "codex"],
  [t("429 + HTTP-date"), { status: 429, headers: { "retry-after": inThree } }, "codex"],
  [t("SDK: 429 bare"), { status: 429 }, "sdk"],
  [t("SDK: 429, 120 s"), { status: 429, headers: { "retry-after": "120" } }, "sdk"],
  [t("SDK: past date"), { status: 503, headers: { "retry-after": past } }, "sdk"],
  [t("SDK: x-should-retry"), { status: 503, headers: { "x-should-retry": "false" } }, "sdk"],
];
const caseRows: string[][] = [];
for (const [label, first, policy] of cases) {
  const options = { random, now: () => PINNED, timeScale: TIME_SCALE };
  const run = await againstFirstAnswer(first, policy, options);
  const one = firstAnswerCase(label, first, policy, run, TIME_SCALE);
  trace.event("server", one.line, one.ok ? "ok" : "bad");
  caseRows.push(one.row);
}
trace.table(
  [t("case"), t("policy"), t("requests"), t("waited: real [slept]"), t("ends")],
  caseRows,
);
trace.prose(
  t(`A quota 429 is not "slow down" but "you are out": no wait will help, so it ends at once. A
  429 with Retry-After is an instruction; without one, the course's Codex gives up where the SDK
  backs off and tries again. The SDK takes a server's delay only in (0, 60 s]: 120 s, or a date
  already past, falls back to its own backoff (anthropic-sdk-python; other SDKs differ:
  openai-python honours up to 120 s and does not retry above that: openai-python 3.3.1,
  _constants.py, MAX_RETRY_AFTER_DELAY = 2 * 60). And x-should-retry, a vendor header, overrides
  the status: the 503 was not retried.`),
);

trace.section(t("How many requests one call became, as measured in this run"));
trace.table(
  [t("stack"), t("requests at the server")],
  [
    [t("5 layers × 3 tries"), every],
    [t("retry at one point"), one],
    [t("harness 4 × SDK 3"), String(stack.requests)],
    [t("Codex, course, Retry-After"), String(withRA.requests)],
    [t("Codex, course, none"), String(noRA.requests)],
    [t("Codex, upstream defaults"), String(upstream.requests)],
    [t("outage, no budget"), String(totalArrivals(noBudget))],
    [t("outage, token bucket"), String(totalArrivals(budget))],
  ],
);
trace.prose(
  t(`Retry at one layer, budget the retries, and honour the server's Retry-After. And every one of
  these requests was a POST: whether resending it is safe is lesson 04's question (idempotency
  keys). Exercises 03a (the token bucket) and 03b (the SDK's retry rules): npm run check 3.`),
);
