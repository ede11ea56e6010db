/**
 * The benchmark's tables, goal lines and throughput bars, from measured results only: pure
 * functions that return strings (the SVG one a document), in the run's language (t()) and fitted
 * to `width` columns by display width: paragraphs wrap between words, tables narrow their columns
 * (lib/core/trace.ts's table).
 */
import { barChartSvg } from "../charts/charts-svg.ts";
import { t } from "../core/i18n.ts";
import { displayWidth, terminalWidth, wrap } from "../core/text.ts";
import { Trace } from "../core/trace.ts";
import { formatNumber } from "../herd/charts.ts";
import type { SweepSpeed } from "./herd-speed.ts";
import type { IdempotencyBench, TargetResult } from "./idempotency.ts";

/** The goal of the benchmark issue that still stands beside the floor's (floor.ts). */
export const GOALS = {
  /** The original's sweep, wall time on all cores, ms: "well under 2 s". */
  sweepMs: 2000,
} as const;

const ms = (value: number): string =>
  formatNumber(value, value < 10 ? 2 : value < 100 ? 1 : 0, true);
const ratio = (value: number): string => formatNumber(value, 2, true);

/** A rate with M or k, e.g. "54.7 M". */
function rate(perSecond: number): string {
  if (perSecond >= 1e6) return `${formatNumber(perSecond / 1e6, 1, true)} M`;
  return formatNumber(perSecond);
}

/** A report's lines, fitted to a width: paragraphs wrapped between words, tables fitted. */
export class Report {
  readonly #lines: string[] = [];
  readonly #width: number;
  readonly #trace: Trace;

  constructor(width = terminalWidth()) {
    this.#width = width;
    this.#trace = new Trace({
      color: false,
      step: false,
      width,
      write: (line) => this.#lines.push(line),
    });
  }

  /** A paragraph, wrapped between words to the width. */
  para(text: string): this {
    this.#lines.push(...wrap(text, this.#width));
    return this;
  }

  /**
   * A table with a header row, its columns narrowed (and cells wrapped) to fit the width. A table
   * too wide to fit whole is printed as several, one per group of `split` (column numbers beside
   * the first, the row's label), so that no column is squeezed to a few characters.
   */
  table(header: string[], rows: string[][], split?: number[][]): this {
    const widths = header.map((h, i) =>
      Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ""))),
    );
    const natural = 2 + widths.reduce((a, b) => a + b, 0) + 5 * (header.length - 1);
    if (split === undefined || natural <= this.#width) {
      this.#trace.table(header, rows);
      return this;
    }
    for (const [k, group] of split.entries()) {
      if (k > 0) this.#lines.push("");
      const pick = (cells: readonly string[]): string[] => [
        cells[0] ?? "",
        ...group.map((i) => cells[i] ?? ""),
      ];
      this.#trace.table(pick(header), rows.map(pick));
    }
    return this;
  }

  text(): string {
    return this.#lines.join("\n");
  }
}

/** "10,629 – 10,918": the lowest and the highest round, with room to wrap between them. */
const spread = (r: TargetResult): string =>
  `${formatNumber(r.spread[0])} – ${formatNumber(r.spread[1])}`;

/** The herd table, its definition of events and the goal line. */
export function herdSpeedReport(
  rows: readonly SweepSpeed[],
  rounds: number,
  width = terminalWidth(),
): string {
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
  const report = new Report(width)
    .para(
      t("Herd simulator: {work} (the AWS original's sweep, N = 10..190 step 10)", {
        work: sweep.work,
      }),
    )
    .para(
      t("median of {rounds, plural, one {# round} other {# rounds}} after a warm-up", { rounds }),
    )
    .table(
      [
        t("loop"),
        t("threads"),
        t("wall time"),
        t("CPU time"),
        t("write calls"),
        t("events"),
        t("events/s"),
      ],
      body,
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
    )
    .para(
      t(
        "events: the messages of the original's literal model, 4 per write call (the read, its reply, the write, its reply): what the literal loop processes one by one. The write-only loop computes the same runs with one heap event per write; it is counted in the literal model's messages too.",
      ),
    )
    .para(
      t(
        "CPU time: all threads of the process; wall time well above CPU time / threads means the cores were busy with something else meanwhile.",
      ),
    );
  const literal = rows.find((r) => r.label === t("literal loop, message by message"));
  if (literal !== undefined && sweep !== literal)
    report.para(
      t("At its rate the literal loop would take {s} s for the whole sweep on one thread.", {
        s: formatNumber(sweep.events / literal.eventsPerSecond, 1),
      }),
    );
  report.para(
    t(
      "Goal, the sweep well under {goal} s: {ms} ms on {threads, plural, one {# thread} other {# threads}}: {met, select, yes {met} other {MISSED}}.",
      {
        goal: formatNumber(GOALS.sweepMs / 1000),
        ms: ms(sweep.medianMs),
        threads: sweep.threads,
        met: sweep.medianMs < GOALS.sweepMs ? "yes" : "no",
      },
    ),
  );
  return report.text();
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
export function idempotencyReport(bench: IdempotencyBench, width = terminalWidth()): string {
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
    spread(r),
  ]);
  const report = new Report(width)
    .para(
      t(
        "What idempotency costs: POST /reports over loopback, {connections} connections, each server in a child process",
        { connections: spec.concurrency },
      ),
    )
    .para(
      t(
        "median of {rounds, plural, one {# round} other {# rounds}} of {roundMs} ms per row after {warmupMs} ms of warm-up; SQLite files on {fs}",
        {
          rounds: spec.rounds,
          roundMs: formatNumber(spec.roundMs),
          warmupMs: formatNumber(spec.warmupMs),
          fs: bench.fileSystem,
        },
      ),
    )
    .table(
      [
        t("server"),
        t("requests/s"),
        t("× ceiling"),
        t("× naive"),
        "p50 ms",
        "p99 ms",
        t("server CPU µs/req"),
        t("CPU × naive"),
        t("rounds, req/s"),
      ],
      body,
      [[1, 2, 3], [4, 5, 6, 7], [8]],
    )
    .para(
      t(
        "server CPU µs/req: CPU time of the server's process per request (user + system), a figure that depends less than requests/s on what else the machine is doing. CPU × naive: naive's CPU per request over this row's, the throughput ratio a server that has a core to itself would show. The goals are set on CPU per request: see the floor below.",
      ),
    );
  for (const line of checkLines(bench)) report.para(line);
  return report.text();
}

function checkLines(bench: IdempotencyBench): string[] {
  const bad = bench.results.filter((r) => r.problems.length > 0);
  if (bad.length === 0) {
    return [
      t(
        "Checked afterwards: every answer was a 201; fresh keys stored one report per request; a replayed key stored none after its first, and every replay carried Idempotent-Replayed: true.",
      ),
    ];
  }
  return bad.map((r) =>
    t("CHECK FAILED, {name}: {problems}", { name: r.target.name, problems: r.problems.join("; ") }),
  );
}

/** FULL against NORMAL for keyed, with what each survives. */
export function durabilityReport(bench: IdempotencyBench, width = terminalWidth()): string {
  const normal = find(bench, "keyed", "fresh", "NORMAL");
  const full = find(bench, "keyed", "fresh", "FULL");
  if (!normal || !full)
    return new Report(width)
      .para(t("SQLite durability: not measured (no keyed variant in this checkout)."))
      .text();
  const row = (label: string, r: TargetResult): string[] => [
    label,
    `${r.journalMode ?? "?"} / ${r.synchronous ?? "?"}`,
    formatNumber(r.perSecond),
    ratio(r.perSecond / normal.perSecond),
    ms(r.p50Ms),
    ms(r.p99Ms),
  ];
  return new Report(width)
    .para(
      t(
        "SQLite durability: keyed, fresh keys, synchronous=NORMAL (the store's setting) against FULL (files on {fs})",
        { fs: bench.fileSystem },
      ),
    )
    .table(
      [t("setting"), t("journal / sync"), t("requests/s"), t("× NORMAL"), "p50 ms", "p99 ms"],
      [row(t("NORMAL (the store's)"), normal), row("FULL", full)],
    )
    .para(
      t(
        "Both keep the database consistent. In WAL mode NORMAL writes each commit to the WAL without an fsync; the WAL is synced at checkpoints. A process crash (kill -9) loses no committed report: the operating system already holds the write. A power loss or an OS crash may roll back the commits since the last sync. FULL syncs the WAL at every commit, so a commit survives a power loss too, at the cost measured above (SQLite documentation, PRAGMA synchronous). The store keeps NORMAL: the lessons kill processes; they do not cut the power.",
      ),
    )
    .text();
}

/** The throughput bars: every row, with its spread over the rounds and its ratio to naive. */
export function throughputSvg(bench: IdempotencyBench): string {
  const naive = find(bench, "naive", "fresh");
  return barChartSvg({
    title: t("What idempotency costs: POST /reports throughput"),
    subtitle: t(
      "Requests per second over loopback, {connections} connections; median of {rounds, plural, one {# round} other {# rounds}}, thin line: lowest to highest round",
      { connections: bench.spec.concurrency, rounds: bench.spec.rounds },
    ),
    xLabel: t("requests per second"),
    items: bench.results.map((r) => ({
      label: r.target.name,
      value: r.perSecond,
      spread: r.spread,
      ...(naive && r.target.server !== "ceiling"
        ? { note: t("· {ratio}× naive", { ratio: ratio(r.perSecond / naive.perSecond) }) }
        : {}),
      ...(r.target.server === "ceiling" ? { color: "#999999" } : {}),
    })),
  });
}

/**
 * The PostgreSQL rows: each against naive on PostgreSQL, with the statements and commits per request
 * that the store counted as it sent them, and what each costs.
 */
export function postgresReport(
  bench: IdempotencyBench,
  server: string,
  width = terminalWidth(),
): string {
  const { spec } = bench;
  const on = (r: TargetResult): boolean => r.target.postgres?.synchronousCommit === "on";
  const naive = bench.results.find((r) => r.target.server === "naive" && on(r));
  const per = (value: number | undefined): string =>
    value === undefined ? "?" : formatNumber(value, 2, true);
  const body = bench.results.map((r) => [
    r.target.name,
    formatNumber(r.perSecond),
    naive ? ratio(r.perSecond / naive.perSecond) : "",
    ms(r.p50Ms),
    ms(r.p99Ms),
    formatNumber(r.cpuMicrosPerRequest),
    per(r.roundTripsPerRequest),
    per(r.commitsPerRequest),
    spread(r),
  ]);
  const settings = [
    ...new Set(bench.results.map((r) => `${r.journalMode ?? "?"}, ${r.synchronous ?? "?"}`)),
  ].join("; ");
  const report = new Report(width)
    .para(
      t(
        "The same on PostgreSQL ({server}): POST /reports, {connections} connections, each tracker in a child process on a schema of its own",
        { server, connections: spec.concurrency },
      ),
    )
    .para(
      t(
        "median of {rounds, plural, one {# round} other {# rounds}} of {roundMs} ms per row after {warmupMs} ms of warm-up; settings read back: {settings}",
        {
          rounds: spec.rounds,
          roundMs: formatNumber(spec.roundMs),
          warmupMs: formatNumber(spec.warmupMs),
          settings,
        },
      ),
    )
    .table(
      [
        t("tracker on PostgreSQL"),
        t("requests/s"),
        t("× naive"),
        "p50 ms",
        "p99 ms",
        t("tracker CPU µs/req"),
        t("round trips/req"),
        t("commits/req"),
        t("rounds, req/s"),
      ],
      body,
      [
        [1, 2, 8],
        [3, 4, 5, 6, 7],
      ],
    )
    .para(
      t(
        `× naive: against naive on PostgreSQL, measured in the same rounds. round trips and commits: counted by the store as it sent them. naive sends one INSERT (autocommit: one commit). keyed and fenced with a fresh key send the claim (INSERT … ON CONFLICT DO NOTHING RETURNING fence, one commit), then BEGIN, INSERT report, UPDATE key, COMMIT: five round trips, two commits, each commit waiting for its WAL flush (an fsync) while synchronous_commit=on. A replay sends the claim, which finds the key and writes nothing, and a SELECT of the stored answer. synchronous_commit=off answers before the flush: an operating system or database crash may then lose the commits answered in up to the last 3 × wal_writer_delay (600 ms at its default of 200 ms), never half of one (PostgreSQL documentation, synchronous_commit and "Asynchronous Commit"); the tracker's own crash loses nothing either way.`,
      ),
    );
  for (const line of checkLines(bench)) report.para(line);
  return report.text();
}
