/**
 * `npm run herd`: the thundering-herd simulator from the command line. Runs every chosen strategy at
 * every chosen client count and prints tables and charts of the mean calls and completion time, or
 * with `--csv` one CSV row per point.
 */

import { parseArgs } from "node:util";
import { type BackoffParams, HERD_PARAMS } from "../client/backoff.ts";
import { UsageError } from "../core/cli.ts";
import { terminalWidth, wrapKeepingSpaces } from "../core/text.ts";
import { formatNumber, sweepBars, writeTimeHistogram } from "./charts.ts";
import { herdCsv } from "./csv.ts";
import { simulateManyParallel } from "./parallel.ts";
import { sweepBlocks } from "./report.ts";
import {
  HERD_LATENCY,
  HERD_STRATEGIES,
  type HerdStrategy,
  isHerdStrategy,
  type LatencyParams,
  type PointResult,
  type SweepSpec,
} from "./simulator.ts";
import { writeHerdSvgs } from "./svg.ts";
import { type HerdWriteTimes, herdWriteTimes } from "./write-times.ts";

const DEFAULT_CLIENTS = [10, 50, 100];
const DEFAULT_RUNS = 100;
const DEFAULT_SEED = 1;
const MAX_CLIENTS = 1000;
const MAX_RUNS = 100_000;

const HELP = `Usage: npm run herd -- [options]

The thundering-herd simulator (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015):
N clients read a version and write it back; a write whose version moved fails, and the client
backs off and tries again. Prints the mean write calls and completion time per strategy.

Options:
  --clients <list>      client counts, comma-separated (default ${DEFAULT_CLIENTS.join(",")};
                        the blog's sweep is 10,20,...,190)
  --runs <n>            runs per point, averaged (default ${DEFAULT_RUNS})
  --seed <int>          seed; the same seed prints the same numbers (default ${DEFAULT_SEED})
  --strategies <list>   comma-separated (default all): ${HERD_STRATEGIES.slice(0, 3).join(", ")},
                        ${HERD_STRATEGIES.slice(3).join(", ")}
  --base <ms>            backoff base, ms (default ${HERD_PARAMS.baseMs}, as in the original)
  --cap <ms>             backoff cap, ms (default ${HERD_PARAMS.capMs})
  --latency-mean <ms>    one-way network latency's mean, ms (default ${HERD_LATENCY.meanMs})
  --latency-sd <ms>      its standard deviation, ms (default ${HERD_LATENCY.sdMs}); a hop takes
                         |Normal(mean, sd)| ms
  --threads <n>         threads to use (default: one per core)
  --csv                 print CSV: strategy,clients,calls,completion_ms
  --svg <dir>           also write the charts as SVG files into <dir> (created if
                        missing): herd-calls.svg, herd-completion.svg,
                        herd-write-times.svg
  --help                this text
`;

/** Bad command-line input: printed as one line, exit code 2. */

interface Options {
  clients: number[];
  runs: number;
  seed: number;
  strategies: HerdStrategy[];
  params: BackoffParams;
  latency: LatencyParams;
  threads: number | undefined;
  csv: boolean;
  svg: string | undefined;
  help: boolean;
}

function positiveInteger(flag: string, text: string, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new UsageError(
      `${flag} must be an integer from 1 to ${formatNumber(max)}, got '${text}'`,
    );
  }
  return Number(text);
}

function parseOptions(argv: string[]): Options {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        clients: { type: "string" },
        runs: { type: "string" },
        seed: { type: "string" },
        strategies: { type: "string" },
        threads: { type: "string" },
        base: { type: "string" },
        cap: { type: "string" },
        "latency-mean": { type: "string" },
        "latency-sd": { type: "string" },
        csv: { type: "boolean" },
        svg: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error))
      .split("\n")[0]!
      .replace(/\.$/, "");
    const message = first.charAt(0).toLowerCase() + first.slice(1);
    throw new UsageError(
      `${message} (valid: --clients, --runs, --seed, --strategies, --base, --cap, --latency-mean, --latency-sd, --threads, --csv, --svg, --help)`,
    );
  }

  const clients =
    values.clients === undefined
      ? DEFAULT_CLIENTS
      : values.clients.split(",").map((part) => {
          const text = part.trim();
          if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_CLIENTS) {
            throw new UsageError(
              `--clients must be a comma-separated list of integers from 1 to ${MAX_CLIENTS} ` +
                `(e.g. 10,50,100), got '${values.clients}'`,
            );
          }
          return Number(text);
        });

  const strategies =
    values.strategies === undefined
      ? [...HERD_STRATEGIES]
      : values.strategies.split(",").map((part) => {
          const name = part.trim();
          if (!isHerdStrategy(name)) {
            throw new UsageError(
              `unknown strategy '${name}' (valid: ${HERD_STRATEGIES.join(", ")})`,
            );
          }
          return name;
        });

  let seed = DEFAULT_SEED;
  if (values.seed !== undefined) {
    if (!/^-?\d+$/.test(values.seed) || !Number.isSafeInteger(Number(values.seed))) {
      throw new UsageError(`--seed must be an integer, got '${values.seed}'`);
    }
    seed = Number(values.seed);
  }

  const params = {
    baseMs: msValue("--base", values.base, HERD_PARAMS.baseMs, false),
    capMs: msValue("--cap", values.cap, HERD_PARAMS.capMs, false),
  };
  if (params.capMs < params.baseMs)
    throw new UsageError(`--cap must be at least --base (${params.baseMs}), got '${values.cap}'`);
  const latency = {
    meanMs: msValue("--latency-mean", values["latency-mean"], HERD_LATENCY.meanMs, false),
    sdMs: msValue("--latency-sd", values["latency-sd"], HERD_LATENCY.sdMs, true),
  };

  return {
    clients: [...new Set(clients)],
    runs:
      values.runs === undefined ? DEFAULT_RUNS : positiveInteger("--runs", values.runs, MAX_RUNS),
    seed,
    strategies: [...new Set(strategies)],
    params,
    latency,
    threads:
      values.threads === undefined ? undefined : positiveInteger("--threads", values.threads, 256),
    csv: values.csv === true,
    svg: svgDir(values.svg),
    help: values.help === true,
  };
}

/** A duration flag in ms: a decimal number, above 0 (or at least 0 if `zero`), at most 1 000 000. */
function msValue(flag: string, text: string | undefined, fallback: number, zero: boolean): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || n > 1_000_000 || (zero ? n < 0 : n <= 0)) {
    throw new UsageError(
      `${flag} must be a number of ms ${zero ? "from 0" : "above 0"} up to 1,000,000, got '${text}'`,
    );
  }
  return n;
}

/** The --svg value: a directory name (it need not exist yet). */
function svgDir(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "" || value.startsWith("-"))
    throw new UsageError(`--svg takes a directory, got '${value}'`);
  return value;
}

/** The data of the histogram: a few runs at the largest client count, every write time kept. */
function writeTimesFor(options: Options, rows: readonly PointResult[]): HerdWriteTimes {
  const clients = Math.max(...options.clients);
  const runs = Math.min(options.runs, 20);
  return herdWriteTimes({
    strategies: options.strategies,
    clients,
    runs,
    seed: options.seed,
    rows,
    params: options.params,
    latency: options.latency,
  });
}

function report(
  options: Options,
  rows: readonly PointResult[],
  writeTimes: HerdWriteTimes,
  elapsedMs: number,
): string {
  const out: string[] = [];
  const largest = Math.max(...options.clients);
  out.push(
    `Thundering herd: ${options.strategies.length} strategies × ${options.clients.length} client counts, ` +
      `${options.runs} runs each, seed ${options.seed} (${formatNumber(elapsedMs)} ms)`,
  );
  for (const block of sweepBlocks(rows)) out.push("", block.title, block.body);
  out.push("", `Calls at ${largest} clients`, sweepBars(rows, "calls", largest));
  out.push(
    "",
    `Completion time at ${largest} clients`,
    sweepBars(rows, "completionMs", largest, " ms"),
  );

  // When the writes reach the server: waves without jitter, a spread with it.
  out.push(
    "",
    `When the write calls reach the server, ${writeTimes.clients} clients, first ${formatNumber(writeTimes.untilMs)} ms`,
    writeTimeHistogram(writeTimes.series, {
      untilMs: writeTimes.untilMs,
      buckets: writeTimes.buckets,
      runs: writeTimes.runs,
      sqrt: true,
    }),
  );
  // A line too wide for the terminal (the title, a long option list) wraps under itself.
  const width = terminalWidth();
  return `${out
    .join("\n")
    .split("\n")
    .flatMap((l) => wrapKeepingSpaces(l, width))
    .join("\n")}\n`;
}

async function main(argv: string[]): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message} (try --help)\n`);
      return 2;
    }
    throw error;
  }
  if (options.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const started = performance.now();
  const spec: SweepSpec = {
    strategies: options.strategies,
    clients: options.clients,
    runs: options.runs,
    seed: options.seed,
  };
  // The original's values are left out of the spec, so the default run is exactly as before.
  if (options.params.baseMs !== HERD_PARAMS.baseMs || options.params.capMs !== HERD_PARAMS.capMs)
    spec.params = options.params;
  if (options.latency.meanMs !== HERD_LATENCY.meanMs || options.latency.sdMs !== HERD_LATENCY.sdMs)
    spec.latency = options.latency;
  const rows = await simulateManyParallel(
    spec,
    options.threads === undefined ? {} : { threads: options.threads },
  );
  const elapsedMs = performance.now() - started;
  let writeTimes: HerdWriteTimes | undefined;
  if (options.csv) process.stdout.write(herdCsv(rows));
  else {
    writeTimes = writeTimesFor(options, rows);
    process.stdout.write(report(options, rows, writeTimes, elapsedMs));
  }
  if (options.svg !== undefined) {
    const written = writeHerdSvgs(options.svg, rows, writeTimes ?? writeTimesFor(options, rows));
    // With --csv, stdout is the CSV alone; the list of files goes to stderr.
    const note = `\nSVG files written:\n${written.map((p) => `  ${p}\n`).join("")}`;
    (options.csv ? process.stderr : process.stdout).write(note);
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
