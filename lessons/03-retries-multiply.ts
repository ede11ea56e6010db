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
import {
  AWS_RETRIES_2026,
  AWS_STANDARD_QUOTA,
  RetryQuota,
  retryCostAfter,
} from "../lib/client/token-bucket.ts";
import { lessonSetup } from "../lib/core/cli.ts";
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
trace.prose(`Lesson 01 asked whether a retry is safe. This one asks how many requests a retry really
  is. Every count below is read from a counter in the server that receives the traffic. Time runs at
  1/${1 / TIME_SCALE}: a wait printed as "1.00 s [10.0 ms]" is a real client's 1 s, slept here for
  10 ms.`);

// Five node:http services in a chain, each calling the next with its own retry loop, in front of a
// database that answers 503 to everything (lib/overload/layers.ts).
trace.section("Five layers, three tries each");
trace.prose(`"Consider a system where the customer's call causes a five-deep stack of service calls.
  It ends with a query to a database, and three retries at each layer." (Amazon Builders' Library,
  "Timeouts, retries, and backoff with jitter".) Each layer here retries at once, with no backoff:
  backoff changes when the retries land, not how many there are.`);
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
trace.table(
  ["hop", "every layer: 3 tries", "only layer 1 retries", "every layer: 4 tries"],
  ["layer 1", "layer 2", "layer 3", "layer 4", "layer 5", "database"].map((name, i) => [
    name,
    String(everyLayer[i]),
    String(onePoint[i]),
    String(fourTries[i]),
  ]),
);
const [dbEvery, dbOne, dbFour] = [everyLayer.at(-1)!, onePoint.at(-1)!, fourTries.at(-1)!];
trace.prose(`One user call, and the overloaded database received ${dbEvery} requests: the article's
  "243x". "If each layer retries independently, the load on the database will increase 243x, making
  it unlikely to ever recover." Retrying at one point only (layer 1 here; every other layer passes
  the failure up at once) brought it down to ${dbOne}: "our best practice is to retry at a single
  point in the stack." A note on the words: the article says "three retries at each layer", but 243
  = 3^5 counts three tries per layer (the first attempt and two retries); three retries would be
  four tries, ${dbFour} requests at the database for one call (the last column).`);

// The model layer ("call the tool again") would come on top of these two. The server records the
// headers each request carried.
trace.section("The test agent's stack: a harness loop around an SDK");
trace.prose(`The SDK-like layer has the defaults of anthropic-sdk-python: ${SDK_MAX_RETRIES}
  retries; it retries 408, 409, 429, every 5xx and connection errors; it waits min(0.5 s × 2^k, 8 s)
  × (1 − 0.25 r) for retry k+1, or the server's retry-after-ms / retry-after when that is between 0
  and 60 s; "x-should-retry: true|false" overrides it all. The harness calls the SDK up to 4 times,
  pausing 1 s between.`);
const stack = await harnessAgainst(overloaded, {
  attempts: 4,
  pauseMs: 1000,
  random,
  timeScale: TIME_SCALE,
  ...sdkLog(trace, TIME_SCALE),
});
trace.event("server", stackCountText(stack), "warn");
trace.prose(`${stack.harnessAttempts} harness attempts × ${stack.perCall} SDK requests =
  ${stack.requests} HTTP requests, counted at the server, before the model adds its own "let me try
  that again". Note what the SDK retried: a POST, which RFC 9110 §9.2.2 says a client SHOULD NOT
  retry on its own, with no Idempotency-Key. The Stainless-generated SDKs build a
  "stainless-python-retry-<uuid>" value but never set a header name for it, so no key is sent; what
  is sent is x-stainless-retry-count. For a model call that costs money, not a duplicate; for a tool
  call that files a bug report, it is the duplicate of lesson 01, times twelve.`);

// The course page's rules (each layer retries 2 times; 3 × 3 = 9 requests for a 503 with
// Retry-After, 3 without), then upstream's defaults, against a server that answers 503 to all.
trace.section("Codex: the page's 3 × 3, and upstream's defaults");
trace.prose(`Codex (OpenAI's coding agent) retries in two layers. The HTTP layer resends one HTTP
  request. Above it sits the sampling layer: one "sampling request" asks the model for its next
  answer and reads it as a stream; when that fails (the HTTP layer gave up, or the stream broke),
  the sampling layer waits and sends the whole model request again. The course page says each layer
  retries 2 times.`);

async function codexAgainst503(rules: CodexRules, retryAfter: boolean) {
  const reply: Reply = retryAfter ? { ...overloaded, headers: { "retry-after": "1" } } : overloaded;
  const carries = retryAfter ? " with Retry-After: 1" : ", no Retry-After";
  trace.event("lesson", `${rules.name}; every answer is 503${carries}`);
  const log = codexLog(trace, TIME_SCALE);
  const run = await codexAgainst(rules, reply, { random, timeScale: TIME_SCALE, ...log });
  return { ...run, honoured: log.honoured() };
}

const courseWithRA = await codexAgainst503(COURSE_CODEX, true);
trace.event("server", `received ${courseWithRA.requests} requests`, "warn");
const courseNoRA = await codexAgainst503(COURSE_CODEX, false);
trace.event("server", `received ${courseNoRA.requests} requests`, "warn");
trace.prose(`That is the page's arithmetic, run: ${courseWithRA.requests} requests with Retry-After,
  ${courseNoRA.requests} without. But openai/codex's own code says otherwise for upstream's
  defaults: DEFAULT_REQUEST_MAX_RETRIES = 4 (5 HTTP attempts) and DEFAULT_STREAM_MAX_RETRIES = 5 (6
  sampling attempts), and the HTTP layer (codex-client/src/retry.rs) never reads Retry-After: it
  sleeps 200 ms × 2^(n−1) × U[0.9, 1.1). Some forks have 2 retries and parse Retry-After; upstream
  does not. Here are upstream's rules against the same 503 with Retry-After: 1.`);
const upstream = await codexAgainst503(UPSTREAM_CODEX, true);
trace.event(
  "server",
  `received ${upstream.requests} requests; Retry-After honoured ${upstream.honoured} times`,
  "warn",
);
const codexRuns = [
  ["course page", "Retry-After: 1", courseWithRA],
  ["course page", "no Retry-After", courseNoRA],
  ["upstream defaults", "Retry-After: 1", upstream],
] as const;
trace.table(
  [
    "Codex rules",
    "503 answers carry",
    "sampling attempts",
    "Retry-After honoured",
    "requests at the server",
  ],
  codexRuns.map(([rules, carry, r]) => [
    rules,
    carry,
    String(r.samplingAttempts),
    String(r.honoured),
    String(r.requests),
  ]),
);
// codex-rs/core/src/session/turn.rs: `report_error = retries > 1 || cfg!(debug_assertions) ||
// !responses_websocket_enabled()`, and on a fall-back from WebSocket to HTTPS `retries = 0;
// continue;`.
trace.prose(`${upstream.samplingAttempts} sampling attempts and about ${upstream.requests} requests
  is the bound for Codex talking to the model over HTTPS. Codex can also use a WebSocket; when it
  falls back from the WebSocket to HTTPS it resets the sampling layer's count, and the retries start
  again. Nor does the user always see them: the "Reconnecting… n/m" notice appears only from the
  second retry on, in a debug build, or when the WebSocket transport is off (openai/codex,
  codex-rs/core/src/session/turn.rs).`);

// An outage in rounds (lib/overload/outage.ts): each round 20 calls start together, each allowed 3
// attempts (the AWS SDKs' standard mode). Played twice from the same seed: without a budget, and
// with a shared token bucket that must pay for every retry.
trace.section("A retry budget: a token bucket in front of a server coming back");
const q = AWS_STANDARD_QUOTA;
const [cost503, cost429] = [retryCostAfter(503)!, retryCostAfter(429)!];
trace.prose(`The bucket has the standard-mode constants of the AWS SDK for JavaScript v3
  (smithy-typescript, util-retry): ${q.capacity} tokens; a retry after a transient error (500, 502,
  503, 504, a timeout, a reset connection) costs ${q.transientRetryCost}, after a throttling error
  (429) ${q.retryCost}. Every failure here is a 503: each retry costs ${cost503}. A success pays
  back what its last retry cost, or ${q.noRetryIncrement} when it needed no retry (recordSuccess in
  StandardRetryStrategy.ts); an empty bucket means no retry: the call fails at once.¹ The backend, a
  toy model of a metastable failure, takes 30 requests a round and stays down while it gets more.`);
const outage = { capacity: 30, callsPerRound: 20, outageRounds: 5, afterRounds: 5 };
const play = { ...outage, timeScale: TIME_SCALE };
const noBudget = await playOutage({ ...play, random: seeded(seed + 1) });
const budget = await playOutage({ ...play, quota: new RetryQuota(), random: seeded(seed + 1) });
const rounds = outageRoundsTable(noBudget, budget);
trace.table(rounds.header, rounds.rows);
const totals = outageTotalsTable(noBudget, budget);
trace.table(totals.header, totals.rows);
trace.prose(`"Retries are 'selfish.' In other words, when a client retries, it spends more of the
  server's time to get a higher chance of success." Together the calls' retries tripled the load on
  a server that was down and, after the fix, kept it swamped: without the budget it never came back.
  With the bucket, retries flowed while it had tokens, then stopped; the load fell to one request
  per call, and the server recovered in the first round after the fix. The article: "This allows all
  calls to retry as long as there are tokens, and then retry at a fixed rate when the tokens are
  exhausted. AWS added this behavior to the AWS SDK in 2016." That rate is set by the refunds: a 503
  retry costs ${cost503} tokens, a plain success pays back ${q.noRetryIncrement}, so once drained,
  about one retry per ${cost503 / q.noRetryIncrement} successes (one per
  ${cost429 / q.noRetryIncrement} for throttling errors). botocore, the Python SDK, charges 5 for a
  503 and 10 only for a connect or read timeout (botocore/retries/standard.py).`);
const r26 = AWS_RETRIES_2026;
trace.prose(`¹ The constants before November 2026. AWS announced new retry defaults in May 2026
  (opt-in first, the default from 10 November 2026: AWS Developer Tools blog, "Announcing updated
  retry behavior for AWS SDKs and Tools"; smithy-typescript retries-2026-config.ts): base delay
  ${r26.baseDelayMs} ms, throttling base ${r26.throttlingBaseDelayMs} ms, ${r26.retryCost} tokens
  for a non-throttling retry, ${r26.throttlingRetryCost} for a throttling one.`);

// Codex, as the course tells it, splits the 429s: a quota 429 ends at once, other 429s are retried
// only with Retry-After, and a 503 with Retry-After waits as asked; the SDK-like layer has its own
// rules. Both clocks are pinned to one instant, so an HTTP-date gives the same wait on every run.
trace.section("429 and Retry-After, case by case");
trace.prose(`RFC 9110 §10.2.3: "Servers send the "Retry-After" header field to indicate how long the
  user agent ought to wait before making a follow-up request", as delay-seconds or an HTTP-date;
  with a 503 it says how long the service is expected to be unavailable. 429 is not in RFC 9110: it
  is RFC 6585 §4, "the user has sent too many requests in a given amount of time", and it MAY
  include Retry-After.`);
const PINNED = Date.UTC(2026, 0, 15, 9, 0, 0);
const [inThree, past] = [formatHttpDate(PINNED + 3_000), formatHttpDate(PINNED - 5_000)];
const cases: [string, Reply, "codex" | "sdk"][] = [
  ["quota 429", { status: 429, body: { error: { type: "usage_limit_reached" } } }, "codex"],
  ["429 + Retry-After", { status: 429, headers: { "retry-after": "2" } }, "codex"],
  ["429 bare", { status: 429 }, "codex"],
  ["503 + Retry-After", { status: 503, headers: { "retry-after": "1" } }, "codex"],
  ["429 + HTTP-date", { status: 429, headers: { "retry-after": inThree } }, "codex"],
  ["SDK: 429 bare", { status: 429 }, "sdk"],
  ["SDK: 429, 120 s", { status: 429, headers: { "retry-after": "120" } }, "sdk"],
  ["SDK: past date", { status: 503, headers: { "retry-after": past } }, "sdk"],
  ["SDK: x-should-retry", { status: 503, headers: { "x-should-retry": "false" } }, "sdk"],
];
const caseRows: string[][] = [];
for (const [label, first, policy] of cases) {
  const options = { random, now: () => PINNED, timeScale: TIME_SCALE };
  const one = firstAnswerCase(
    label,
    first,
    policy,
    await againstFirstAnswer(first, policy, options),
    TIME_SCALE,
  );
  trace.event("server", one.line, one.ok ? "ok" : "bad");
  caseRows.push(one.row);
}
trace.table(["case", "policy", "requests", "waited: real [slept]", "ends"], caseRows);
trace.prose(`A quota 429 is not "slow down" but "you are out": no wait will help, so it ends at
  once. A 429 with Retry-After is an instruction; without one, the course's Codex gives up where the
  SDK backs off and tries again. The SDK takes a server's delay only in (0, 60 s]: 120 s, or a date
  already past, falls back to its own backoff (anthropic-sdk-python; other SDKs differ:
  openai-python honours up to 120 s and does not retry above that: openai-python 3.3.1,
  _constants.py, MAX_RETRY_AFTER_DELAY = 2 * 60). And x-should-retry, a vendor header, overrides the
  status: the 503 was not retried.`);

trace.section("How many requests one call became, as measured in this run");
trace.table(
  ["stack", "requests at the server"],
  [
    ["5 layers × 3 tries", String(dbEvery)],
    ["retry at one point", String(dbOne)],
    ["harness 4 × SDK 3", String(stack.requests)],
    ["Codex, course, Retry-After", String(courseWithRA.requests)],
    ["Codex, course, none", String(courseNoRA.requests)],
    ["Codex, upstream defaults", String(upstream.requests)],
    ["outage, no budget", String(totalArrivals(noBudget))],
    ["outage, token bucket", String(totalArrivals(budget))],
  ],
);
trace.prose(`Retry at one layer, budget the retries, and honour the server's Retry-After. And every
  one of these requests was a POST: whether resending it is safe is lesson 04's question
  (idempotency keys). Exercises 03a (the token bucket) and 03b (the SDK's retry rules): npm run
  check 3.`);
