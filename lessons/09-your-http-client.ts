/**
 * @title What your HTTP client really does
 * @summary Node's fetch, nine retry libraries and Stripe's SDK against one faulty server, measured: who resends a POST, how long they wait, whether they honour Retry-After, what key they send.
 * @run npm run lesson 9
 * @resource RFC 9110 §9.2.2 Idempotent Methods: https://www.rfc-editor.org/rfc/rfc9110.html#section-9.2.2
 * @resource RFC 9110 §10.2.3 Retry-After; RFC 6585 §4 429 Too Many Requests
 * @resource undici lib/handler/retry-handler.js, got dist/source/core/options.js, ky distribution/utils/normalize.js, axios-retry dist/esm/index.js, p-retry index.js, exponential-backoff dist/options.js, cockatiel dist/Policy.js, openai client.js, @anthropic-ai/sdk client.js, stripe esm/RequestSender.js (all in node_modules)
 *
 * What you will see: a `node:http` server on 127.0.0.1 that fails on purpose (503 with and without
 * Retry-After, 429, a reset connection after the body was read, no answer at all) and logs every
 * attempt it receives. Node's fetch, undici's RetryAgent, got, ky, axios with axios-retry, p-retry,
 * exponential-backoff, cockatiel, the OpenAI and Anthropic SDKs, and stripe-node (the SDK of an API
 * whose server honours Idempotency-Key) are each pointed at it with their default settings. One table, computed from the server's log in this run: how many attempts
 * each makes, whether it resends a POST, the gaps between attempts and whether they jitter, whether
 * it waits for Retry-After, whether it sends an Idempotency-Key, its default timeout. Then which of
 * them would file a bug report twice, and how to set each one up safely. Takes about 20 seconds;
 * `--only <library>` measures one.
 */
import { exitWithUsage, lessonSetup } from "../lib/core/cli.ts";
import { nowMs } from "../lib/core/clock.ts";
import { seeded } from "../lib/core/random.ts";
import { wrapHanging } from "../lib/core/text.ts";
import {
  attemptsCell,
  changingCell,
  changingHeaders,
  gapsCell,
  jitterCell,
  keyCell,
  keyUse,
  ms,
  type Observation,
  postsProcessed,
  reportsAtKeyedTracker,
  retryAfterCell,
  retryAfterVerdict,
} from "../lib/http-clients/analysis.ts";
import {
  ATTEMPT_CAP,
  HANG_TIMEOUT_MS,
  JITTER_RUNS,
  LONG_RETRY_AFTER_S,
  measureAll,
  type ProbeReport,
  versionsOf,
} from "../lib/http-clients/measure.ts";
import { findProbe, PROBES } from "../lib/http-clients/probes/index.ts";
import { kyProbe } from "../lib/http-clients/probes/ky.ts";
import { stripeDefaultRetries } from "../lib/http-clients/probes/stripe.ts";
import { type LoggedAttempt, startFaultyServer } from "../lib/http-clients/server.ts";

const names = PROBES.map((p) => p.name).join(", ");
const { trace, seed, values, heading } = lessonSetup(import.meta, {
  options: { only: { type: "string" } },
  optionHelp: { only: `measure one library only: ${names}` },
});
const only = (values as { only?: string }).only;
let probes = PROBES;
if (only !== undefined) {
  const one = findProbe(only);
  if (!one) exitWithUsage(`--only takes one of ${names}; got "${only}"`);
  probes = [one];
}
const started = nowMs();

trace.title(heading);
trace.prose(`Lessons 01 to 08 built their own client. You will use somebody else's: fetch, got, axios, an
  LLM SDK. Each has a retry policy you did not write, and it decides, without asking you, whether a
  POST that timed out is sent again. Here each one meets the same faulty server, set up the way its
  README says, and the server writes down every attempt it receives.`);

// ## The faulty server
// One `node:http` server on 127.0.0.1 serves many independent runs at once, each on its own path
// with its own script and log. Every fault reads the request body first, so for a POST the server
// has done the work (filed the report) before it fails: exactly lesson 01's "done, answer lost".
trace.section("The faulty server: what each case does to every attempt");
trace.table(
  ["case", "the server answers every attempt with"],
  [
    ["503 / 429", "503 Service Unavailable or 429 Too Many Requests, no Retry-After"],
    ["reset", "reads the whole body (a POST is filed), then resets the connection (TCP RST)"],
    [
      "hang",
      `reads the whole body and never answers; the client gives up after ${HANG_TIMEOUT_MS} ms`,
    ],
    ["Retry-After", "503 with Retry-After (seconds, an HTTP-date, or one hour) once, then 200"],
  ],
);
trace.prose(`"hang" needs a client timeout, and the defaults run from ${kyTimeout()} to minutes, or there is none
  at all (part 3). So in the hang cases only, each client's own timeout option is set to ${HANG_TIMEOUT_MS} ms; everything else is the library's default,
  except where a default backoff would take minutes to watch: then the first delay is shortened through
  the library's own option, and said so here.`);

/** ky's default timeout, read from its installed source: the shortest of the defaults measured here. */
function kyTimeout(): string {
  const t = kyProbe.defaultTimeout();
  return "text" in t ? `ky's ${t.text}` : "ky's few seconds";
}

// ## The clients
// Every option a probe sets that is not the library's default, printed: the point is to measure the
// defaults, so every departure from them is on the page.
trace.section("The clients, and every option changed from its default");
for (const p of probes) {
  trace.line(`  ${trace.style("bold", p.name)}  ${trace.style("gray", versionsOf(p))}`);
  for (const c of p.config) item("    · ", c);
  item("    · ", `hang cases only: ${p.timeoutOption} with ${HANG_TIMEOUT_MS} ms`);
}

/** A list item, wrapped, its continuation lines indented under its text. */
function item(label: string, text: string): void {
  for (const l of wrapHanging(label, text, trace.width)) trace.line(l);
}
trace.prose(`Every probe also gets an AbortSignal. The lesson fires it only to stop a client it has seen enough
  of: one still retrying at ${ATTEMPT_CAP} attempts, or one still waiting out a one-hour Retry-After.`);

// ## Measuring
// The gaps between attempts are measured one library at a time: all the clients share this one
// process, and one library's busy moments delay another's timers by tens of milliseconds, about as
// much as the jitter we are looking for. Each library's plain GET 503 case runs several times at
// once; if the gap before the same retry differs between runs, the library randomises its waits.
// Everything else runs for all libraries at once.
trace.section("Measuring");
const server = await startFaultyServer();
let reports: ProbeReport[];
try {
  reports = await measureAll(server, probes, seeded(seed), (phase, ps) => {
    const who = ps.map((p) => p.name).join(", ");
    if (phase === "warm-up")
      trace.event("lesson", `warm-up: one successful GET through each library (${who})`);
    if (phase === "repeats")
      trace.event(
        "lesson",
        `${who}: ${JITTER_RUNS} runs of GET → 503 at once, alone, for the gaps`,
      );
    if (phase === "confirm")
      trace.event(
        "lesson",
        `${who}: the gaps varied; ${JITTER_RUNS} more runs, to confirm it is jitter`,
      );
    if (phase === "rest") trace.event("lesson", "every other case, for all libraries at once");
  });
} finally {
  await server.close();
}
trace.event(
  "lesson",
  `done: ${reports.reduce((n, r) => n + countAttempts(r), 0)} attempts logged by the server`,
  "ok",
);

/** Attempts in every observation kept for the tables (the GET 503 case is also the first repeat). */
function countAttempts(r: ProbeReport): number {
  const kept = new Set<Observation>([
    ...r.repeats,
    ...Object.values(r.cases),
    r.retryAfter.delay,
    r.retryAfter.date,
    r.retryAfter.long,
  ]);
  return [...kept].reduce((n, o) => n + o.log.length, 0);
}

// ## A close-up: one POST whose answer was lost
// Before the table, one case as the server saw it. The agent files one bug report; the server files
// it and the connection breaks before the answer. Whatever the library does next, the server logs.
const closeUp = reports.find((r) => r.probe.name === "openai") ?? reports[0]!;
trace.section(`Close-up: ${closeUp.probe.name}, one POST /reports, the answer lost every time`);
printLog(closeUp.cases["post-reset"].log);
const filed = postsProcessed(closeUp.cases["post-reset"].log);
trace.count(filed, 1, "reports filed for one call");
const counter = changingHeaders(closeUp.cases["post-reset"].log)[0];
trace.prose(
  filed <= 1
    ? "It did not resend the POST: one call, one report, and the caller gets an error it must handle."
    : keyUse(closeUp.cases["post-reset"].log).kind !== "none"
      ? `One call, ${filed} POSTs, each with the library's own key: see part 3.`
      : `One call, ${filed} reports. ${counter ? `${counter.name} tells the server "this is a retry", but not of which request: ` : ""}with
      no Idempotency-Key, the server cannot find the report it already filed.`,
);

function printLog(log: readonly LoggedAttempt[]): void {
  const t0 = log[0]?.arrivedAt ?? 0;
  for (const a of log) {
    const marks = Object.entries(a.headers)
      .filter(([h]) => /idempotency|retry-count|retry-attempt/i.test(h))
      .map(([h, v]) => `${h}: ${String(v)}`);
    const note = marks.length
      ? marks.join(", ")
      : "no Idempotency-Key, nothing marks it as a retry";
    trace.line(
      `  ${trace.style("gray", `+${String(Math.round(a.arrivedAt - t0)).padStart(5)} ms`)}  ${trace.style("magenta", "server")}  #${a.n} ${a.method} ${a.path}: ${a.bodyBytes} bytes read (report filed), ${a.answer}; ${note}`,
    );
  }
}

// ## The table, part 1: does it send it again?
// Attempts the server received for one logical call, per case. More than 1 in a POST column means
// the library resent a request that is not idempotent (RFC 9110 §9.2.2: a client "SHOULD NOT
// automatically retry" one unless it knows the request is idempotent or was never applied).
trace.section("1 · Does it send it again? (attempts the server received for one call)");
const star = (o: Observation): string => attemptsCell(o).replace(" (stopped)", "*");
trace.table(
  ["library", "GET 503", "GET 429", "GET reset", "GET hang", "POST 503", "POST reset", "POST hang"],
  reports.map((r) => [
    r.probe.name,
    star(r.cases["get-503"]),
    star(r.cases["get-429"]),
    star(r.cases["get-reset"]),
    star(r.cases["get-hang"]),
    star(r.cases["post-503"]),
    star(r.cases["post-reset"]),
    star(r.cases["post-hang"]),
  ]),
);
if (reports.some((r) => Object.values(r.cases).some((o) => o.stopped))) {
  trace.line(
    `  * still retrying at ${ATTEMPT_CAP} attempts, stopped by the lesson: the library itself sets no limit.`,
  );
}

// ## Part 2: how long does it wait?
// Gaps: from the end of one attempt to the arrival of the next, median over the repeated runs.
// Retry-After (RFC 9110 §10.2.3, delay-seconds or an HTTP-date): honoured when the retry came no
// earlier than asked. The seconds asked are 1, or more for a library whose own first backoff is
// near a second, so that waiting for Retry-After cannot be mistaken for its own backoff.
trace.section("2 · How long does it wait?");
trace.table(
  [
    "library",
    `gaps after 503 (median of ${JITTER_RUNS})`,
    "jitter",
    "RA seconds",
    "RA date",
    `RA ${LONG_RETRY_AFTER_S / 3600} h`,
  ],
  reports.map((r) => {
    const runs = r.repeats.map((o) => o.log);
    const ra = r.retryAfter;
    return [
      r.probe.name,
      gapsCell(runs),
      jitterCell(runs),
      `${retryAfterCell(retryAfterVerdict(ra.delay, ra.windowMs))} (${ra.seconds} s asked)`,
      retryAfterCell(retryAfterVerdict(ra.date, ra.windowMs)),
      retryAfterCell(retryAfterVerdict(ra.long, ra.windowMs), true),
    ];
  }),
);
trace.prose(`RA is Retry-After: "✓ 1.0 s (1 s asked)" means the retry came 1.0 s after the answer that asked for
  1 s; "✗ after 5 ms" means it came sooner, on the library's own schedule. "jitter" compares the gap before
  the same retry across ${JITTER_RUNS} runs started together (at each retry the slowest run is left out, since a busy
  machine only ever delays a timer); "±" is half that spread. The one-hour Retry-After is watched for a second
  longer than the seconds case: "waiting" means the caller is stuck for as long as the library's cap
  allows${reports.some((r) => r.probe.retryAfterNote) ? ", which its source says:" : "."}`);
for (const r of reports) {
  const note = r.probe.retryAfterNote?.();
  if (note) item(`    ${r.probe.name}: `, `${note.text} (${note.source})`);
}

// ## Part 3: what does it send, and how long does it wait for an answer?
trace.section("3 · What does it send? How long does it wait for an answer?");
const timeouts = new Map(
  await Promise.all(
    reports.map(async (r) => [r.probe.name, await r.probe.defaultTimeout()] as const),
  ),
);
trace.table(
  [
    "library",
    "own Idempotency-Key (POST, answer lost)",
    "headers that change on a retry",
    "default timeout",
  ],
  reports.map((r) => [
    r.probe.name,
    keyCell(r.cases["post-reset"].log),
    changingCell(r.cases["get-503"].log),
    timeouts.get(r.probe.name)!.text,
  ]),
);
trace.prose(`No case here waits for a default timeout (in the hang cases
  each client's own timeout option was ${HANG_TIMEOUT_MS} ms). They are read at run time where the library exposes
  them, otherwise from its installed source:`);
for (const r of reports) item(`    ${r.probe.name}: `, timeouts.get(r.probe.name)!.source);

// ## What follows for the agent filing bug reports
// The two POST cases that matter: the answer was lost after the report was filed (reset), and the
// client gave up while the server was still working (hang). Each POST body the server read is a
// report filed. The faulty server keeps no keys; the next column applies lesson 04's keyed rule
// (one report per Idempotency-Key; a POST without one is refused with 400) to the lost-answer log. Then the
// same lost answer with the caller's own Idempotency-Key header: does the library send the same key on
// every attempt?
trace.section("What follows: which of these would file a bug report twice?");
trace.table(
  [
    "library",
    "reports after a lost answer",
    "after a timeout",
    "lost answer, at a keyed tracker",
    "your own key on every attempt",
  ],
  reports.map((r) => {
    const keyed = keyUse(r.cases["post-reset-keyed"].log);
    const n = r.cases["post-reset-keyed"].log.length;
    const keyCellText =
      keyed.kind === "same"
        ? n > 1
          ? `same key on all ${n}`
          : "1 attempt"
        : keyed.kind === "none"
          ? "dropped"
          : keyed.kind;
    return [
      r.probe.name,
      reportsCell(r.cases["post-reset"]),
      reportsCell(r.cases["post-hang"]),
      keyedCell(r.cases["post-reset"].log),
      keyCellText,
    ];
  }),
);
const duplicators = reports.filter(
  (r) =>
    postsProcessed(r.cases["post-reset"].log) > 1 || postsProcessed(r.cases["post-hang"].log) > 1,
);
const careful = reports.filter((r) => !duplicators.includes(r));
const ownKey = duplicators.filter(
  (r) =>
    keyUse(r.cases["post-reset"].log).kind !== "none" ||
    keyUse(r.cases["post-hang"].log).kind !== "none",
);
trace.prose(
  duplicators.length
    ? `Would file one report several times: ${duplicators.map((r) => r.probe.name).join(", ")}. ${
        ownKey.length === 0
          ? `${duplicators.length === 1 ? "It sent no" : "None of them sent an"} Idempotency-Key of its own, so the tracker cannot tell the copies apart.`
          : `Of these, ${ownKey.map((r) => r.probe.name).join(", ")} sent a key of its own (part 3).`
      }`
    : "None of these resent the POST.",
);
if (careful.length) {
  trace.prose(`Did not resend the POST: ${careful.map((r) => r.probe.name).join(", ")}. The caller still gets an error that
    means "unknown" (lesson 01), not "failed": retrying it by hand has the same problem.`);
}
const retried = reports.filter((r) => r.cases["post-reset-keyed"].log.length > 1);
const keptKey = retried.filter((r) => keyUse(r.cases["post-reset-keyed"].log).kind === "same");
if (retried.length) {
  trace.prose(
    keptKey.length === retried.length
      ? `Every library that resent the POST sent the caller's own Idempotency-Key unchanged on every attempt: a
      key made once per logical call and put in the request headers is all a keyed server (lesson 04) needs to
      file one report.`
      : `Not every library kept the caller's key on its retries: ${retried
          .filter((r) => !keptKey.includes(r))
          .map((r) => r.probe.name)
          .join(", ")}.`,
  );
}
if (reports.some((r) => r.probe.name === "openai" || r.probe.name === "anthropic")) {
  trace.prose(`The LLM SDKs have no key of their own to offer: the OpenAI SDK only adds one when a header name is set
    (openai client.js, "if (this.idempotencyHeader && method !== 'get')"), and none is by default; this
    Anthropic SDK has no such code at all.`);
}

// stripe-node is the counterexample: the SDK of an API whose server honours keys (Stripe's), so it
// keys every POST itself; its own comment says why (stripe esm/RequestSender.js, `_defaultIdempotencyKey`).
// How many retries by default: 2 in its code (esm/stripe.esm.node.js, the build Node loads, and
// esm/platform/PlatformFunctions.js) and its CHANGELOG since 17.0.0, 1 in its README; each read from
// the installed package (lib/http-clients/probes/stripe.ts), and the run measures the code.
const stripe = reports.find((r) => r.probe.name === "stripe");
if (stripe) {
  const log = stripe.cases["post-reset"].log;
  const own = keyUse(log);
  const keyless = duplicators.filter(
    (r) => r !== stripe && keyUse(r.cases["post-reset"].log).kind === "none",
  );
  const shown =
    own.kind === "none"
      ? "none"
      : own.values[0]!.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/i, "<uuid>");
  trace.prose(
    own.kind === "same"
      ? `stripe is the counterexample, by design: the SDK of an API whose server honours keys. It made one key for
      the call, ${own.header}: ${shown}, and sent it unchanged on all ${log.length} attempts, so where this keyless
      server filed ${postsProcessed(log)} reports a keyed tracker keeps ${reportsAtKeyedTracker(log)}. Its source says why (stripe
      esm/RequestSender.js, _defaultIdempotencyKey): "Key every POST, including when maxNetworkRetries is 0.
      Closed-connection errors are retried regardless of that setting".${
        keyless.length
          ? ` The others that resent the POST (${keyless.map((r) => r.probe.name).join(", ")}) sent no key of their own.`
          : ""
      }`
      : `stripe's own key: ${own.kind === "none" ? "none was sent" : `${own.header}, ${own.kind}`} (stripe ${versionsOf(stripe.probe)}).`,
  );
  const retries = stripeDefaultRetries();
  const path = (s: { source: string }): string => s.source.replace(/^stripe /, "");
  const code =
    retries.node.text === retries.platform.text
      ? `${retries.node.text} in its code (stripe ${path(retries.node)}, the build Node loads, and ${path(retries.platform)})`
      : `${retries.node.text} in the build Node loads (stripe ${path(retries.node)}), ${retries.platform.text} in ${path(retries.platform)}`;
  const readme =
    retries.readme.text === retries.node.text
      ? "its README agrees"
      : `its README says ${retries.readme.text} (maxNetworkRetries)`;
  trace.prose(`stripe-node's default number of retries: ${code}, and its CHANGELOG at 17.0.0 says "max retries: 1 -> 2";
    ${readme}. This run measured the code: ${log.length} attempts, ${log.length - 1} retries.`);
}

/** Reports at lesson 04's keyed tracker, or why there are none to count. */
function keyedCell(log: readonly LoggedAttempt[]): string {
  const n = reportsAtKeyedTracker(log);
  return n === undefined ? "– (no key: 400)" : String(n);
}

function reportsCell(o: Observation): string {
  const n = postsProcessed(o.log);
  return n > 1 ? `${n}${o.stopped ? "*" : ""}  ✗ duplicate` : `${n}`;
}

trace.section("How to set each one up safely");
for (const r of reports) item(`  ${r.probe.name.padEnd(20)} `, r.probe.safe);
trace.prose(`The rule under all of these: retry in one place only (lesson 03), make one key per logical call and
  reuse it on every retry (lesson 04), and spread the waits with real jitter (lesson 02).`);

trace.prose(`Measured in ${ms(nowMs() - started)} against a server on 127.0.0.1; gaps and jitter vary from run to run,
  the counts do not. A library upgrade that changes a default changes this table.`);
