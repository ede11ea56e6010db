/**
 * @title How long to wait: backoff and jitter
 * @summary Exponential backoff slows one client down; only large jitter breaks up a herd of clients
 *   that failed together.
 * @run npm run lesson 2
 * @exercise 02a
 * @exercise 02b
 * @resource AWS Architecture Blog, "Exponential Backoff And Jitter" (Marc Brooker, 2015):
 *   https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
 * @resource The blog's simulator: https://github.com/aws-samples/aws-arch-backoff-simulator
 *   (ported in lib/herd/simulator.ts)
 * @resource openai/codex `codex-rs/core/src/util.rs`, `backoff()` (the course cites
 *   `codex-rs/async-utils/src/backoff.rs`, a newer layout)
 * @resource anthropic-sdk-python `src/anthropic/_base_client.py`, `_calculate_retry_timeout`, and
 *   `src/anthropic/_constants.py`
 *
 * What you will see: the six waiting rules the course compares, as formulas and then as schedules
 * computed by lib/client/backoff.ts for retries 1 to 8 (the range of each wait and one seeded
 * draw). Then why ±10 % of jitter spaces out one client but not a crowd, the blog's thundering-herd
 * simulator run live (calls and completion time per strategy, as tables, charts and a histogram of
 * when the writes land), the blog's conclusions checked one by one against this run's numbers, and
 * the same herd over real HTTP: ten agents against one `node:http` server that can serve one
 * request at a time.
 */
import { type BackoffParams, exponentialMs, HERD_PARAMS } from "../lib/client/backoff.ts";
import {
  awsScheduleTable,
  clientScheduleTable,
  formulaTable,
  jitterSpan,
  rangeMs,
  scheduleMs,
} from "../lib/client/schedules.ts";
import { exitOnUsageError, intFlag, intListFlag, lessonSetup } from "../lib/core/cli.ts";
import { seeded } from "../lib/core/random.ts";
import {
  bucketSparklines,
  formatNumber,
  silentBuckets,
  writeTimeHistogram,
} from "../lib/herd/charts.ts";
import { conclusionsTally, conclusionTexts, noisyNote } from "../lib/herd/conclusion-text.ts";
import { checkConclusions } from "../lib/herd/conclusions.ts";
import { crowdChart, firstRetryCrowd } from "../lib/herd/crowd.ts";
import { simulateManyParallel } from "../lib/herd/parallel.ts";
import { sweepBlocks } from "../lib/herd/report.ts";
import {
  HERD_STRATEGIES,
  type HerdStrategy,
  LATENCY_MEAN_MS,
  LATENCY_SD_MS,
} from "../lib/herd/simulator.ts";
import { writeHerdSvgs } from "../lib/herd/svg.ts";
import { herdWriteTimes } from "../lib/herd/write-times.ts";
import {
  liveHerdLine,
  liveHerdRace,
  liveHerdReading,
  liveHerdTable,
} from "../lib/overload/live-herd.ts";

const DEFAULT_CLIENTS = [10, 50, 100];
const DEFAULT_RUNS = 100;
const { trace, seed, values, heading } = lessonSetup(import.meta, {
  options: { clients: { type: "string" }, runs: { type: "string" }, svg: { type: "string" } },
  optionHelp: {
    svg: `also write the charts as SVG files into this folder (herd-calls, herd-completion,
      herd-write-times)`,
    clients: `client counts for the herd simulator, comma-separated (default
      ${DEFAULT_CLIENTS.join(",")}; the blog's sweep is 10,20,...,190)`,
    runs: `simulated runs per strategy and client count, averaged (default ${DEFAULT_RUNS})`,
  },
});
const flags = exitOnUsageError(() => ({
  clients: [...new Set(intListFlag("clients", values.clients, DEFAULT_CLIENTS, 1, 1000))].sort(
    (a, b) => a - b,
  ),
  runs: intFlag("runs", values.runs, DEFAULT_RUNS, 1, 10_000),
}));
const random = seeded(seed);
const indent = (text: string): void => {
  for (const l of text.split("\n")) trace.line(`  ${l}`);
};

trace.title(heading);
trace.prose(`Lesson 01 asked whether a retry is safe. This one asks when to send it. Retry at once
  and a server that is struggling gets the same load again; wait the same time as everybody else and
  it gets the load again a little later, all at once. Every number below is computed by the code in
  lib/ as this lesson runs; seed ${seed}.`);

trace.section("The formulas");
const formulas = formulaTable();
trace.table(formulas.header, formulas.rows);
// ² Read in upstream openai/codex, codex-rs/core/src/util.rs (INITIAL_DELAY_MS = 200,
// BACKOFF_FACTOR = 2.0, jitter `random_range(0.9..1.1)`). The course cites
// codex-rs/async-utils/src/backoff.rs (lines 12-17), a newer layout that only recent forks show.
trace.prose(`¹ AWS Architecture Blog, "Exponential Backoff And Jitter" (Marc Brooker, 2015), and its
  simulator (aws-samples/aws-arch-backoff-simulator). ² backoff() in openai/codex
  (codex-rs/core/src/util.rs): it starts at 200 ms, doubles for each retry, and multiplies by a
  random factor from 0.9 up to (not including) 1.1, truncated to whole milliseconds; attempt 0 waits
  like attempt 1. ³ _calculate_retry_timeout in src/anthropic/_base_client.py, constants
  INITIAL_RETRY_DELAY = 0.5 and MAX_RETRY_DELAY = 8.0 in _constants.py. k counts the retries already
  made (nb_retries), so the first retry has k = 0; r is random() in [0, 1), so the jitter only ever
  shortens the wait. (The code's comment says "plus-or-minus half a second"; the code does not do
  that.)`);

// Each cell: the range a wait can fall in (delayBounds), then one client's seeded draw.
trace.section("The AWS four, retry by retry (base 5 ms, cap 2000 ms)");
const aws = awsScheduleTable(random);
trace.table(aws.header, aws.rows);
trace.prose(`All in ms; a jittered cell is its range, then one seeded draw. Exponential doubles from
  ${scheduleMs(exponentialMs(1, HERD_PARAMS))} ms, 2 × base, because the blog's simulator counts the
  first retry as n = 1, up to the cap. Full jitter may come back after almost nothing or after
  nearly v_n (v_n/2 on average); equal jitter never waits less than v_n/2. Decorrelated jitter
  ignores n and grows from its own last wait (base to 3 × that), so its cell shows the widest range
  any history could reach by retry n: base to min(cap, base × 3^n).`);

// By default Codex's sampling layer stops after 5 retries (DEFAULT_STREAM_MAX_RETRIES = 5) and the
// SDK after 2 (DEFAULT_MAX_RETRIES = 2); 8 rows show where the formulas go.
trace.section("Codex and the Anthropic SDK, retry by retry");
const clients = clientScheduleTable(random);
trace.table(clients.header, clients.rows);
const [c4, s4, c8] = [clients.codex[3]!, clients.sdk[3]!, clients.codex[7]!];
trace.prose(`All in ms. Codex's jitter keeps each wait within ${jitterSpan(c4)} of its nominal wait
  (the 4th retry: ${scheduleMs(c4.lowMs)} to ${scheduleMs(c4.highMs)} ms). Codex's nominal waits,
  without jitter, are left out on purpose: exercise 02a asks you to compute them. The SDK's 4th
  retry (k = 3) waits from ${jitterSpan(s4)} of ${scheduleMs(s4.nominalMs!)} ms: down only, by at
  most a quarter. Codex has no cap (retry 8 already waits ${rangeMs(c8.lowMs, c8.highMs)} ms); the
  SDK stops doubling at 8 s.`);

// The crowd is drawn after the schedules, from the same seeded source, so each run of a seed
// prints the same draws.
trace.section("Small jitter spaces one client, not a crowd");
const crowd = crowdChart(firstRetryCrowd(random), {
  windowMs: 520,
  bucketMs: 10,
  width: trace.width,
});
for (const l of crowd.lines) trace.line(l);
const [spreadMs, busiest] = [crowd.spreadMs, crowd.busiest];
trace.prose(`Codex's ±10 % turns one spike of ${busiest[0]} retries into a bump
  ${scheduleMs(spreadMs[1]!)} ms wide, still ${busiest[1]} in the busiest 10 ms; the SDK's quarter,
  downwards only, spreads them over ${scheduleMs(spreadMs[2]!)} ms. Full jitter, given the same 200
  ms as Codex, uses all of it: ${busiest[3]} at most in 10 ms. Small jitter gives each client a
  floor (Codex never waits less than 90 % of its nominal wait, the SDK 75 %), so that one client
  does not come back too soon; but clients that failed together come back together, collide again,
  and the survivors are bunched once more. Full jitter gives up the floor to spread the crowd.`);

// Each point is the mean of --runs runs with its own seed, computed on every core.
trace.section("The thundering-herd simulator");
trace.prose(`The blog's simulator, ported: N clients start at once; each reads a row's version and
  writes it back; a write whose version moved meanwhile fails, and that client backs off and starts
  again with a read. ${flags.clients.join(", ")} clients; ${flags.runs} runs per point; one-way
  latency |Normal(${LATENCY_MEAN_MS}, ${LATENCY_SD_MS})| ms; base ${HERD_PARAMS.baseMs} ms, cap
  ${HERD_PARAMS.capMs} ms. codex-capped is the course's "Codex amplitude": v_n × uniform(0.9, 1.1)
  under the same cap, so that only the size of the jitter differs from exponential.`);
const rows = await simulateManyParallel({
  strategies: HERD_STRATEGIES,
  clients: flags.clients,
  runs: flags.runs,
  seed,
});
for (const block of sweepBlocks(rows)) {
  trace.line();
  indent(block.title);
  indent(block.body);
}

// One run at the largest client count over the first 3 s: long enough for exponential's every
// doubling up to the cap. Heights by the square root, so that the small buckets stay visible next
// to the first burst; a terminal too narrow for 60 columns of chart gets fewer, wider buckets.
const N = flags.clients.at(-1)!;
const writes = herdWriteTimes({
  strategies: ["no-backoff", "exponential", "codex-capped", "full"],
  clients: N,
  runs: 1,
  seed,
  rows,
  untilMs: 3000,
  buckets: [60, 50, 40, 30].find((b) => 2 + 12 + 2 + b + 1 + 11 <= trace.width) ?? 20,
});
trace.line();
const until = formatNumber(writes.untilMs);
indent(`When the write calls reach the server: ${N} clients, one run, the first ${until} ms`);
indent(
  writeTimeHistogram(writes.series, {
    untilMs: writes.untilMs,
    buckets: writes.buckets,
    sqrt: true,
  }),
);
const quiet = (s: HerdStrategy) =>
  silentBuckets(writes.series.find((w) => w.name === s)!.timesMs, writes.untilMs, writes.buckets);
const [expoQuiet, codexQuiet, fullQuiet] = [
  quiet("exponential"),
  quiet("codex-capped"),
  quiet("full"),
];
if (values.svg !== undefined)
  indent(`SVG charts written: ${writeHerdSvgs(values.svg, rows, writes).join(", ")}`);
trace.prose(`Without jitter the herd moves in waves: all who failed together sleep the same 10, 20,
  40, … ms and come back together, one of each wave gets through, and between the waves the server
  sits idle (exponential: ${expoQuiet.silent} of its first ${expoQuiet.active} buckets without a
  write; codex-capped: ${codexQuiet.silent} of ${codexQuiet.active}). Full jitter turns the waves
  into a steady trickle (${fullQuiet.silent} silent of ${fullQuiet.active}).`);

// Each claim is tested at the largest client count: the blog's claims are about many clients.
trace.section(`The blog's conclusions, checked against this run (${N} clients)`);
const checked = checkConclusions(rows);
if (checked.noisy) trace.prose(noisyNote(N, flags.runs));
const conclusions = conclusionTexts(checked);
for (const c of conclusions) {
  const mark =
    c.holds === undefined
      ? trace.style("yellow", "? not checked")
      : c.holds
        ? trace.style("green", "✓ supported")
        : trace.style("yellow", "✗ not supported by this run");
  trace.line(`  ${mark}  ${trace.style("bold", c.claim)}`);
  trace.prose(c.detail);
}
trace.line(`  ${conclusionsTally(conclusions)}`);

// The server (lib/overload/busy-server.ts) works on one request at a time: the simulator's version
// conflict in HTTP form. Times are lesson-sized, slept on the real clock.
trace.section("The herd over real HTTP: ten agents, one busy server");
const AGENTS = 10;
const SERVICE_MS = 8;
const LIVE_PARAMS: BackoffParams = { baseMs: 5, capMs: 80 };
const REALISTIC = 20; // how much slower a real service would be
const live = { agents: AGENTS, params: LIVE_PARAMS, serviceMs: SERVICE_MS, maxAttempts: 30 };
trace.prose(`${AGENTS} agents start at once, each wanting one POST served. The server needs
  ${SERVICE_MS} ms per request and answers 503 at once to whatever arrives meanwhile (no queue, no
  Retry-After); the agent sleeps its backoff (base ${LIVE_PARAMS.baseMs} ms, cap
  ${LIVE_PARAMS.capMs} ms) and tries again. Times ×${REALISTIC} for a real service: base
  ${LIVE_PARAMS.baseMs * REALISTIC} ms, cap
  ${formatNumber((LIVE_PARAMS.capMs * REALISTIC) / 1000, 1)} s, ${SERVICE_MS * REALISTIC} ms of
  work. Which requests collide depends on when the event loop delivers them: the counts vary a
  little from run to run, and are printed as measured.`);

const herds = await liveHerdRace(["exponential", "full"], { ...live, seed }, (row) =>
  trace.event("server", liveHerdLine(row, AGENTS), row.served === AGENTS ? "ok" : "bad"),
);
const arrivals = bucketSparklines(
  herds.map((h) => ({ name: h.row.strategy, timesMs: h.result.arrivals.map((a) => a.atMs) })),
  10,
);
trace.line();
const peak = arrivals.peak;
indent(
  `Requests reaching the server, per 10 ms bucket (one scale for both rows; the peak is ${peak})`,
);
indent([...arrivals.rows, arrivals.axis].join("\n"));
trace.line();
const table = liveHerdTable(herds.map((h) => h.row));
trace.table(table.header, table.rows);
trace.line();
indent("Turned away while serving each request, in order:");
for (const { row } of herds) indent(`${row.strategy.padEnd(11)} ${row.perService.join(" · ")}`);
const [expo, full] = [herds[0]!.row, herds[1]!.row];
trace.prose(`Each time the server served one request it turned away whoever else arrived in those
  ${SERVICE_MS} ms. Under exponential backoff the agents refused together sleep the same time and
  come back together: one of the wave is served, the rest refused again, and the wait doubles; a
  clean run shows ${AGENTS - 1} · ${AGENTS - 2} · ${AGENTS - 3} · … · 0, one agent a wave. Full
  jitter should scatter each wave, so that the server more often finds a retry on its own.
  ${liveHerdReading(expo, full, flags.runs)}`);

// The simulator's numbers are the same for the same seed; the HTTP counts are as measured.
trace.section("What this run measured");
const at = (s: HerdStrategy) => rows.find((r) => r.strategy === s && r.clients === N)!;
trace.table(
  [
    "strategy",
    `simulator, ${N} clients: calls`,
    "completion",
    `HTTP, ${AGENTS} agents: requests`,
    "all served after",
  ],
  HERD_STRATEGIES.map((s) => {
    const l = herds.find((h) => h.row.strategy === s)?.row;
    return [
      s,
      formatNumber(at(s).calls, 1),
      `${formatNumber(at(s).completionMs)} ms`,
      l ? String(l.requests) : "–",
      l ? `${formatNumber(l.doneMs)} ms` : "–",
    ];
  }),
);
trace.prose(`Exponential backoff decides how fast one client slows down; jitter decides whether many
  clients stay in step. Use both, with a large jitter (full jitter) by default. Explore the
  simulator with npm run herd (for the blog's sweep: npm run herd -- --clients
  10,20,30,40,50,60,70,80,90,100,110,120,130,140,150,160,170,180,190), or this lesson with --clients
  and --runs. Next: how many times to retry (lesson 03). Exercises 02a (Codex's backoff) and 02b
  (full and decorrelated jitter): npm run check 2.`);
