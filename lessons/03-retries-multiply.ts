/**
 * @title How many times: retries multiply across layers
 * @summary Every layer that retries on its own multiplies the load; retry at one point, budget the retries, and read Retry-After.
 * @run npm run lesson 3
 * @exercise 03a
 * @exercise 03b
 * @resource Amazon Builders' Library, "Timeouts, retries, and backoff with jitter" (Marc Brooker), section "Retries and backoff"
 * @resource anthropic-sdk-python `src/anthropic/_base_client.py` (`_should_retry`, `_calculate_retry_timeout`, `_parse_retry_after_header`) and `_constants.py`
 * @resource openai/codex `codex-rs/codex-client/src/retry.rs` and `codex-rs/model-provider-info/src/lib.rs`
 * @resource smithy-lang/smithy-typescript `packages/core/src/submodules/retry/util-retry/` (AWS SDK standard retry mode)
 * @resource RFC 9110 §10.2.3 Retry-After: https://www.rfc-editor.org/rfc/rfc9110.html#section-10.2.3
 * @resource RFC 6585 §4 429 Too Many Requests: https://www.rfc-editor.org/rfc/rfc6585.html#section-4
 *
 * What you will see: real `node:http` services on loopback, stacked the way retries stack in real
 * systems, in front of servers that fail on purpose and count every request they receive. Five
 * layers of three tries turn one call into 243 requests; a test agent's harness around an LLM SDK
 * turns one into 12; Codex's two layers turn one into 9 as the course tells it and 30 as upstream
 * has it over HTTPS (a fall-back from WebSocket to HTTPS starts the count again). Then a retry budget (a token bucket) lets a server come back that retries kept down, and
 * the rules for 429 and Retry-After, played one case at a time.
 */
import { httpCall, type Outcome } from "../lib/client/client.ts";
import {
  COURSE_CODEX,
  type CodexRules,
  codexCall,
  UPSTREAM_CODEX,
} from "../lib/client/codex-retry.ts";
import { formatHttpDate } from "../lib/client/retry-after.ts";
import type { Verdict } from "../lib/client/retry-loop.ts";
import { harnessOverSdk, SDK_MAX_RETRIES, sdkCall } from "../lib/client/sdk-retry.ts";
import {
  AWS_RETRIES_2026,
  AWS_STANDARD_QUOTA,
  RetryQuota,
  retryKindOf,
} from "../lib/client/token-bucket.ts";
import { lessonSetup } from "../lib/core/cli.ts";
import { seeded } from "../lib/core/random.ts";
import { type Reply, startCountingServer } from "../lib/overload/counting-server.ts";
import { startLayerStack } from "../lib/overload/layers.ts";
import { playOutage, type RoundStats } from "../lib/overload/outage.ts";

const { trace, seed, heading } = lessonSetup(import.meta);
const random = seeded(seed);

// Real clients wait seconds between retries; here every wait is slept at 1/100 of its real length, so
// the chapter runs in about two seconds. The trace prints the real value and, in brackets, what was
// slept. Counts do not depend on the scale: they are read from the servers' counters.
const TIME_SCALE = 1 / 100;
const wait = (realMs: number): string =>
  `${(realMs / 1000).toFixed(2)} s [${(realMs * TIME_SCALE).toFixed(1)} ms]`;
const status = (o: Outcome): string => (o.kind === "response" ? String(o.status) : o.kind);
const overloaded: Reply = { status: 503, body: { error: { type: "overloaded_error" } } };

trace.title(heading);
trace.prose(`Lesson 01 asked whether a retry is safe. This one asks how many requests a retry really is. Every
  count below is read from a counter in the server that receives the traffic. Time runs at 1/${1 / TIME_SCALE}:
  a wait printed as "1.00 s [10.0 ms]" is a real client's 1 s, slept here for 10 ms.`);

// ## Five layers, three tries each
// The Builders' Library's example: a user's call goes through five services before it reaches a
// database, and each service retries on its own. We build it: five node:http services in a chain, each
// calling the next with up to 3 tries, in front of a database that is overloaded and answers 503 to
// everything. One call goes in at the top; the servers count what reaches them.
trace.section("Five layers, three tries each");
trace.prose(`"Consider a system where the customer's call causes a five-deep stack of service calls. It ends with a
  query to a database, and three retries at each layer." (Amazon Builders' Library, "Timeouts, retries, and
  backoff with jitter".) Each layer here retries at once, with no backoff: backoff changes when the retries
  land, not how many there are.`);

async function oneUserCall(triesPerLayer: number[]): Promise<number[]> {
  const stack = await startLayerStack({ triesPerLayer });
  try {
    const o = await httpCall({ method: "POST", url: stack.url, body: {}, timeoutMs: 30_000 });
    trace.event(
      "agent",
      `one call to layer 1 (tries per layer: ${triesPerLayer.join(", ")}) ← ${status(o)}`,
      "bad",
    );
    return stack.hops.map((h) => h.received);
  } finally {
    await stack.close();
  }
}

const everyLayer = await oneUserCall([3, 3, 3, 3, 3]);
const onePoint = await oneUserCall([3, 1, 1, 1, 1]);
const fourTries = await oneUserCall([4, 4, 4, 4, 4]);
const hopNames = ["layer 1", "layer 2", "layer 3", "layer 4", "layer 5", "database"];
trace.table(
  ["hop", "every layer: 3 tries", "only layer 1 retries", "every layer: 4 tries"],
  hopNames.map((name, i) => [
    name,
    String(everyLayer[i]),
    String(onePoint[i]),
    String(fourTries[i]),
  ]),
);
const dbEvery = everyLayer.at(-1)!;
const dbOne = onePoint.at(-1)!;
const dbFour = fourTries.at(-1)!;
trace.prose(`One user call, and the overloaded database received ${dbEvery} requests: the article's "243x". "If
  each layer retries independently, the load on the database will increase 243x, making it unlikely to ever
  recover." Retrying at one point of the stack only (layer 1 here, every other layer passes the failure up
  at once) brought it down to ${dbOne}. "In general, for low-cost control-plane and data-plane operations, our
  best practice is to retry at a single point in the stack."`);
trace.prose(`A note on the words: the article says "three retries at each layer", but 243 = 3^5 counts three
  tries per layer (the first attempt and two retries). Three retries would be four tries, and the last column
  shows what that does: ${dbFour} requests at the database for one call.`);

// ## The test agent's stack
// The layers that stack most easily in a test agent: the LLM SDK retries on its own (2 retries by
// default), and the harness wraps the SDK call in its own loop (here 4 attempts). The model layer
// ("call the tool again") would come on top. The server answers 503 to everything and records the
// headers each request carried.
trace.section("The test agent's stack: a harness loop around an SDK");
trace.prose(`The SDK-like layer has the defaults of anthropic-sdk-python: ${SDK_MAX_RETRIES} retries; it retries 408, 409,
  429, every 5xx and connection errors; it waits min(0.5 s × 2^k, 8 s) × (1 − 0.25 r) for retry k+1, or the
  server's retry-after-ms / retry-after when that is between 0 and 60 s; "x-should-retry: true|false"
  overrides it all. The harness calls the SDK up to 4 times, pausing 1 s between.`);

const api = await startCountingServer(() => overloaded);
let stackCall;
try {
  stackCall = await harnessOverSdk(
    {
      attempts: 4,
      pauseMs: 1000,
      onAttempt: (n) => trace.event("harness", `attempt ${n}: call the SDK`),
    },
    {
      url: `${api.url}/v1/messages`,
      body: { model: "m", messages: [{ role: "user", content: "file this bug report" }] },
      timeoutMs: 5_000,
      random,
      timeScale: TIME_SCALE,
      onRequest: (n, o) => {
        const h = api.received.at(-1)!.headers;
        const key =
          h["idempotency-key"] === undefined
            ? "no Idempotency-Key"
            : `Idempotency-Key ${h["idempotency-key"]}`;
        trace.event(
          "agent",
          `SDK request ${n}: POST /v1/messages (x-stainless-retry-count: ${h["x-stainless-retry-count"]}, ${key}) ← ${status(o)}`,
          "bad",
        );
      },
      onWait: (_n, v) => trace.event("agent", `SDK waits ${wait(v.delayMs)} (${v.why})`),
    },
  );
} finally {
  await api.close();
}
const sdkRequests = api.count;
const withKey = api.received.filter((r) => r.headers["idempotency-key"] !== undefined).length;
trace.event(
  "server",
  `received ${sdkRequests} POSTs for one logical call (${stackCall.results.length} harness attempts); ${withKey} carried an Idempotency-Key`,
  "warn",
);
trace.prose(`${stackCall.results.length} harness attempts × ${stackCall.results[0]!.results.length} SDK requests = ${sdkRequests} HTTP requests, counted at the server,
  before the model adds its own "let me try that again". Note what the SDK retried: a POST, which RFC 9110
  §9.2.2 says a client SHOULD NOT retry on its own, with no Idempotency-Key. The Stainless-generated SDKs
  build a "stainless-python-retry-<uuid>" value but never set a header name for it, so no key is sent; what
  is sent is x-stainless-retry-count. For a model call that costs money, not a duplicate; for a tool call
  that files a bug report, it is the duplicate of lesson 01, times twelve.`);

// ## Codex: two layers
// Codex has an HTTP layer that resends one request and a sampling layer that restarts the model
// request. The course page says each retries 2 times and a 503 with Retry-After costs 3 × 3 = 9
// requests (3 without it). We run those rules, then upstream's defaults, against a server that answers
// 503 with "Retry-After: 1" (or without it) to everything.
trace.section("Codex: the page's 3 × 3, and upstream's defaults");
trace.prose(`Codex (OpenAI's coding agent) retries in two layers. The HTTP layer resends one HTTP request. Above
  it sits the sampling layer: one "sampling request" asks the model for its next answer and reads it as a
  stream; when that fails (the HTTP layer gave up, or the stream broke), the sampling layer waits and sends
  the whole model request again. The course page says each layer retries 2 times.`);

interface CodexRun {
  requests: number;
  honoured: number;
  samplingAttempts: number;
}

async function codexAgainst503(rules: CodexRules, retryAfter: boolean): Promise<CodexRun> {
  const reply: Reply = retryAfter ? { ...overloaded, headers: { "retry-after": "1" } } : overloaded;
  const server = await startCountingServer(() => reply);
  trace.event(
    "lesson",
    `${rules.name}; every answer is 503${retryAfter ? " with Retry-After: 1" : ", no Retry-After"}`,
  );
  let honoured = 0;
  const httpWaits: string[] = [];
  let perAttempt = 0;
  try {
    const r = await codexCall(rules, {
      url: `${server.url}/v1/responses`,
      body: { model: "m", input: "file this bug report" },
      timeoutMs: 5_000,
      random,
      timeScale: TIME_SCALE,
      onRequest: () => perAttempt++,
      onWait: (layer, _s, _n, v: Extract<Verdict, { retry: true }>) => {
        if (v.why.startsWith("Retry-After")) honoured++;
        if (layer === "http") httpWaits.push(`${wait(v.delayMs)} (${v.why})`);
        else
          trace.event(
            "harness",
            `sampling layer waits ${wait(v.delayMs)} (${v.why}) and starts over`,
          );
      },
      onStop: (layer, s, why) => {
        if (layer !== "http") return;
        const waits = httpWaits.length ? `; HTTP layer waited ${httpWaits.join(", ")}` : "";
        trace.event(
          "agent",
          `sampling attempt ${s}: ${perAttempt} HTTP request(s)${waits}; HTTP layer stops: ${why}`,
          "bad",
        );
        httpWaits.length = 0;
        perAttempt = 0;
      },
    });
    return { requests: server.count, honoured, samplingAttempts: r.results.length };
  } finally {
    await server.close();
  }
}

const courseWithRA = await codexAgainst503(COURSE_CODEX, true);
trace.event("server", `received ${courseWithRA.requests} requests`, "warn");
const courseNoRA = await codexAgainst503(COURSE_CODEX, false);
trace.event("server", `received ${courseNoRA.requests} requests`, "warn");
trace.prose(`That is the page's arithmetic, run: ${courseWithRA.requests} requests with Retry-After, ${courseNoRA.requests} without. But openai/codex's own
  code says otherwise for upstream's defaults: DEFAULT_REQUEST_MAX_RETRIES = 4 (5 HTTP attempts) and
  DEFAULT_STREAM_MAX_RETRIES = 5 (6 sampling attempts), and the HTTP layer (codex-client/src/retry.rs) never
  reads Retry-After: it sleeps 200 ms × 2^(n−1) × U[0.9, 1.1). Some forks have 2 retries and parse
  Retry-After; upstream does not. Here are upstream's rules against the same 503 with Retry-After: 1.`);
const upstream = await codexAgainst503(UPSTREAM_CODEX, true);
trace.event(
  "server",
  `received ${upstream.requests} requests; Retry-After honoured ${upstream.honoured} times`,
  "warn",
);
trace.table(
  [
    "Codex rules",
    "503 answers carry",
    "sampling attempts",
    "Retry-After honoured",
    "requests at the server",
  ],
  [
    [
      "course page",
      "Retry-After: 1",
      String(courseWithRA.samplingAttempts),
      String(courseWithRA.honoured),
      String(courseWithRA.requests),
    ],
    [
      "course page",
      "no Retry-After",
      String(courseNoRA.samplingAttempts),
      String(courseNoRA.honoured),
      String(courseNoRA.requests),
    ],
    [
      "upstream defaults",
      "Retry-After: 1",
      String(upstream.samplingAttempts),
      String(upstream.honoured),
      String(upstream.requests),
    ],
  ],
);
// codex-rs/core/src/session/turn.rs: `report_error = retries > 1 || cfg!(debug_assertions) ||
// !responses_websocket_enabled()`, and on a fall-back from WebSocket to HTTPS `retries = 0; continue;`.
trace.prose(`${upstream.samplingAttempts} sampling attempts and about ${upstream.requests} requests is the bound for Codex talking to the model over
  HTTPS. Codex can also use a WebSocket; when it falls back from the WebSocket to HTTPS it resets the
  sampling layer's count, and the retries start again. Nor does the user always see them: the
  "Reconnecting… n/m" notice appears only from the second retry on, in a debug build, or when the WebSocket
  transport is off (openai/codex, codex-rs/core/src/session/turn.rs).`);

// ## A retry budget
// The article's other advice: limit retries locally with a token bucket, as the AWS SDKs do. We play
// an outage in rounds. Each round 20 calls start together, each allowed 3 attempts (the AWS SDKs'
// standard mode). The backend can take 30 requests a round. For 5 rounds something is broken and it
// fails everything; then the lesson fixes the cause, and the backend serves again, but only after a
// round that brought no more than it can take. Played twice: without a budget, and with a shared
// token bucket that must pay for every retry.
trace.section("A retry budget: a token bucket in front of a server coming back");
// The costs and the refund: smithy-typescript util-retry `constants.ts` and `StandardRetryStrategy.ts`
// (the cost by error type; `recordSuccess` refunds the last retry's cost, or NO_RETRY_INCREMENT).
const q = AWS_STANDARD_QUOTA;
const answer503: Outcome = { kind: "response", status: 503, headers: {}, body: undefined };
const answer429: Outcome = { kind: "response", status: 429, headers: {}, body: undefined };
const cost503 = new RetryQuota().acquire(retryKindOf(answer503))!;
const cost429 = new RetryQuota().acquire(retryKindOf(answer429))!;
trace.prose(`The bucket has the standard-mode constants of the AWS SDK for JavaScript v3 (smithy-typescript,
  util-retry): ${q.capacity} tokens. What a retry costs depends on what failed: a transient error (500, 502, 503, 504, a
  timeout, a reset connection) costs ${q.transientRetryCost}, a throttling error (429) ${q.retryCost}. Every failure here is a 503: each retry
  costs ${cost503}. A success pays back what its last retry cost, or ${q.noRetryIncrement} when it needed no retry (recordSuccess in
  StandardRetryStrategy.ts). An empty bucket means no retry: the call fails at once.¹ The backend is a toy
  model of a metastable failure: capacity 30 requests a round, and it stays down while it gets more than
  that.`);
const outage = {
  capacity: 30,
  callsPerRound: 20,
  outageRounds: 5,
  afterRounds: 5,
  timeScale: TIME_SCALE,
};
const noBudget = await playOutage({ ...outage, random: seeded(seed + 1) });
const quota = new RetryQuota();
const budget = await playOutage({ ...outage, quota, random: seeded(seed + 1) });
trace.table(
  [
    "round",
    "cause",
    "no budget: requests",
    "served?",
    "budget: requests",
    "served?",
    "tokens left",
  ],
  noBudget.map((r, i) => {
    const b = budget[i]!;
    return [
      String(r.round),
      r.causePresent ? "present" : "fixed",
      String(r.arrivals),
      r.served ? "yes" : "no",
      String(b.arrivals),
      b.served ? "yes" : "no",
      String(b.tokensLeft),
    ];
  }),
);
const sum = (rounds: RoundStats[], f: (r: RoundStats) => number): number =>
  rounds.reduce((a, r) => a + f(r), 0);
const during = (rounds: RoundStats[]) => rounds.filter((r) => r.causePresent);
const after = (rounds: RoundStats[]) => rounds.filter((r) => !r.causePresent);
const rate = (rounds: RoundStats[]): string => {
  const ok = sum(after(rounds), (r) => r.callsOk);
  const all = sum(after(rounds), (r) => r.calls);
  return `${ok}/${all} (${Math.round((100 * ok) / all)} %)`;
};
trace.table(
  ["measured at the backend", "without a budget", "with the token bucket"],
  [
    [
      "requests during the outage",
      String(sum(during(noBudget), (r) => r.arrivals)),
      String(sum(during(budget), (r) => r.arrivals)),
    ],
    [
      "requests after the fix",
      String(sum(after(noBudget), (r) => r.arrivals)),
      String(sum(after(budget), (r) => r.arrivals)),
    ],
    ["calls ok after the fix", rate(noBudget), rate(budget)],
  ],
);
trace.prose(`"Retries are 'selfish.' In other words, when a client retries, it spends more of the server's time to
  get a higher chance of success." Each call's retries were for itself; together they tripled the load on a
  server that was already down and, after the fix, kept it swamped: without the budget it never came back.
  With the bucket, retries flowed while it had tokens, then stopped, the load fell to one request per call,
  and the server recovered in the first round after the fix. The article: "This allows all calls to retry as
  long as there are tokens, and then retry at a fixed rate when the tokens are exhausted. AWS added this
  behavior to the AWS SDK in 2016." In the SDK that fixed rate is set by the refunds: a 503 retry costs
  ${cost503} tokens, a plain success pays back ${q.noRetryIncrement}, so once drained, about one retry per ${cost503 / q.noRetryIncrement} successes (one per
  ${cost429 / q.noRetryIncrement} for throttling errors). botocore, the Python SDK, charges differently: 5 for a 503 and 10 only for a
  connect or read timeout (botocore/retries/standard.py).`);
trace.prose(`¹ These are the standard-mode constants before November 2026. AWS announced new retry defaults in
  May 2026 (opt-in first; the default from 10 November 2026; AWS Developer Tools blog, "Announcing updated
  retry behavior for AWS SDKs and Tools", and smithy-typescript retries-2026-config.ts): base delay ${AWS_RETRIES_2026.baseDelayMs} ms,
  throttling base ${AWS_RETRIES_2026.throttlingBaseDelayMs} ms, and a non-throttling retry costs ${AWS_RETRIES_2026.retryCost} tokens (a throttling retry ${AWS_RETRIES_2026.throttlingRetryCost}).`);

// ## 429 and Retry-After
// Should a 429 be retried? It depends on which 429 and on Retry-After. Codex, as the course tells it,
// splits them: a quota 429 ends at once, other 429s are retried only with Retry-After, and a 503 with
// Retry-After waits as asked. The SDK-like layer has its own rules. Each case: a server that answers
// the first request as shown and 201 after that. Both clocks are pinned to one instant, so an
// HTTP-date gives the same wait on every run.
trace.section("429 and Retry-After, case by case");
trace.prose(`RFC 9110 §10.2.3: "Servers send the "Retry-After" header field to indicate how long the user agent ought
  to wait before making a follow-up request", as delay-seconds or an HTTP-date; with a 503 it says how long
  the service is expected to be unavailable. 429 is not in RFC 9110: it is RFC 6585 §4, "the user has sent
  too many requests in a given amount of time", and it MAY include Retry-After.`);
const PINNED = Date.UTC(2026, 0, 15, 9, 0, 0);
const now = (): number => PINNED;

interface CaseRow {
  label: string;
  policy: string;
  requests: number;
  waited: string;
  end: string;
}

async function firstAnswer(
  label: string,
  first: Reply,
  policy: "codex" | "sdk",
  sent: string,
): Promise<CaseRow> {
  const server = await startCountingServer((r) =>
    r.n === 1 ? first : { status: 201, body: { id: 1 } },
  );
  const waits: string[] = [];
  try {
    const common = {
      url: `${server.url}/v1`,
      body: {},
      timeoutMs: 5_000,
      random,
      now,
      timeScale: TIME_SCALE,
    };
    const onWait = (v: Extract<Verdict, { retry: true }>): void => {
      waits.push(`${wait(v.delayMs)} (${v.why.startsWith("Retry-After") ? "Retry-After" : v.why})`);
    };
    const final =
      policy === "codex"
        ? (await codexCall(COURSE_CODEX, { ...common, onWait: (_l, _s, _n, v) => onWait(v) })).final
            .final
        : (await sdkCall({ ...common, onWait: (_n, v) => onWait(v) })).final;
    trace.event(
      "server",
      `${label}: first answer ${sent}; ${server.count} request(s) in all ← ${status(final)}`,
      status(final) === "201" ? "ok" : "bad",
    );
    return {
      label,
      policy: policy === "codex" ? "Codex (course)" : "SDK-like",
      requests: server.count,
      waited: waits.join(", ") || "none",
      end: status(final),
    };
  } finally {
    await server.close();
  }
}

const inThree = formatHttpDate(PINNED + 3_000);
const past = formatHttpDate(PINNED - 5_000);
const cases: CaseRow[] = [
  await firstAnswer(
    "quota 429",
    { status: 429, body: { error: { type: "usage_limit_reached" } } },
    "codex",
    "429 usage_limit_reached",
  ),
  await firstAnswer(
    "429 + Retry-After",
    { status: 429, headers: { "retry-after": "2" } },
    "codex",
    "429, Retry-After: 2",
  ),
  await firstAnswer("429 bare", { status: 429 }, "codex", "429, no Retry-After"),
  await firstAnswer(
    "503 + Retry-After",
    { status: 503, headers: { "retry-after": "1" } },
    "codex",
    "503, Retry-After: 1",
  ),
  await firstAnswer(
    "429 + HTTP-date",
    { status: 429, headers: { "retry-after": inThree } },
    "codex",
    `429, Retry-After: ${inThree}`,
  ),
  await firstAnswer("SDK: 429 bare", { status: 429 }, "sdk", "429, no Retry-After"),
  await firstAnswer(
    "SDK: 429, 120 s",
    { status: 429, headers: { "retry-after": "120" } },
    "sdk",
    "429, Retry-After: 120",
  ),
  await firstAnswer(
    "SDK: past date",
    { status: 503, headers: { "retry-after": past } },
    "sdk",
    `503, Retry-After: ${past}`,
  ),
  await firstAnswer(
    "SDK: x-should-retry",
    { status: 503, headers: { "x-should-retry": "false" } },
    "sdk",
    "503, x-should-retry: false",
  ),
];
trace.table(
  ["case", "policy", "requests", "waited: real [slept]", "ends"],
  cases.map((c) => [c.label, c.policy, String(c.requests), c.waited, c.end]),
);
trace.prose(`A quota 429 is not "slow down" but "you are out": no wait will help, so it ends at once. A 429 with
  Retry-After is an instruction; without one, the course's Codex gives up where the SDK backs off and tries
  again. The SDK takes a server's delay only in (0, 60 s]: 120 s, or a date already past, falls back to its own
  backoff (anthropic-sdk-python; other SDKs differ: openai-python honours up to 120 s and does not retry
  above that: openai-python 3.3.1, _constants.py, MAX_RETRY_AFTER_DELAY = 2 * 60). And x-should-retry, a
  vendor header, overrides the status: the 503 was not retried.`);

// ## The counts, as measured
// Every number below was counted by a server in this run.
trace.section("How many requests one call became, as measured in this run");
trace.table(
  ["stack", "requests at the server"],
  [
    ["5 layers × 3 tries", String(dbEvery)],
    ["retry at one point", String(dbOne)],
    ["harness 4 × SDK 3", String(sdkRequests)],
    ["Codex, course, Retry-After", String(courseWithRA.requests)],
    ["Codex, course, none", String(courseNoRA.requests)],
    ["Codex, upstream defaults", String(upstream.requests)],
    ["outage, no budget", String(sum(noBudget, (r) => r.arrivals))],
    ["outage, token bucket", String(sum(budget, (r) => r.arrivals))],
  ],
);
trace.prose(`Retry at one layer, budget the retries, and honour the server's Retry-After. And every one of these
  requests was a POST: whether resending it is safe is lesson 04's question (idempotency keys). Exercises 03a
  (the token bucket) and 03b (the SDK's retry rules): npm run check 3.`);
