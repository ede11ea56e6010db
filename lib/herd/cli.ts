/**
 * `npm run herd`: the thundering-herd simulator from the command line. Runs every chosen strategy at
 * every chosen client count and prints tables and charts of the mean calls and completion time, or
 * with `--csv` one CSV row per point.
 */

import { type BackoffParams, HERD_PARAMS } from "../client/backoff.ts";
import { parseCommand, runMain, UsageError } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
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

const OPTIONS = {
  clients: { type: "string" },
  runs: { type: "string" },
  seed: { type: "string" },
  strategies: { type: "string" },
  base: { type: "string" },
  cap: { type: "string" },
  "latency-mean": { type: "string" },
  "latency-sd": { type: "string" },
  threads: { type: "string" },
  csv: { type: "boolean" },
  svg: { type: "string" },
} as const;

/** The command line and its help, in the process's language. */
function commandSpec() {
  return {
    usage: "npm run herd -- [options]",
    description: t(`The thundering-herd simulator (AWS Architecture Blog, "Exponential Backoff And
Jitter", 2015): N clients read a version and write it back; a write whose version moved fails, and
the client backs off and tries again. Prints the mean write calls and completion time per strategy.`),
    options: OPTIONS,
    optionHelp: {
      clients: t(
        "client counts, comma-separated (default {clients}; the blog's sweep is 10,20,...,190)",
        { clients: DEFAULT_CLIENTS.join(",") },
      ),
      runs: t("runs per point, averaged (default {runs})", { runs: DEFAULT_RUNS }),
      seed: t("seed; the same seed prints the same numbers (default {seed})", {
        seed: DEFAULT_SEED,
      }),
      strategies: t("comma-separated (default all): {strategies}", {
        strategies: HERD_STRATEGIES.join(", "),
      }),
      base: t("backoff base, ms (default {ms}, as in the original)", { ms: HERD_PARAMS.baseMs }),
      cap: t("backoff cap, ms (default {ms})", { ms: HERD_PARAMS.capMs }),
      "latency-mean": t("one-way network latency's mean, ms (default {ms})", {
        ms: HERD_LATENCY.meanMs,
      }),
      "latency-sd": t(
        "its standard deviation, ms (default {ms}); a hop takes |Normal(mean, sd)| ms",
        { ms: HERD_LATENCY.sdMs },
      ),
      threads: t("threads to use (default: one per core)"),
      csv: t("print CSV: strategy,clients,calls,completion_ms"),
      svg: t(
        `also write the charts as SVG files into this folder (created if missing):
        herd-calls.svg, herd-completion.svg, herd-write-times.svg`,
      ),
    },
  };
}

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
}

function positiveInteger(flag: string, text: string, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new UsageError(
      t('{flag} must be an integer from 1 to {max}, got "{text}"', {
        flag,
        max: formatNumber(max),
        text,
      }),
    );
  }
  return Number(text);
}

function parseOptions(argv: string[]): Options {
  const { values } = parseCommand(commandSpec(), argv);
  const clients =
    values.clients === undefined
      ? DEFAULT_CLIENTS
      : values.clients.split(",").map((part) => {
          const text = part.trim();
          if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_CLIENTS) {
            throw new UsageError(
              t(
                '--clients must be a comma-separated list of integers from 1 to {max} (e.g. 10,50,100), got "{value}"',
                { max: MAX_CLIENTS, value: values.clients },
              ),
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
              t('unknown strategy "{name}" (valid: {valid})', {
                name,
                valid: HERD_STRATEGIES.join(", "),
              }),
            );
          }
          return name;
        });

  let seed = DEFAULT_SEED;
  if (values.seed !== undefined) {
    if (!/^-?\d+$/.test(values.seed) || !Number.isSafeInteger(Number(values.seed))) {
      throw new UsageError(t('--seed must be an integer, got "{value}"', { value: values.seed }));
    }
    seed = Number(values.seed);
  }

  const params = {
    baseMs: msValue("--base", values.base, HERD_PARAMS.baseMs, false),
    capMs: msValue("--cap", values.cap, HERD_PARAMS.capMs, false),
  };
  if (params.capMs < params.baseMs)
    throw new UsageError(
      t('--cap must be at least --base ({base}), got "{cap}"', {
        base: params.baseMs,
        cap: values.cap,
      }),
    );
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
  };
}

/** A duration flag in ms: a decimal number, above 0 (or at least 0 if `zero`), at most 1 000 000. */
function msValue(flag: string, text: string | undefined, fallback: number, zero: boolean): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || n > 1_000_000 || (zero ? n < 0 : n <= 0)) {
    throw new UsageError(
      zero
        ? t('{flag} must be a number of ms from 0 up to 1,000,000, got "{text}"', { flag, text })
        : t('{flag} must be a number of ms above 0 up to 1,000,000, got "{text}"', { flag, text }),
    );
  }
  return n;
}

/** The --svg value: a directory name (it need not exist yet). */
function svgDir(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "" || value.startsWith("-"))
    throw new UsageError(t('--svg takes a folder, got "{value}"', { value }));
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
    t(
      "Thundering herd: {strategies} strategies × {counts} client counts, {runs} runs each, seed {seed} ({ms} ms)",
      {
        strategies: options.strategies.length,
        counts: options.clients.length,
        runs: options.runs,
        seed: options.seed,
        ms: formatNumber(elapsedMs),
      },
    ),
  );
  for (const block of sweepBlocks(rows)) out.push("", block.title, block.body);
  out.push("", t("Calls at {n} clients", { n: largest }), sweepBars(rows, "calls", largest));
  out.push(
    "",
    t("Completion time at {n} clients", { n: largest }),
    sweepBars(rows, "completionMs", largest, " ms"),
  );

  // When the writes reach the server: waves without jitter, a spread with it.
  out.push(
    "",
    t("When the write calls reach the server, {clients} clients, first {ms} ms", {
      clients: writeTimes.clients,
      ms: formatNumber(writeTimes.untilMs),
    }),
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

async function main(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
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
    const note = `\n${t("SVG files written:")}\n${written.map((p) => `  ${p}\n`).join("")}`;
    (options.csv ? process.stderr : process.stdout).write(note);
  }
}

runMain(() => main(process.argv.slice(2)));
