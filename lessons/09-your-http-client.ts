/**
 * @title What your HTTP client really does
 * @summary Node's fetch, nine retry libraries and Stripe's SDK against one faulty server, measured:
 * who resends a POST, how long they wait, whether they honour Retry-After, what key they send.
 * @run npm run lesson 9
 * @resource RFC 9110 §9.2.2 Idempotent Methods:
 * https://www.rfc-editor.org/rfc/rfc9110.html#section-9.2.2
 * @resource RFC 9110 §10.2.3 Retry-After; RFC 6585 §4 429 Too Many Requests
 * @resource undici lib/handler/retry-handler.js, got dist/source/core/options.js, ky
 * distribution/utils/normalize.js, axios-retry dist/esm/index.js, p-retry index.js,
 * exponential-backoff dist/options.js, cockatiel dist/Policy.js, openai client.js,
 * @anthropic-ai/sdk client.js, stripe esm/RequestSender.js (all in node_modules)
 *
 * What you will see: a `node:http` server on 127.0.0.1 that fails on purpose (503 with and without
 * Retry-After, 429, a reset connection after the body was read, no answer at all) and logs every
 * attempt it receives. Node's fetch, undici's RetryAgent, got, ky, axios with axios-retry, p-retry,
 * exponential-backoff, cockatiel, the OpenAI and Anthropic SDKs, and stripe-node (the SDK of an API
 * whose server honours Idempotency-Key) are each pointed at it with their default settings. One
 * table, computed from the server's log in this run: how many attempts each makes, whether it
 * resends a POST, the gaps between attempts and whether they jitter, whether it waits for
 * Retry-After, whether it sends an Idempotency-Key, its default timeout. Then which of them would
 * file a bug report twice, and how to set each one up safely. Takes about 20 seconds; `--only *
   <library>` measures one.
 */
import { exitWithUsage, lessonSetup } from "../lib/core/cli.ts";
import { nowMs } from "../lib/core/clock.ts";
import { t } from "../lib/core/i18n.ts";
import { seeded } from "../lib/core/random.ts";
import { wrapHanging } from "../lib/core/text.ts";
import { ms, postsProcessed } from "../lib/http-clients/analysis.ts";
import {
  attemptsLogged,
  closeUpVerdict,
  duplicateFindings,
  kyTimeout,
  libraryNames,
  serverLogLines,
  stripeFindings,
} from "../lib/http-clients/findings.ts";
import {
  ATTEMPT_CAP,
  HANG_TIMEOUT_MS,
  JITTER_RUNS,
  measureAll,
  type ProbeReport,
  versionsOf,
} from "../lib/http-clients/measure.ts";
import { findProbe, PROBES } from "../lib/http-clients/probes/index.ts";
import { startFaultyServer } from "../lib/http-clients/server.ts";
import {
  attemptsTable,
  reportsTable,
  sendsTable,
  serverCasesTable,
  stoppedNote,
  waitsTable,
} from "../lib/http-clients/tables.ts";

const names = PROBES.map((p) => p.name).join(", ");
const { trace, seed, values, heading } = lessonSetup(import.meta, {
  options: { only: { type: "string" } },
  optionHelp: { only: t("measure one library only: {names}", { names }) },
});
const only = (values as { only?: string }).only;
let probes = PROBES;
if (only !== undefined) {
  const one = findProbe(only);
  if (!one) exitWithUsage(t('--only takes one of {names}; got "{only}"', { names, only }));
  probes = [one];
}
const started = nowMs();

/** A list item, wrapped, its continuation lines indented under its text. */
function item(label: string, text: string): void {
  for (const l of wrapHanging(label, text, trace.width)) trace.line(l);
}

trace.title(heading);
trace.prose(
  t(`Lessons 01 to 08 built their own client. You will use somebody else's: fetch, got,
    axios, an LLM SDK. Each has a retry policy you did not write, and it decides, without asking
    you, whether a POST that timed out is sent again. Here each one meets the same faulty server,
    set up the way its README says, and the server writes down every attempt it receives.`),
);

// One `node:http` server on 127.0.0.1 serves many independent runs at once, each on its own path
// with its own script and log. Every fault reads the request body first, so for a POST the server
// has done the work (filed the report) before it fails: exactly lesson 01's "done, answer lost".
trace.section(t("The faulty server: what each case does to every attempt"));
trace.table(...serverCasesTable());
trace.prose(
  t(
    `"hang" needs a client timeout, and the defaults run from ky's {ky} to minutes, or
    there is none at all (part 3). So in the hang cases only, each client's own timeout option is
    set to {ms} ms; everything else is the library's default, except where a default backoff would
    take minutes to watch: then the first delay is shortened through the library's own option, and
    said so here.`,
    { ky: kyTimeout(), ms: HANG_TIMEOUT_MS },
  ),
);

// The point is to measure the defaults, so every departure from them is on the page.
trace.section(t("The clients, and every option changed from its default"));
for (const p of probes) {
  trace.line(`  ${trace.style("bold", p.name)}  ${trace.style("gray", versionsOf(p))}`);
  for (const c of p.config) item("    · ", c);
  item(
    "    · ",
    t("hang cases only: {option} with {ms} ms", { option: p.timeoutOption, ms: HANG_TIMEOUT_MS }),
  );
}
trace.prose(
  t(
    `Every probe also gets an AbortSignal. The lesson fires it only to stop a client it has
    seen enough of: one still retrying at {n} attempts, or one still waiting out a one-hour
    Retry-After.`,
    { n: ATTEMPT_CAP },
  ),
);

// The gaps between attempts are measured one library at a time: all the clients share this one
// process, and one library's busy moments delay another's timers by tens of milliseconds, about as
// much as the jitter we are looking for. Each library's plain GET 503 case runs several times at
// once; if the gap before the same retry differs between runs, the library randomises its waits.
// Everything else runs for all libraries at once.
trace.section(t("Measuring"));
const server = await startFaultyServer();
let reports: ProbeReport[];
try {
  reports = await measureAll(server, probes, seeded(seed), (phase, ps) => {
    const who = libraryNames(ps.map((p) => p.name));
    const n = JITTER_RUNS;
    if (phase === "warm-up")
      trace.event("lesson", t("warm-up: one successful GET through each library ({who})", { who }));
    if (phase === "repeats")
      trace.event(
        "lesson",
        t("{who}: {n} runs of GET → 503 at once, alone, for the gaps", { who, n }),
      );
    if (phase === "confirm")
      trace.event(
        "lesson",
        t("{who}: the gaps varied; {n} more runs, to confirm it is jitter", { who, n }),
      );
    if (phase === "rest") trace.event("lesson", t("every other case, for all libraries at once"));
  });
} finally {
  await server.close();
}
trace.event(
  "lesson",
  t("done: {n} attempts logged by the server", { n: String(attemptsLogged(reports)) }),
  "ok",
);

// Before the tables, one case as the server saw it: the agent files one bug report; the server
// files it and the connection breaks before the answer; whatever the library does next, it logs.
const closeUp = reports.find((r) => r.probe.name === "openai") ?? reports[0]!;
const lost = closeUp.cases["post-reset"].log;
trace.section(
  t("Close-up: {name}, one POST /reports, the answer lost every time", {
    name: closeUp.probe.name,
  }),
);
for (const l of serverLogLines(trace, lost)) trace.line(l);
trace.count(postsProcessed(lost), 1, t("reports filed for one call"));
trace.prose(closeUpVerdict(lost));

// More than 1 in a POST column means the library resent a request that is not idempotent (RFC 9110
// §9.2.2: a client "SHOULD NOT automatically retry" one unless it knows the request is idempotent
// or was never applied).
trace.section(t("1 · Does it send it again? (attempts the server received for one call)"));
trace.table(...attemptsTable(reports));
const stopped = stoppedNote(reports);
if (stopped) trace.line(stopped);

// Gaps: from the end of one attempt to the arrival of the next, median over the repeated runs.
// Retry-After (RFC 9110 §10.2.3, delay-seconds or an HTTP-date): honoured when the retry came no
// earlier than asked. The seconds asked are 1, or more for a library whose own first backoff is
// near a second, so that waiting for Retry-After cannot be mistaken for its own backoff.
trace.section(t("2 · How long does it wait?"));
trace.table(...waitsTable(reports));
trace.prose(
  t(
    `RA is Retry-After: "✓ 1.0 s (1 s asked)" means the retry came 1.0 s after the answer
    that asked for 1 s; "✗ after 5 ms" means it came sooner, on the library's own schedule.
    "jitter" compares the gap before the same retry across {n} runs started together (at each
    retry the slowest run is left out, since a busy machine only ever delays a timer); "±" is half
    that spread. The one-hour Retry-After is watched for a second longer than the seconds case:
    "waiting" means the caller is stuck for as long as the library's cap allows{capped, select, yes
    {, which its source says:} other {.}}`,
    { n: JITTER_RUNS, capped: reports.some((r) => r.probe.retryAfterNote) ? "yes" : "no" },
  ),
);
for (const r of reports) {
  const note = r.probe.retryAfterNote?.();
  if (note) item(`    ${r.probe.name}: `, `${note.text} (${note.source})`);
}

trace.section(t("3 · What does it send? How long does it wait for an answer?"));
const timeouts = new Map(
  await Promise.all(
    reports.map(async (r) => [r.probe.name, await r.probe.defaultTimeout()] as const),
  ),
);
trace.table(...sendsTable(reports, timeouts));
trace.prose(
  t(
    `No case here waits for a default timeout (in the hang cases each client's own timeout
    option was {ms} ms). They are read at run time where the library exposes them, otherwise from
    its installed source:`,
    { ms: HANG_TIMEOUT_MS },
  ),
);
for (const r of reports) item(`    ${r.probe.name}: `, timeouts.get(r.probe.name)!.source);

// The two POST cases that matter: the answer was lost after the report was filed (reset), and the
// client gave up while the server was still working (hang). Each POST body the server read is a
// report filed. The faulty server keeps no keys: the third column applies lesson 04's keyed rule
// (one report per Idempotency-Key; a POST without one is refused with 400) to the lost-answer log.
trace.section(t("What follows: which of these would file a bug report twice?"));
trace.table(...reportsTable(reports));
for (const p of duplicateFindings(reports)) trace.prose(p);
// stripe-node keys its own POSTs; its default retries are read from its installed code
// (esm/stripe.esm.node.js and esm/platform/PlatformFunctions.js), its CHANGELOG and its README,
// which disagree (lib/http-clients/probes/stripe.ts), and the run measures the code.
for (const p of stripeFindings(reports)) trace.prose(p);

trace.section(t("How to set each one up safely"));
for (const r of reports) item(`  ${r.probe.name.padEnd(20)} `, r.probe.safe);
trace.prose(
  t(`The rule under all of these: retry in one place only (lesson 03), make one key per
    logical call and reuse it on every retry (lesson 04), and spread the waits with real jitter
    (lesson 02).`),
);

trace.prose(
  t(
    `Measured in {time} against a server on 127.0.0.1; gaps and jitter vary from run to
    run, the counts do not. A library upgrade that changes a default changes this table.`,
    { time: ms(nowMs() - started) },
  ),
);
