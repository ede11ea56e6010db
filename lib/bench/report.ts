/**
 * The benchmark's tables, goal lines and throughput bars, from measured results only: pure
 * functions that return strings (the SVG one a document).
 */
import { barChartSvg } from "../charts/charts-svg.ts";
import { formatNumber, table } from "../herd/charts.ts";
import type { VariantName } from "../tracker/variant.ts";
import type { SweepSpeed } from "./herd-speed.ts";
import type { IdempotencyBench, TargetResult } from "./idempotency.ts";

/** The goals of the benchmark issue. */
export const GOALS = {
  /** The original's sweep, wall time on all cores, ms: "well under 2 s". */
  sweepMs: 2000,
  /** keyed and fenced POSTs with fresh keys, relative to naive. */
  keyedVsNaive: 0.85,
  /** Replays of a completed key, relative to naive. */
  replayVsNaive: 1,
} as const;

const ms = (value: number): string =>
  formatNumber(value, value < 10 ? 2 : value < 100 ? 1 : 0, true);
const ratio = (value: number): string => formatNumber(value, 2, true);

/** A rate with M or k, e.g. "54.7 M". */
function rate(perSecond: number): string {
  if (perSecond >= 1e6) return `${formatNumber(perSecond / 1e6, 1, true)} M`;
  return formatNumber(perSecond);
}

/** The herd table, its definition of events and the goal line. */
export function herdSpeedReport(rows: readonly SweepSpeed[], rounds: number): string {
  const sweep = rows.find((r) => r.threads > 1) ?? rows[0]!;
  const body = rows.map((r) => [
    r.label,
    String(r.threads),
    `${ms(r.medianMs)} ms`,
    `${ms(r.cpuMs)} ms`,
    formatNumber(r.calls),
    formatNumber(r.events),
    rate(r.eventsPerSecond),
  ]);
  const lines = [
    `Herd simulator: ${sweep.work} (the AWS original's sweep, N = 10..190 step 10)`,
    `median of ${rounds} round${rounds === 1 ? "" : "s"} after a warm-up`,
    table(["loop", "threads", "wall time", "CPU time", "write calls", "events", "events/s"], body),
    "events: the messages of the original's literal model, 4 per write call (the read, its reply, the",
    "write, its reply): what the literal loop processes one by one. The write-only loop computes the",
    "same runs with one heap event per write; it is counted in the literal model's messages too.",
    "CPU time: all threads of the process; wall time well above CPU time / threads means the cores",
    "were busy with something else meanwhile.",
  ];
  const literal = rows.find((r) => r.label.startsWith("literal"));
  if (literal !== undefined && sweep !== literal) {
    lines.push(
      `At its rate the literal loop would take ${formatNumber(sweep.events / literal.eventsPerSecond, 1)} s for the whole sweep on one thread.`,
    );
  }
  const met = sweep.medianMs < GOALS.sweepMs;
  lines.push(
    `Goal, the sweep well under ${formatNumber(GOALS.sweepMs / 1000)} s: ${ms(sweep.medianMs)} ms on ${sweep.threads} thread${sweep.threads === 1 ? "" : "s"}: ${met ? "met" : "MISSED"}.`,
  );
  return lines.join("\n");
}

function find(
  bench: IdempotencyBench,
  server: string,
  keys: "fresh" | "replay",
  synchronous = "NORMAL",
): TargetResult | undefined {
  return bench.results.find(
    (r) =>
      r.target.server === server && r.target.keys === keys && r.target.synchronous === synchronous,
  );
}

/** The throughput table: each row against the ceiling and against naive. */
export function idempotencyReport(
  bench: IdempotencyBench,
  variants: readonly VariantName[],
): string {
  const { spec } = bench;
  const ceiling = find(bench, "ceiling", "fresh");
  const naive = find(bench, "naive", "fresh");
  const main = bench.results.filter((r) => r.target.synchronous === "NORMAL");
  const body = main.map((r) => [
    r.target.name,
    formatNumber(r.perSecond),
    ceiling ? ratio(r.perSecond / ceiling.perSecond) : "",
    naive ? ratio(r.perSecond / naive.perSecond) : "",
    ms(r.p50Ms),
    ms(r.p99Ms),
    formatNumber(r.cpuMicrosPerRequest),
    naive ? ratio(naive.cpuMicrosPerRequest / r.cpuMicrosPerRequest) : "",
    `${formatNumber(r.spread[0])}-${formatNumber(r.spread[1])}`,
  ]);
  const lines = [
    `What idempotency costs: POST /reports over loopback, ${spec.concurrency} connections, each server in a child process`,
    `median of ${spec.rounds} round${spec.rounds === 1 ? "" : "s"} of ${formatNumber(spec.roundMs)} ms per row after ${formatNumber(spec.warmupMs)} ms of warm-up; SQLite files on ${bench.fileSystem}`,
    table(
      [
        "server",
        "requests/s",
        "× ceiling",
        "× naive",
        "p50 ms",
        "p99 ms",
        "server CPU µs/req",
        "CPU × naive",
        "rounds, req/s",
      ],
      body,
    ),
    "server CPU µs/req: CPU time of the server's process per request (user + system), a figure that",
    "depends less than requests/s on what else the machine is doing. CPU × naive: naive's CPU per",
    "request over this row's, the throughput ratio a server that has a core to itself would show.",
    ...goalLines(bench, variants),
    ...checkLines(bench),
  ];
  return lines.join("\n");
}

function goalLines(bench: IdempotencyBench, variants: readonly VariantName[]): string[] {
  const naive = find(bench, "naive", "fresh");
  if (!naive) return ["Goals: no naive row to compare with."];
  const lines: string[] = [];
  for (const v of ["keyed", "fenced"] as const) {
    if (!variants.includes(v)) {
      lines.push(
        `Goal, ${v} ≥ ${GOALS.keyedVsNaive}× naive: ${v} is not built in this checkout (variants: ${variants.join(", ")}), not measured.`,
      );
      continue;
    }
    for (const [keys, goal, what] of [
      ["fresh", GOALS.keyedVsNaive, "fresh keys"],
      ["replay", GOALS.replayVsNaive, "replays"],
    ] as const) {
      const r = find(bench, v, keys);
      if (!r) continue;
      const x = r.perSecond / naive.perSecond;
      const cpu = naive.cpuMicrosPerRequest / r.cpuMicrosPerRequest;
      lines.push(
        `Goal, ${v} ${what} ≥ ${goal}× naive: ${ratio(x)}×: ${x >= goal ? "met" : "MISSED"} (by CPU per request: ${ratio(cpu)}×).`,
      );
    }
  }
  return lines;
}

function checkLines(bench: IdempotencyBench): string[] {
  const bad = bench.results.filter((r) => r.problems.length > 0);
  if (bad.length === 0) {
    return [
      "Checked afterwards: every answer was a 201; fresh keys stored one report per request; a replayed",
      "key stored none after its first, and every replay carried Idempotent-Replayed: true.",
    ];
  }
  return bad.map((r) => `CHECK FAILED, ${r.target.name}: ${r.problems.join("; ")}`);
}

/** FULL against NORMAL for keyed, with what each survives. */
export function durabilityReport(bench: IdempotencyBench): string {
  const normal = find(bench, "keyed", "fresh", "NORMAL");
  const full = find(bench, "keyed", "fresh", "FULL");
  if (!normal || !full)
    return "SQLite durability: not measured (no keyed variant in this checkout).";
  const row = (label: string, r: TargetResult): string[] => [
    label,
    `${r.journalMode ?? "?"} / ${r.synchronous ?? "?"}`,
    formatNumber(r.perSecond),
    ratio(r.perSecond / normal.perSecond),
    ms(r.p50Ms),
    ms(r.p99Ms),
  ];
  return [
    `SQLite durability: keyed, fresh keys, synchronous=NORMAL (the store's setting) against FULL (files on ${bench.fileSystem})`,
    table(
      ["setting", "journal / sync", "requests/s", "× NORMAL", "p50 ms", "p99 ms"],
      [row("NORMAL (the store's)", normal), row("FULL", full)],
    ),
    "Both keep the database consistent. In WAL mode NORMAL writes each commit to the WAL without an",
    "fsync; the WAL is synced at checkpoints. A process crash (kill -9) loses no committed report: the",
    "operating system already holds the write. A power loss or an OS crash may roll back the commits",
    "since the last sync. FULL syncs the WAL at every commit, so a commit survives a power loss too, at",
    "the cost measured above (SQLite documentation, PRAGMA synchronous). The store keeps NORMAL: the",
    "lessons kill processes; they do not cut the power.",
  ].join("\n");
}

/** The throughput bars: every row, with its spread over the rounds and its ratio to naive. */
export function throughputSvg(bench: IdempotencyBench): string {
  const naive = find(bench, "naive", "fresh");
  return barChartSvg({
    title: "What idempotency costs: POST /reports throughput",
    subtitle:
      `Requests per second over loopback, ${bench.spec.concurrency} connections; median of ${bench.spec.rounds} ` +
      `round${bench.spec.rounds === 1 ? "" : "s"}, thin line: lowest to highest round`,
    xLabel: "requests per second",
    items: bench.results.map((r) => ({
      label: r.target.name,
      value: r.perSecond,
      spread: r.spread,
      ...(naive && r.target.server !== "ceiling"
        ? { note: `· ${ratio(r.perSecond / naive.perSecond)}× naive` }
        : {}),
      ...(r.target.server === "ceiling" ? { color: "#999999" } : {}),
    })),
  });
}

/**
 * The PostgreSQL rows: each against naive on PostgreSQL, with the statements and commits per request
 * that the store counted as it sent them, and what each costs.
 */
export function postgresReport(bench: IdempotencyBench, server: string): string {
  const { spec } = bench;
  const on = (r: TargetResult): boolean => r.target.postgres?.synchronousCommit === "on";
  const naive = bench.results.find((r) => r.target.server === "naive" && on(r));
  const per = (value: number | undefined): string =>
    value === undefined ? "?" : formatNumber(value, 2, true);
  const body = bench.results.map((r) => [
    r.target.name.replace(/^postgres: /, ""),
    formatNumber(r.perSecond),
    naive ? ratio(r.perSecond / naive.perSecond) : "",
    ms(r.p50Ms),
    ms(r.p99Ms),
    formatNumber(r.cpuMicrosPerRequest),
    per(r.roundTripsPerRequest),
    per(r.commitsPerRequest),
    `${formatNumber(r.spread[0])}-${formatNumber(r.spread[1])}`,
  ]);
  const settings = [
    ...new Set(bench.results.map((r) => `${r.journalMode ?? "?"}, ${r.synchronous ?? "?"}`)),
  ].join("; ");
  const lines = [
    `The same on PostgreSQL (${server}): POST /reports, ${spec.concurrency} connections, each tracker in a child process on a schema of its own`,
    `median of ${spec.rounds} round${spec.rounds === 1 ? "" : "s"} of ${formatNumber(spec.roundMs)} ms per row after ${formatNumber(spec.warmupMs)} ms of warm-up; settings read back: ${settings}`,
    table(
      [
        "tracker on PostgreSQL",
        "requests/s",
        "× naive",
        "p50 ms",
        "p99 ms",
        "tracker CPU µs/req",
        "round trips/req",
        "commits/req",
        "rounds, req/s",
      ],
      body,
    ),
    "× naive: against naive on PostgreSQL, measured in the same rounds. round trips and commits: counted by",
    "the store as it sent them. naive sends one INSERT (autocommit: one commit). keyed and fenced with a",
    "fresh key send the claim (INSERT … ON CONFLICT DO NOTHING RETURNING fence, one commit), then BEGIN,",
    "INSERT report, UPDATE key, COMMIT: five round trips, two commits, each commit waiting for its WAL",
    "flush (an fsync) while synchronous_commit=on. A replay sends the claim, which finds the key and writes",
    "nothing, and a SELECT of the stored answer. synchronous_commit=off answers before the flush: an",
    "operating system or database crash may then lose the commits answered in up to the last",
    "3 × wal_writer_delay (600 ms at its default of 200 ms), never half of one (PostgreSQL",
    'documentation, synchronous_commit and "Asynchronous Commit"); the tracker\'s own crash loses',
    "nothing either way.",
    ...checkLines(bench),
  ];
  return lines.join("\n");
}
