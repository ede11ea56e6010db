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
  scheduleMs,
} from "../lib/client/schedules.ts";
import { exitOnUsageError, intFlag, intListFlag, lessonSetup } from "../lib/core/cli.ts";
import { t } from "../lib/core/i18n.ts";
import { seeded } from "../lib/core/random.ts";
import { bucketSparklines, formatNumber, writeTimeHistogram } from "../lib/herd/charts.ts";
import { conclusionsTally, conclusionTexts, noisyNote } from "../lib/herd/conclusion-text.ts";
import { checkConclusions } from "../lib/herd/conclusions.ts";
import { crowdChart, firstRetryCrowd } from "../lib/herd/crowd.ts";
import { simulateManyParallel } from "../lib/herd/parallel.ts";
import { measuredTable, simulatorSetup, sweepBlocks, waveGaps } from "../lib/herd/report.ts";
import { HERD_STRATEGIES } from "../lib/herd/simulator.ts";
import { writeHerdSvgs } from "../lib/herd/svg.ts";
import { herdWriteTimes } from "../lib/herd/write-times.ts";
import {
  cleanWaves,
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
    svg: t(`also write the charts as SVG files into this folder (herd-calls, herd-completion,
      herd-write-times)`),
    clients: t(
      `client counts for the herd simulator, comma-separated (default {clients}; the blog's
      sweep is 10,20,...,190)`,
      { clients: DEFAULT_CLIENTS.join(",") },
    ),
    runs: t("simulated runs per strategy and client count, averaged (default {runs})", {
      runs: DEFAULT_RUNS,
    }),
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
trace.prose(
  t(
    `Lesson 01 asked whether a retry is safe. This one asks when to send it. Retry at once and a
    server that is struggling gets the same load again; wait the same time as everybody else and it
    gets the load again a little later, all at once. Every number below is computed by the code in
    lib/ as this lesson runs; seed {seed}.`,
    { seed },
  ),
);

trace.section(t("The formulas"));
const formulas = formulaTable();
trace.table(formulas.header, formulas.rows);
// ² Read in upstream openai/codex, codex-rs/core/src/util.rs (INITIAL_DELAY_MS = 200,
// BACKOFF_FACTOR = 2.0, jitter `random_range(0.9..1.1)`). The course cites
// codex-rs/async-utils/src/backoff.rs (lines 12-17), a newer layout that only recent forks show.
trace.prose(
  t(`¹ AWS Architecture Blog, "Exponential Backoff And Jitter" (Marc Brooker, 2015), and its
  simulator (aws-samples/aws-arch-backoff-simulator). ² backoff() in openai/codex
  (codex-rs/core/src/util.rs): it starts at 200 ms, doubles for each retry, and multiplies by a
  random factor from 0.9 up to (not including) 1.1, truncated to whole milliseconds; attempt 0 waits
  like attempt 1. ³ _calculate_retry_timeout in src/anthropic/_base_client.py, constants
  INITIAL_RETRY_DELAY = 0.5 and MAX_RETRY_DELAY = 8.0 in _constants.py. k counts the retries already
  made (nb_retries), so the first retry has k = 0; r is random() in [0, 1), so the jitter only ever
  shortens the wait. (The code's comment says "plus-or-minus half a second"; the code does not do
  that.)`),
);

// Each cell: the range a wait can fall in (delayBounds), then one client's seeded draw.
trace.section(t("The AWS four, retry by retry (base 5 ms, cap 2000 ms)"));
const aws = awsScheduleTable(random);
trace.table(aws.header, aws.rows);
trace.prose(
  t(
    `All in ms; a jittered cell is its range, then one seeded draw. Exponential doubles from {first}
    ms, 2 × base, because the blog's simulator counts the first retry as n = 1, up to the cap. Full
    jitter may come back after almost nothing or after nearly v_n (v_n/2 on average); equal jitter
    never waits less than v_n/2. Decorrelated jitter ignores n and grows from its own last wait
    (base to 3 × that), so its cell shows the widest range any history could reach by retry n: base
    to min(cap, base × 3^n).`,
    { first: scheduleMs(exponentialMs(1, HERD_PARAMS)) },
  ),
);

// By default Codex's sampling layer stops after 5 retries (DEFAULT_STREAM_MAX_RETRIES = 5) and the
// SDK after 2 (DEFAULT_MAX_RETRIES = 2); 8 rows show where the formulas go.
trace.section(t("Codex and the Anthropic SDK, retry by retry"));
const clients = clientScheduleTable(random);
trace.table(clients.header, clients.rows);
trace.prose(
  t(
    `All in ms. Codex's jitter keeps each wait within {codexSpan} of its nominal wait (the 4th
    retry: {low} to {high} ms). Codex's nominal waits, without jitter, are left out on purpose:
    exercise 02a asks you to compute them. The SDK's 4th retry (k = 3) waits from {sdkSpan} of
    {nominal} ms: down only, by at most a quarter. Codex has no cap (retry 8 already waits {last}
    ms); the SDK stops doubling at 8 s.`,
    clients.facts,
  ),
);

// The crowd is drawn after the schedules, from the same seeded source, so each run of a seed
// prints the same draws.
trace.section(t("Small jitter spaces one client, not a crowd"));
const crowd = crowdChart(firstRetryCrowd(random), {
  windowMs: 520,
  bucketMs: 10,
  width: trace.width,
});
for (const l of crowd.lines) trace.line(l);
trace.prose(
  t(
    `Codex's ±10 % turns one spike of {all} retries into a bump {codexSpread} ms wide, still
    {codexBusiest} in the busiest 10 ms; the SDK's quarter, downwards only, spreads them over
    {sdkSpread} ms. Full jitter, given the same 200 ms as Codex, uses all of it: {fullBusiest} at
    most in 10 ms. Small jitter gives each client a floor (Codex never waits less than 90 % of its
    nominal wait, the SDK 75 %), so that one client does not come back too soon; but clients that
    failed together come back together, collide again, and the survivors are bunched once more.
    Full jitter gives up the floor to spread the crowd.`,
    crowd.facts,
  ),
);

// Each point is the mean of --runs runs with its own seed, computed on every core.
trace.section(t("The thundering-herd simulator"));
trace.prose(
  t(
    `The blog's simulator, ported: N clients start at once; each reads a row's version and writes it
    back; a write whose version moved meanwhile fails, and that client backs off and starts again
    with a read. {clients} clients; {runs} runs per point; one-way latency |Normal({mean}, {sd})|
    ms; base {base} ms, cap {cap} ms. codex-capped is the course's "Codex amplitude": v_n ×
    uniform(0.9, 1.1) under the same cap, so that only the size of the jitter differs from
    exponential.`,
    simulatorSetup(flags.clients, flags.runs),
  ),
);
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
indent(
  t("When the write calls reach the server: {n} clients, one run, the first {ms} ms", {
    n: N,
    ms: formatNumber(writes.untilMs),
  }),
);
indent(
  writeTimeHistogram(writes.series, {
    untilMs: writes.untilMs,
    buckets: writes.buckets,
    sqrt: true,
  }),
);
if (values.svg !== undefined)
  indent(
    t("SVG charts written: {files}", { files: writeHerdSvgs(values.svg, rows, writes).join(", ") }),
  );
trace.prose(
  t(
    `Without jitter the herd moves in waves: all who failed together sleep the same 10, 20, 40, …
    ms and come back together, one of each wave gets through, and between the waves the server sits
    idle (exponential: {expoSilent} of its first {expoActive} buckets without a write; codex-capped:
    {codexSilent} of {codexActive}). Full jitter turns the waves into a steady trickle
    ({fullSilent} silent of {fullActive}).`,
    waveGaps(writes),
  ),
);

// Each claim is tested at the largest client count: the blog's claims are about many clients.
trace.section(t("The blog's conclusions, checked against this run ({n} clients)", { n: N }));
const checked = checkConclusions(rows);
if (checked.noisy) trace.prose(noisyNote(N, flags.runs));
const conclusions = conclusionTexts(checked);
for (const c of conclusions) {
  const mark =
    c.holds === undefined
      ? trace.style("yellow", t("? not checked"))
      : c.holds
        ? trace.style("green", t("✓ supported"))
        : trace.style("yellow", t("✗ not supported by this run"));
  trace.line(`  ${mark}  ${trace.style("bold", c.claim)}`);
  trace.prose(c.detail);
}
trace.line(`  ${conclusionsTally(conclusions)}`);

// The server (lib/overload/busy-server.ts) works on one request at a time: the simulator's version
// conflict in HTTP form. Times are lesson-sized, slept on the real clock.
trace.section(t("The herd over real HTTP: ten agents, one busy server"));
const [agents, service, factor] = [10, 8, 20]; // 20: how much slower a real service would be
const params: BackoffParams = { baseMs: 5, capMs: 80 };
trace.prose(
  t(
    `{agents} agents start at once, each wanting one POST served. The server needs {service} ms per
    request and answers 503 at once to whatever arrives meanwhile (no queue, no Retry-After); the
    agent sleeps its backoff (base {base} ms, cap {cap} ms) and tries again. Multiply every time by
    {factor} for a real service. Which requests collide depends on when the event loop delivers
    them: the counts vary a little from run to run, and are printed as measured.`,
    { agents, service, base: params.baseMs, cap: params.capMs, factor },
  ),
);

const live = { agents, params, serviceMs: service, maxAttempts: 30 };
const herds = await liveHerdRace(["exponential", "full"], { ...live, seed }, (row) =>
  trace.event("server", liveHerdLine(row, agents), row.served === agents ? "ok" : "bad"),
);
const arrivals = bucketSparklines(
  herds.map((h) => ({ name: h.row.strategy, timesMs: h.result.arrivals.map((a) => a.atMs) })),
  10,
);
trace.line();
indent(
  t(
    "Requests reaching the server, per 10 ms bucket (one scale for both rows; the peak is {peak})",
    {
      peak: arrivals.peak,
    },
  ),
);
indent([...arrivals.rows, arrivals.axis].join("\n"));
trace.line();
const table = liveHerdTable(herds.map((h) => h.row));
trace.table(table.header, table.rows);
trace.line();
indent(t("Turned away while serving each request, in order:"));
for (const { row } of herds) indent(`${row.strategy.padEnd(11)} ${row.perService.join(" · ")}`);
const [expo, full] = [herds[0]!.row, herds[1]!.row];
trace.prose(
  t(
    `Each time the server served one request it turned away whoever else arrived in those {service}
    ms. Under exponential backoff the agents refused together sleep the same time and come back
    together: one of the wave is served, the rest refused again, and the wait doubles; a clean run
    shows {clean}, one agent a wave. Full jitter should scatter each wave, so that the server more
    often finds a retry on its own. {reading}`,
    { service, clean: cleanWaves(agents), reading: liveHerdReading(expo, full, flags.runs) },
  ),
);

// The simulator's numbers are the same for the same seed; the HTTP counts are as measured.
trace.section(t("What this run measured"));
const measured = measuredTable(rows, N, [expo, full], agents);
trace.table(measured.header, measured.rows);
trace.prose(
  t(`Exponential backoff decides how fast one client slows down; jitter decides whether many
  clients stay in step. Use both, with a large jitter (full jitter) by default. Explore the
  simulator with npm run herd (for the blog's sweep: npm run herd -- --clients
  10,20,30,40,50,60,70,80,90,100,110,120,130,140,150,160,170,180,190), or this lesson with --clients
  and --runs. Next: how many times to retry (lesson 03). Exercises 02a (Codex's backoff) and 02b
  (full and decorrelated jitter): npm run check 2.`),
);
