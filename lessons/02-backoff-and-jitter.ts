/**
 * @title How long to wait: backoff and jitter
 * @summary Exponential backoff slows one client down; only large jitter breaks up a herd of clients that failed together.
 * @run npm run lesson 2
 * @exercise 02a
 * @exercise 02b
 * @resource AWS Architecture Blog, "Exponential Backoff And Jitter" (Marc Brooker, 2015): https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
 * @resource The blog's simulator: https://github.com/aws-samples/aws-arch-backoff-simulator (ported in lib/herd/simulator.ts)
 * @resource openai/codex `codex-rs/core/src/util.rs`, `backoff()` (the course cites `codex-rs/async-utils/src/backoff.rs`, a newer layout)
 * @resource anthropic-sdk-python `src/anthropic/_base_client.py`, `_calculate_retry_timeout`, and `src/anthropic/_constants.py`
 *
 * What you will see: the six waiting rules the course compares, as formulas and then as schedules
 * computed by lib/client/backoff.ts for retries 1 to 8 (the range of each wait and one seeded draw).
 * Then why ±10 % of jitter spaces out one client but not a crowd, the blog's thundering-herd simulator
 * run live (calls and completion time per strategy, as tables, charts and a histogram of when the
 * writes land), the blog's conclusions checked one by one against this run's numbers, and the same herd
 * over real HTTP: ten agents against one `node:http` server that can serve one request at a time.
 */
import {
  anthropicSdkDelayMs,
  type BackoffParams,
  codexBackoffMs,
  delayBounds,
  exponentialMs,
  fullJitterMs,
  HERD_PARAMS,
  makeBackoff,
  type StrategyName,
} from "../lib/client/backoff.ts";
import { exitOnUsageError, intFlag, intListFlag, lessonSetup } from "../lib/core/cli.ts";
import { seeded } from "../lib/core/random.ts";
import { displayWidth } from "../lib/core/text.ts";
import {
  bucketCounts,
  formatNumber,
  sparkline,
  sweepChart,
  sweepTable,
  writeTimeHistogram,
} from "../lib/herd/charts.ts";
import { simulateManyParallel } from "../lib/herd/parallel.ts";
import {
  HERD_STRATEGIES,
  type HerdStrategy,
  LATENCY_MEAN_MS,
  LATENCY_SD_MS,
  type PointResult,
  simulatePoint,
} from "../lib/herd/simulator.ts";
import { writeHerdSvgs } from "../lib/herd/svg.ts";
import {
  type LiveHerdResult,
  liveHerdReading,
  refusedPerService,
  runLiveHerd,
} from "../lib/overload/live-herd.ts";

const DEFAULT_CLIENTS = [10, 50, 100];
const DEFAULT_RUNS = 100;
const { trace, seed, values, heading } = lessonSetup(import.meta, {
  options: { clients: { type: "string" }, runs: { type: "string" }, svg: { type: "string" } },
  optionHelp: {
    svg: "also write the charts as SVG files into this folder (herd-calls, herd-completion, herd-write-times)",
    clients: `client counts for the herd simulator, comma-separated (default ${DEFAULT_CLIENTS.join(",")}; the blog's sweep is 10,20,...,190)`,
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

/** A wait for a table: whole milliseconds from 100 up, one decimal below. */
const ms = (x: number): string => formatNumber(x, x >= 100 ? 0 : 1);
const pct = (part: number, whole: number): string => `${formatNumber((100 * part) / whole, 0)} %`;
const times = (a: number, b: number): string => `${formatNumber(a / b, 1)}×`;

trace.title(heading);
trace.prose(`Lesson 01 asked whether a retry is safe. This one asks when to send it. Retry at once and a server
  that is struggling gets the same load again; wait the same time as everybody else and it gets the load
  again a little later, all at once. Every number below is computed by the code in lib/ as this lesson
  runs; seed ${seed}.`);

// ## The formulas
// The course compares four rules from the AWS Architecture Blog with the two that real LLM clients
// use. v_n is the capped exponential for retry n; the blog's simulator starts at n = 1, so the first
// exponential wait is 2 × base.
trace.section("The formulas");
trace.table(
  ["strategy", "wait before retry n", "source"],
  [
    ["exponential", "v_n = min(cap, base × 2^n), no jitter", "AWS blog ¹"],
    ["full", "uniform(0, v_n)", "AWS blog ¹"],
    ["equal", "v_n/2 + uniform(0, v_n/2)", "AWS blog ¹"],
    ["decorrelated", "s_n = min(cap, uniform(base, 3 × s_(n−1))), s_0 = base", "AWS blog ¹"],
    ["codex", "200 ms × 2^(n−1) × uniform[0.9, 1.1), no cap", "openai/codex ²"],
    ["anthropic-sdk", "min(0.5 s × 2^k, 8 s) × (1 − 0.25 r), k = n − 1", "anthropic-sdk-python ³"],
  ],
);
trace.prose(`¹ AWS Architecture Blog, "Exponential Backoff And Jitter" (Marc Brooker, 2015), and its simulator
  (aws-samples/aws-arch-backoff-simulator).`);
// ² Read in upstream openai/codex, codex-rs/core/src/util.rs (INITIAL_DELAY_MS = 200, BACKOFF_FACTOR =
// 2.0, jitter `random_range(0.9..1.1)`). The course cites codex-rs/async-utils/src/backoff.rs (lines
// 12-17), a newer layout of the same function that only recent forks show.
trace.prose(`² backoff() in openai/codex (codex-rs/core/src/util.rs): it starts at 200 ms, doubles for each retry,
  and multiplies by a random factor from 0.9 up to (not including) 1.1, truncated to whole milliseconds;
  attempt 0 waits like attempt 1.`);
trace.prose(`³ _calculate_retry_timeout in src/anthropic/_base_client.py, constants INITIAL_RETRY_DELAY = 0.5 and
  MAX_RETRY_DELAY = 8.0 in _constants.py. k counts the retries already made (nb_retries), so the first retry
  has k = 0; r is random() in [0, 1), so the jitter only ever shortens the wait. (The code's comment says
  "plus-or-minus half a second"; the code does not do that.)`);

// ## The AWS four, retry by retry
// The blog's simulator uses base = 5 ms and cap = 2000 ms; so do we. Each cell shows the range a wait
// can fall in (delayBounds) and then one client's seeded draw (makeBackoff). Decorrelated jitter has
// no fixed range per retry: its range grows with the previous wait, so the cell shows every wait any
// history could produce, from base to min(cap, base × 3^n).
trace.section("The AWS four, retry by retry (base 5 ms, cap 2000 ms)");
const RETRIES = 8;
const AWS_FOUR = ["exponential", "full", "equal", "decorrelated"] as const;
const range = (lo: number, hi: number): string => (lo === hi ? ms(lo) : `${ms(lo)}–${ms(hi)}`);
const samples = (name: StrategyName, params: BackoffParams): number[] => {
  const client = makeBackoff(name, params, random);
  return Array.from({ length: RETRIES }, (_, i) => client.nextDelayMs(i + 1));
};
const awsSamples = AWS_FOUR.map((name) => samples(name, HERD_PARAMS));
trace.table(
  ["n", "exponential = v_n", ...AWS_FOUR.slice(1)],
  Array.from({ length: RETRIES }, (_, i) => [
    `n = ${i + 1}`,
    ...AWS_FOUR.map((name, j) => {
      const b = delayBounds(name, i + 1, HERD_PARAMS);
      return name === "exponential"
        ? ms(b.lowMs)
        : `${range(b.lowMs, b.highMs)} → ${ms(awsSamples[j]![i]!)}`;
    }),
  ]),
);
trace.prose(`All in ms; a jittered cell is its range, then one seeded draw. Exponential doubles from ${ms(exponentialMs(1, HERD_PARAMS))} ms, 2 × base,
  because the blog's simulator counts the first retry as n = 1 (aws-samples/aws-arch-backoff-simulator), and
  stops at the cap. Full jitter can come back after almost nothing or after nearly v_n: its average is v_n/2.
  Equal jitter never waits less than half of v_n. Decorrelated jitter ignores n and grows from its own
  previous wait: its next wait is drawn from base to 3 × the previous one, so its cell shows instead the
  widest range any history could reach by retry n, from base to min(cap, base × 3^n).`);

// ## Codex and the Anthropic SDK, retry by retry
// The real clients' own constants. Retries 1 to 8 show the formulas; by default Codex's sampling
// layer stops after 5 retries (DEFAULT_STREAM_MAX_RETRIES = 5) and the SDK after 2
// (DEFAULT_MAX_RETRIES = 2).
trace.section("Codex and the Anthropic SDK, retry by retry");
const codexSamples = Array.from({ length: RETRIES }, (_, i) => codexBackoffMs(i + 1, random));
const sdkSamples = Array.from({ length: RETRIES }, (_, i) => anthropicSdkDelayMs(i, random));
const codex = Array.from({ length: RETRIES }, (_, i) => delayBounds("codex", i + 1, HERD_PARAMS));
const sdk = Array.from({ length: RETRIES }, (_, i) =>
  delayBounds("anthropic-sdk", i + 1, HERD_PARAMS),
);
trace.table(
  ["retry", "codex range", "codex draw", "sdk k", "sdk nominal", "sdk range", "sdk draw"],
  Array.from({ length: RETRIES }, (_, i) => [
    `retry ${i + 1}`,
    range(codex[i]!.lowMs, codex[i]!.highMs),
    ms(codexSamples[i]!),
    String(i),
    ms(sdk[i]!.nominalMs!),
    range(sdk[i]!.lowMs, sdk[i]!.highMs),
    ms(sdkSamples[i]!),
  ]),
);
const c4 = codex[3]!;
const s4 = sdk[3]!;
const signed = (x: number): string =>
  `${x > 0 ? "+" : x < 0 ? "−" : ""}${formatNumber(Math.abs(x), 0)} %`;
const spread = (b: typeof c4): string =>
  `${signed((100 * (b.lowMs - b.nominalMs!)) / b.nominalMs!)} to ${signed((100 * (b.highMs - b.nominalMs!)) / b.nominalMs!)}`;
trace.prose(`All in ms. Codex's jitter keeps each wait within ${spread(c4)} of its nominal wait (the 4th retry: ${ms(c4.lowMs)} to
  ${ms(c4.highMs)} ms). Codex's nominal waits, without jitter, are left out on purpose: exercise 02a asks you
  to compute them. The SDK's 4th retry (k = 3) waits
  from ${spread(s4)} of ${ms(s4.nominalMs!)} ms: down only, by at most a quarter. Codex has no cap (retry 8 already waits
  ${range(codex[7]!.lowMs, codex[7]!.highMs)} ms); the SDK stops doubling at 8 s.`);

// ## Small jitter spaces one client, not a crowd
// A thundering herd: many clients fail at the same instant (the server dropped them all) and retry.
// Here 100 clients each draw the wait before their first retry, with the real functions, and we
// count when the retries land, in 10 ms buckets. Full jitter is given the same nominal 200 ms as
// Codex (v_1 = 200 ms), so only the amount of jitter differs.
trace.section("Small jitter spaces one client, not a crowd");
const CROWD = 100;
const WINDOW_MS = 520;
const BUCKET_MS = 10;
const V200: BackoffParams = { baseMs: 100, capMs: 20_000 }; // v_1 = 200 ms
const crowd: { name: string; nominalMs: number; waits: number[] }[] = [
  {
    name: "no jitter",
    nominalMs: 200,
    waits: Array.from({ length: CROWD }, () => exponentialMs(1, V200)),
  },
  {
    name: "codex ±10 %",
    nominalMs: 200,
    waits: Array.from({ length: CROWD }, () => codexBackoffMs(1, random)),
  },
  {
    name: "anthropic-sdk −25 %",
    nominalMs: 500,
    waits: Array.from({ length: CROWD }, () => anthropicSdkDelayMs(0, random)),
  },
  {
    name: "full jitter",
    nominalMs: 200,
    waits: Array.from({ length: CROWD }, () => fullJitterMs(1, V200, random)),
  },
];
const crowdCounts = crowd.map((c) => bucketCounts(c.waits, WINDOW_MS, WINDOW_MS / BUCKET_MS));
const crowdPeak = Math.max(...crowdCounts.flat());
const nameWidth = Math.max(...crowd.map((c) => c.name.length));
const widths = crowd.map((c) => Math.max(...c.waits) - Math.min(...c.waits));
const busiest = crowdCounts.map((c) => Math.max(...c));
const crowdNotes = crowd.map(
  (c, i) =>
    `all ${CROWD} within ${ms(widths[i]!)} ms (${pct(widths[i]!, c.nominalMs)} of ${c.nominalMs}); busiest ${BUCKET_MS} ms: ${busiest[i]}`,
);
const crowdRows = crowd.map(
  (c, i) => `  ${c.name.padEnd(nameWidth)} │${sparkline(crowdCounts[i]!, crowdPeak)}│`,
);
// Each row's numbers go beside it when the terminal is wide enough, else in a list under the chart.
const beside = crowdRows.every((r, i) => displayWidth(`${r} ${crowdNotes[i]}`) <= trace.width);
for (const [i, r] of crowdRows.entries()) trace.line(beside ? `${r} ${crowdNotes[i]}` : r);
trace.line(`  ${" ".repeat(nameWidth)}  0${`${WINDOW_MS} ms`.padStart(WINDOW_MS / BUCKET_MS - 1)}`);
trace.line(
  `  ${" ".repeat(nameWidth)}  (first retries of ${CROWD} clients that failed together, per ${BUCKET_MS} ms bucket; one scale for all rows)`,
);
if (!beside)
  for (const [i, c] of crowd.entries())
    trace.line(`  ${c.name.padEnd(nameWidth)}  ${crowdNotes[i]}`);
trace.prose(`Codex's ±10 % turns one spike of ${busiest[0]} retries into a bump ${ms(widths[1]!)} ms wide, ${pct(widths[1]!, 200)} of its 200 ms wait, still
  ${busiest[1]} in the busiest ${BUCKET_MS} ms. The SDK's quarter, downwards only, spreads them over ${ms(widths[2]!)} ms of its 500 ms wait. Full
  jitter, given the same 200 ms as Codex, uses all of it: ${busiest[3]} at most in ${BUCKET_MS} ms. What the small jitter buys is a floor for each client: Codex never waits less than
  90 % of its nominal wait, the SDK never less than 75 %, so one client cannot come back too soon, and its
  waits keep doubling. What it cannot do is pull apart clients that failed together: they come back within
  a fraction of the wait, collide again, and the survivors of that collision are bunched once more. Full
  jitter gives up the floor (a wait can be close to 0) to spread the crowd. The simulator shows what each
  choice costs.`);

// ## The thundering-herd simulator
// A port of the blog's simulator (lib/herd/simulator.ts). N clients start at once; each reads a
// row's version and writes it back; a write whose version moved meanwhile fails, and that client
// backs off and starts again with a read. Synthetic time, no real network: every hop takes
// |Normal(10, 2)| ms. "Calls" counts writes, the work the server does; "completion" is when the last
// client has written. Each point is the mean of --runs runs with its own seed, computed on every core.
trace.section("The thundering-herd simulator");
trace.prose(`${flags.clients.join(", ")} clients; ${flags.runs} runs per point; one-way latency |Normal(${LATENCY_MEAN_MS}, ${LATENCY_SD_MS})| ms;
  base ${HERD_PARAMS.baseMs} ms, cap ${HERD_PARAMS.capMs} ms. codex-capped is the course's "Codex amplitude": v_n × uniform(0.9, 1.1),
  the same cap, so that only the size of the jitter differs from exponential.`);
const rows = await simulateManyParallel({
  strategies: HERD_STRATEGIES,
  clients: flags.clients,
  runs: flags.runs,
  seed,
});
const indent = (text: string): void => {
  for (const l of text.split("\n")) trace.line(`  ${l}`);
};
trace.line();
indent("Write calls per run (mean): the work the server does");
indent(sweepTable(rows, "calls", 1));
trace.line();
indent("Completion time (mean, ms): until the last client has written");
indent(sweepTable(rows, "completionMs"));
if (flags.clients.length > 1) {
  trace.line();
  indent("Calls versus clients");
  indent(sweepChart(rows, "calls"));
  trace.line();
  indent("Completion time versus clients");
  indent(sweepChart(rows, "completionMs", " ms"));
}

// ## When the writes land
// One run at the largest client count, every write's arrival at the server counted in 50 ms
// buckets over the first 3 s: long enough for exponential's every doubling, up to the cap. Heights by
// the square root, so that the small buckets stay visible next to the first burst. On a terminal too
// narrow for 60 columns of chart (beside a name and its peak), the buckets are fewer and wider.
const N = flags.clients.at(-1)!;
const HIST_MS = 3000;
const HIST_BUCKETS = [60, 50, 40, 30].find((b) => 2 + 12 + 2 + b + 1 + 11 <= trace.width) ?? 20;
const histStrategies: HerdStrategy[] = ["no-backoff", "exponential", "codex-capped", "full"];
const writes = histStrategies.map((strategy) => ({
  name: strategy,
  timesMs:
    simulatePoint({ strategy, clients: N, runs: 1, seed, recordWriteTimes: true }).writeTimesMs ??
    [],
}));
trace.line();
indent(
  `When the write calls reach the server: ${N} clients, one run, the first ${formatNumber(HIST_MS)} ms`,
);
indent(writeTimeHistogram(writes, { untilMs: HIST_MS, buckets: HIST_BUCKETS, sqrt: true }));
const silent = writes.map((w) => {
  const counts = bucketCounts(w.timesMs, HIST_MS, HIST_BUCKETS);
  const last = counts.findLastIndex((c) => c > 0);
  return {
    name: w.name,
    silent: counts.slice(0, last + 1).filter((c) => c === 0).length,
    active: last + 1,
  };
});
const sOf = (name: string) => silent.find((s) => s.name === name)!;

// With `--svg <dir>` the same three charts are also written as SVG files, for a browser.
if (values.svg !== undefined) {
  const files = writeHerdSvgs(values.svg, rows, {
    clients: N,
    runs: 1,
    untilMs: HIST_MS,
    buckets: HIST_BUCKETS,
    series: writes,
  });
  indent(`SVG charts written: ${files.join(", ")}`);
}
trace.prose(`Without jitter the herd moves in waves: everyone who failed together sleeps the same 10, 20, 40, … ms
  and comes back together, and between the waves the server sits idle (exponential: ${sOf("exponential").silent} of its first
  ${sOf("exponential").active} buckets had no write at all; codex-capped: ${sOf("codex-capped").silent} of ${sOf("codex-capped").active}). Each wave is a small herd again, so
  only one of it gets through. Full jitter turns the waves into a steady trickle (${sOf("full").silent} silent of ${sOf("full").active}).
  No backoff hammers without pause until it is done.`);

// ## The blog's conclusions, checked against this run
// Each conclusion is tested against the numbers above, at the largest client count (the blog's
// claims are about many clients; at 10 clients the strategies are close), and printed with the
// numbers that support it, or flagged when this run does not.
trace.section(`The blog's conclusions, checked against this run (${N} clients)`);
const at = (strategy: HerdStrategy, n = N): PointResult =>
  rows.find((r) => r.strategy === strategy && r.clients === n)!;
const calls = (s: HerdStrategy): number => at(s).calls;
const time = (s: HerdStrategy): number => at(s).completionMs;
if (N < 10 || flags.runs < 30) {
  trace.prose(`With ${N} clients and ${flags.runs} runs per point the differences between the strategies are small next
    to the noise of the simulation; read these verdicts with care.`);
}
let supported = 0;
let checked = 0;
/** `holds` is undefined when this run cannot test the claim at all. */
const conclusion = (claim: string, holds: boolean | undefined, numbers: string): void => {
  if (holds !== undefined) checked++;
  if (holds === true) supported++;
  const mark =
    holds === undefined
      ? trace.style("yellow", "? not checked")
      : holds
        ? trace.style("green", "✓ supported")
        : trace.style("yellow", "✗ not supported by this run");
  trace.line(`  ${mark}  ${trace.style("bold", claim)}`);
  trace.prose(numbers);
};

const nLow = flags.clients[0]!;
if (nLow === N) {
  conclusion(
    "Without backoff, work grows much faster than N (the blog: roughly N²).",
    undefined,
    `Needs two client counts to compare; this run has only ${N} (try --clients 10,50,100).`,
  );
} else {
  const growth = at("no-backoff").calls / at("no-backoff", nLow).calls;
  const exponent = Math.log(growth) / Math.log(N / nLow);
  conclusion(
    "Without backoff, work grows much faster than N (the blog: roughly N²).",
    exponent >= 1.5,
    `no-backoff: ${formatNumber(at("no-backoff", nLow).calls, 1)} calls at ${nLow} clients, ${formatNumber(calls("no-backoff"), 1)} at ${N}: ×${formatNumber(growth, 1)} for
    ×${formatNumber(N / nLow, 1)} clients, i.e. like N^${formatNumber(exponent, 2)}: between linear (×${formatNumber(N / nLow, 1)}) and N² (×${formatNumber((N / nLow) ** 2, 0)}), so the check is that the
    exponent is at least 1.5, not that it is 2. Strict rounds,
    where all remaining clients collide every time, would give N(N+1)/2 = ${formatNumber((N * (N + 1)) / 2)}; the network's jitter
    spreads the clients a little and saves some of that.`,
  );
}
const saved = (s: HerdStrategy): number => calls("no-backoff") - calls(s);
conclusion(
  "Backoff without jitter barely helps with the work.",
  saved("exponential") < calls("exponential") - calls("full"),
  `exponential used ${pct(calls("exponential"), calls("no-backoff"))} of no-backoff's calls (${formatNumber(calls("exponential"), 1)} against
  ${formatNumber(calls("no-backoff"), 1)}); full jitter used ${pct(calls("full"), calls("no-backoff"))}. Exponential is closer to doing nothing than to full jitter.`,
);
const others = HERD_STRATEGIES.filter((s) => s !== "exponential");
const slowestJittered = Math.max(time("full"), time("equal"), time("decorrelated"));
conclusion(
  "Backoff without jitter is the clear loser on time.",
  others.every((s) => time("exponential") > time(s)) && time("exponential") >= 2 * slowestJittered,
  `exponential took ${formatNumber(time("exponential"))} ms to finish, the longest of all six: ${times(time("exponential"), time("full"))} full jitter's
  ${formatNumber(time("full"))} ms and ${times(time("exponential"), time("no-backoff"))} no-backoff's ${formatNumber(time("no-backoff"))} ms.`,
);
const fullEqualGap = Math.abs(calls("equal") - calls("full")) / calls("full");
conclusion(
  "Full and Equal jitter cost about the same work.",
  fullEqualGap <= 0.1,
  `full ${formatNumber(calls("full"), 1)} calls, equal ${formatNumber(calls("equal"), 1)}: ${pct(Math.abs(calls("equal") - calls("full")), calls("full"))} apart.`,
);
conclusion(
  "Decorrelated jitter costs somewhat more.",
  calls("decorrelated") > Math.max(calls("full"), calls("equal")),
  `decorrelated ${formatNumber(calls("decorrelated"), 1)} calls: ${pct(calls("decorrelated"), calls("full"))} of full's, ${pct(calls("decorrelated"), calls("equal"))} of equal's.`,
);
conclusion(
  "Equal jitter is the slowest of the jittered ones.",
  time("equal") > time("full") && time("equal") > time("decorrelated"),
  `completion: equal ${formatNumber(time("equal"))} ms, full ${formatNumber(time("full"))} ms, decorrelated ${formatNumber(time("decorrelated"))} ms.`,
);
conclusion(
  "Jittered backoff should be the default.",
  calls("full") < calls("exponential") &&
    calls("full") < calls("no-backoff") &&
    time("full") < time("exponential"),
  `full jitter used ${pct(calls("full"), calls("no-backoff"))} of no-backoff's calls and ${pct(calls("full"), calls("exponential"))} of exponential's, and finished in
  ${pct(time("full"), time("exponential"))} of exponential's time.`,
);
conclusion(
  "The course's point: ±10 % jitter does not break up the herd.",
  time("codex-capped") >= 1.5 * time("full") && calls("codex-capped") > calls("full"),
  `codex-capped (exponential × uniform(0.9, 1.1)) took ${formatNumber(time("codex-capped"))} ms, ${times(time("codex-capped"), time("full"))} full jitter's time, with
  ${pct(calls("codex-capped"), calls("full"))} of full's calls. It did better than no jitter (${pct(time("codex-capped"), time("exponential"))} of exponential's time), but
  nowhere near full jitter.`,
);
trace.line(`  ${supported} of ${checked} conclusions checked supported by this run.`);

// ## The herd over real HTTP
// The same story with real sockets. Ten agents start at the same instant, each wanting one POST
// served. The server (lib/overload/busy-server.ts) works on one request at a time: a request that
// arrives while it is free keeps it busy for 8 ms and gets 200; a request that arrives while it is busy
// gets 503 at once, with no queue and no Retry-After. That is the simulator's version conflict in HTTP
// form: of the requests that arrive together, one gets through. A 503 sends the agent to sleep for its
// backoff, then it tries again.
trace.section("The herd over real HTTP: ten agents, one busy server");
const AGENTS = 10;
const SERVICE_MS = 8;
const LIVE_PARAMS: BackoffParams = { baseMs: 5, capMs: 80 };
const REALISTIC = 20; // how much slower a real service would be
const live = { agents: AGENTS, params: LIVE_PARAMS, serviceMs: SERVICE_MS, maxAttempts: 30 };
trace.prose(`${AGENTS} agents; the server needs ${SERVICE_MS} ms per request and answers 503 to anything that arrives meanwhile;
  backoff base ${LIVE_PARAMS.baseMs} ms, cap ${LIVE_PARAMS.capMs} ms, slept on the real clock. These are lesson-sized times: multiply
  everything by ${REALISTIC} for a realistic service (base ${LIVE_PARAMS.baseMs * REALISTIC} ms, cap ${formatNumber((LIVE_PARAMS.capMs * REALISTIC) / 1000, 1)} s, ${SERVICE_MS * REALISTIC} ms of work). Which requests collide
  depends on when the event loop delivers them, so these counts vary a little from run to run: they are
  printed as measured.`);

// A first round, not counted: a fresh process spends its first milliseconds loading and compiling
// the HTTP code, which would smear the first wave of whichever strategy ran first.
await runLiveHerd({ ...live, strategy: "full", random: seeded(seed) });

const herds: LiveHerdResult[] = [];
for (const strategy of ["exponential", "full"] as const) {
  const r = await runLiveHerd({ ...live, strategy, random: seeded(seed) });
  herds.push(r);
  const served = r.agents.filter((a) => a.served).length;
  const refused = r.arrivals.filter((a) => a.status === 503).length;
  trace.event(
    "server",
    `${strategy}: ${r.arrivals.length} requests for ${AGENTS} agents; ${served} served, ${refused} answered 503`,
    served === AGENTS ? "ok" : "bad",
  );
}
const LIVE_BUCKET_MS = 10;
const liveUntil =
  Math.ceil(Math.max(...herds.flatMap((h) => h.arrivals.map((a) => a.atMs + 1))) / LIVE_BUCKET_MS) *
  LIVE_BUCKET_MS;
const liveCounts = herds.map((h) =>
  bucketCounts(
    h.arrivals.map((a) => a.atMs),
    liveUntil,
    liveUntil / LIVE_BUCKET_MS,
  ),
);
const livePeak = Math.max(...liveCounts.flat());
trace.line();
indent(
  `Requests arriving at the server, per ${LIVE_BUCKET_MS} ms bucket (one scale for both rows; the peak is ${livePeak})`,
);
for (const [i, h] of herds.entries())
  indent(`${h.strategy.padEnd(11)} │${sparkline(liveCounts[i]!, livePeak)}│`);
indent(
  `${" ".repeat(11)}  0${`${formatNumber(liveUntil)} ms`.padStart(Math.max(0, liveCounts[0]!.length - 1))}`,
);
const liveRows = herds.map((h) => ({
  strategy: h.strategy,
  requests: h.arrivals.length,
  refused: h.arrivals.filter((a) => a.status === 503).length,
  perService: refusedPerService(h.arrivals),
  maxAttempts: Math.max(...h.agents.map((a) => a.attempts)),
  doneMs: h.doneMs,
}));
trace.line();
trace.table(
  ["strategy", "requests", "503s", "most attempts by one agent", "all served after"],
  liveRows.map((r) => [
    r.strategy,
    String(r.requests),
    String(r.refused),
    String(r.maxAttempts),
    `${formatNumber(r.doneMs)} ms`,
  ]),
);
trace.line();
indent("Turned away while serving each request, in order:");
for (const r of liveRows) indent(`${r.strategy.padEnd(11)} ${r.perService.join(" · ")}`);
const [expo, full] = liveRows as [(typeof liveRows)[0], (typeof liveRows)[0]];
trace.prose(`Each time the server served one request it turned away whoever else arrived in those ${SERVICE_MS} ms. With
  exponential backoff the agents refused together sleep the same time and come back together: the wave
  returns whole, one of it is served, the rest are refused again, and the wait doubles. A clean run shows
  ${AGENTS - 1} · ${AGENTS - 2} · ${AGENTS - 3} · … · 0, one agent a wave. Full jitter should scatter each wave, so that after the
  first crowded moments the server finds a retry on its own more often. ${liveHerdReading(expo, full, flags.runs)} Here exponential took ${expo.requests} requests and ${formatNumber(expo.doneMs)} ms, full jitter ${full.requests} requests and
  ${formatNumber(full.doneMs)} ms.`);

// ## What this run measured
// The simulator's numbers are the same for the same seed; the HTTP counts are as measured.
trace.section("What this run measured");
const liveOf = (s: string) => liveRows.find((r) => r.strategy === s);
trace.table(
  [
    "strategy",
    `simulator, ${N} clients: calls`,
    "completion",
    `HTTP, ${AGENTS} agents: requests`,
    "all served after",
  ],
  HERD_STRATEGIES.map((s) => {
    const l = liveOf(s);
    return [
      s,
      formatNumber(calls(s), 1),
      `${formatNumber(time(s))} ms`,
      l ? String(l.requests) : "–",
      l ? `${formatNumber(l.doneMs)} ms` : "–",
    ];
  }),
);
trace.prose(`Exponential backoff decides how fast one client slows down; jitter decides whether many clients stay in
  step. Use both, with a large jitter (full jitter) by default. Explore the simulator with npm run herd (for
  the blog's sweep: npm run herd -- --clients 10,20,30,40,50,60,70,80,90,100,110,120,130,140,150,160,170,180,190),
  or this lesson with --clients and --runs. Next: how many times to retry (lesson 03). Exercises 02a
  (Codex's backoff) and 02b (full and decorrelated jitter): npm run check 2.`);
