/**
 * What idempotency costs: POST /reports throughput and latency over loopback for each tracker
 * variant, next to a bare `node:http` server that answers 201 without touching SQLite (the ceiling).
 *
 * Method:
 * - every server runs in a child process of its own (lib/bench/server.ts), the load generator
 *   (lib/bench/load.ts) in this one: they share no event loop;
 * - every target gets the same request bytes: the same report, an `Idempotency-Key` header (a fresh
 *   key per request, or the one key of a completed request for the replay rows); `naive` ignores it;
 * - each target is warmed up, then measured in rounds; the rounds go round the targets in turn, a
 *   different one first each time, so that a busy moment of the machine does not land on one target;
 *   each figure is the median over the rounds;
 * - afterwards each database is counted: fresh keys must have stored one report per request, a
 *   replayed key none beyond the first, and every answer must have been a 201 (replays marked
 *   `Idempotent-Replayed: true`). A benchmark that measured wrong answers would be worthless.
 */

import { statfsSync } from "node:fs";
import { t } from "../core/i18n.ts";
import { scratchDir } from "../core/scratch.ts";
import { median } from "../core/stats.ts";
import { createSchema, type Schema } from "../postgres/schema.ts";
import type { VariantName } from "../tracker/variant.ts";
import { availableVariants } from "../tracker/variants/index.ts";
import { type LoadResult, postRequest, runLoad } from "./load.ts";
import { type BenchServer, startBenchServer } from "./server.ts";
import type { BenchServerConfig } from "./server-messages.ts";

/** The report every request files. */
const REPORT = JSON.stringify({
  title: "Login button does nothing",
  body: "Clicking 'Log in' on /login has no effect.",
  module: "auth",
});
/** The key of the replay rows: completed once before the warm-up, then sent again and again. */
const REPLAY_KEY = "bench-replay-0001";

export type Keys = "fresh" | "replay";

export interface BenchTarget {
  /** Row label, e.g. "keyed, fresh keys". */
  name: string;
  /** What the server is: "ceiling" for the bare server, else the variant. */
  server: "ceiling" | VariantName;
  keys: Keys;
  synchronous: "NORMAL" | "FULL";
  /** A PostgreSQL row: the tracker on a schema of its own, with this synchronous_commit. */
  postgres?: { synchronousCommit: "on" | "off" };
}

/** Variants whose rows show a replay: those that store a key and its response before answering. */
const REPLAYING: readonly VariantName[] = ["keyed", "fenced"];

/**
 * The rows: the ceiling; every available variant with fresh keys; replays for keyed and fenced (when
 * available); and keyed once more with synchronous=FULL, for the durability table.
 */
export function benchTargets(
  variants: readonly VariantName[] = availableVariants(),
): BenchTarget[] {
  const targets: BenchTarget[] = [
    {
      name: t("ceiling: bare node:http, no SQLite"),
      server: "ceiling",
      keys: "fresh",
      synchronous: "NORMAL",
    },
  ];
  for (const v of variants)
    targets.push({
      name: v === "naive" ? t("naive (ignores the key)") : t("{v}, fresh keys", { v }),
      server: v,
      keys: "fresh",
      synchronous: "NORMAL",
    });
  for (const v of REPLAYING.filter((r) => variants.includes(r))) {
    targets.push({
      name: t("{v}, replay of a completed key", { v }),
      server: v,
      keys: "replay",
      synchronous: "NORMAL",
    });
  }
  if (variants.includes("keyed"))
    targets.push({
      name: t("keyed, fresh keys, synchronous=FULL"),
      server: "keyed",
      keys: "fresh",
      synchronous: "FULL",
    });
  return targets;
}

/**
 * The PostgreSQL rows: naive, keyed and fenced with fresh keys, their replays, and fenced once more
 * with synchronous_commit=off (a commit that does not wait for its WAL flush).
 */
export function postgresBenchTargets(
  variants: readonly VariantName[] = availableVariants(),
): BenchTarget[] {
  const on = { synchronousCommit: "on" } as const;
  const targets: BenchTarget[] = [];
  for (const v of ["naive", "keyed", "fenced"] as const) {
    if (!variants.includes(v)) continue;
    targets.push({
      name: v === "naive" ? t("naive (ignores the key)") : t("{v}, fresh keys", { v }),
      server: v,
      keys: "fresh",
      synchronous: "NORMAL",
      postgres: on,
    });
  }
  for (const v of REPLAYING.filter((r) => variants.includes(r))) {
    targets.push({
      name: t("{v}, replay of a completed key", { v }),
      server: v,
      keys: "replay",
      synchronous: "NORMAL",
      postgres: on,
    });
  }
  if (variants.includes("fenced")) {
    targets.push({
      name: t("fenced, fresh keys, synchronous_commit=off"),
      server: "fenced",
      keys: "fresh",
      synchronous: "NORMAL",
      postgres: { synchronousCommit: "off" },
    });
  }
  return targets;
}

export interface RoundsSpec {
  /** Connections with one request in flight each. */
  concurrency: number;
  warmupMs: number;
  roundMs: number;
  rounds: number;
}

export interface TargetResult {
  target: BenchTarget;
  rounds: LoadResult[];
  /** Medians over the rounds. */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * CPU time the server process spent per request, µs: what the server's own work costs, less
   * sensitive than throughput to what else the machine is doing.
   */
  cpuMicrosPerRequest: number;
  /** The lowest and highest throughput of a round. */
  spread: [number, number];
  /** Pragmas read back from the server's database (tracker only). */
  journalMode: string | undefined;
  synchronous: string | undefined;
  /** What the checks after the rounds found wrong; empty when all is well. */
  problems: string[];
  /**
   * PostgreSQL rows: statements (each a round trip to the server) and commits per request, counted by
   * the store as it sent them, over every request of the row.
   */
  roundTripsPerRequest?: number;
  commitsPerRequest?: number;
  /** Reports in the database at the end, and requests sent in all (warm-up and priming included). */
  reports: number;
  requests: number;
}

export interface IdempotencyBench {
  spec: RoundsSpec;
  results: TargetResult[];
  /** The file system the SQLite files were on (it decides what an fsync costs). */
  fileSystem: string;
}

interface Live {
  target: BenchTarget;
  server: BenchServer;
  request: (i: number) => string;
  loads: LoadResult[];
  rounds: LoadResult[];
  /** Server CPU time per request in each round, µs. */
  cpuPerRequest: number[];
}

/** Runs every target through warm-up and rounds; `onProgress` hears a line per step. */
export async function benchIdempotency(
  targets: readonly BenchTarget[],
  spec: RoundsSpec,
  onProgress: (line: string) => void = () => {},
  /** The PostgreSQL server for the rows that need one (each gets a schema of its own, dropped after). */
  postgresUrl?: string,
): Promise<IdempotencyBench> {
  const dir = scratchDir();
  const live: Live[] = [];
  const schemas: Schema[] = [];
  try {
    const places = await Promise.all(
      targets.map(async (target, i) => {
        if (!target.postgres) return dir.path(`bench-${i}.db`);
        if (postgresUrl === undefined)
          throw new Error(t("{name}: no PostgreSQL server given", { name: target.name }));
        const schema = await createSchema(postgresUrl, "bench");
        schemas.push(schema);
        return withSetting(schema.url, "synchronous_commit", target.postgres.synchronousCommit);
      }),
    );
    const started = await Promise.allSettled(
      targets.map((target, i) => startBenchServer(serverConfig(target, places[i]!))),
    );
    started.forEach((s, i) => {
      if (s.status === "fulfilled")
        live.push({
          target: targets[i]!,
          server: s.value,
          request: requestsFor(targets[i]!, s.value.port),
          loads: [],
          rounds: [],
          cpuPerRequest: [],
        });
    });
    const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;

    const load = async (l: Live, durationMs: number, maxRequests?: number): Promise<LoadResult> => {
      const r = await runLoad({
        port: l.server.port,
        connections: maxRequests === undefined ? spec.concurrency : 1,
        durationMs,
        request: l.request,
        ...(maxRequests === undefined ? {} : { maxRequests }),
      });
      l.loads.push(r);
      return r;
    };

    for (const l of live) {
      if (l.target.keys === "replay") await load(l, 10_000, 1); // complete the key once
      onProgress(
        l.target.postgres
          ? t("warming up on PostgreSQL: {name}", { name: l.target.name })
          : t("warming up: {name}", { name: l.target.name }),
      );
      await load(l, spec.warmupMs);
    }
    for (let round = 0; round < spec.rounds; round++) {
      onProgress(t("round {n} of {total}", { n: round + 1, total: spec.rounds }));
      for (let k = 0; k < live.length; k++) {
        const l = live[(round + k) % live.length]!;
        const cpuBefore = await l.server.cpuMicros();
        const r = await load(l, spec.roundMs);
        l.cpuPerRequest.push(((await l.server.cpuMicros()) - cpuBefore) / Math.max(1, r.completed));
        l.rounds.push(r);
      }
    }

    const results: TargetResult[] = [];
    for (const l of live) results.push(await summarise(l));
    return { spec, results, fileSystem: fileSystemOf(dir.path("")) };
  } finally {
    await Promise.all(live.map((l) => l.server.close()));
    await Promise.all(schemas.map((s) => s.drop().catch(() => {})));
    dir.remove();
  }
}

/** `db` is the SQLite file, or for a PostgreSQL row the schema's URL. */
function serverConfig(target: BenchTarget, db: string): BenchServerConfig {
  if (target.server === "ceiling") return { kind: "bare" };
  if (target.postgres) return { kind: "postgres-tracker", variant: target.server, url: db };
  return { kind: "tracker", variant: target.server, db, synchronous: target.synchronous };
}

/** A PostgreSQL URL whose connections also set `name` (beside the schema's search_path). */
function withSetting(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(
    "options",
    `${u.searchParams.get("options") ?? ""} -c ${name}=${value}`.trim(),
  );
  return u.toString();
}

/** The request bytes: a new key each time, or always the replayed one. */
function requestsFor(target: BenchTarget, port: number): (i: number) => string {
  if (target.keys === "replay") {
    const bytes = postRequest(port, "/reports", REPORT, { "idempotency-key": REPLAY_KEY });
    return () => bytes;
  }
  let n = 0;
  return () =>
    postRequest(port, "/reports", REPORT, {
      "idempotency-key": `bench-${(++n).toString(36).padStart(6, "0")}`,
    });
}

async function summarise(l: Live): Promise<TargetResult> {
  const { target, server, rounds, loads } = l;
  const requests = loads.reduce((sum, r) => sum + r.completed, 0);
  const answers = (status: number): number =>
    loads.reduce((sum, r) => sum + (r.statuses[status] ?? 0), 0);
  const replayed = loads.reduce((sum, r) => sum + r.replayed, 0);
  const statements = target.postgres ? await server.statements() : undefined;
  const reports = await server.countReports();
  const problems: string[] = [];
  if (answers(201) !== requests) {
    const others = loads.flatMap((r) => Object.keys(r.statuses)).filter((s) => s !== "201");
    problems.push(
      t("{n} of {requests} answers were not 201 ({statuses})", {
        n: requests - answers(201),
        requests,
        statuses: [...new Set(others)].join(", "),
      }),
    );
  }
  if (target.server !== "ceiling") {
    const expected = target.keys === "replay" ? 1 : requests;
    if (reports !== expected)
      problems.push(
        t("the database holds {reports} reports, expected {expected}", { reports, expected }),
      );
  }
  const expectedReplays = target.keys === "replay" ? requests - 1 : 0;
  if (replayed !== expectedReplays)
    problems.push(
      t("{replayed} answers were marked replayed, expected {expected}", {
        replayed,
        expected: expectedReplays,
      }),
    );
  const perSecond = rounds.map((r) => r.perSecond);
  return {
    target,
    rounds,
    perSecond: median(perSecond),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    cpuMicrosPerRequest: median(l.cpuPerRequest),
    spread: [Math.min(...perSecond), Math.max(...perSecond)],
    journalMode: server.journalMode,
    synchronous: server.synchronous,
    problems,
    reports,
    requests,
    ...(statements
      ? {
          roundTripsPerRequest: statements.roundTrips / Math.max(1, requests),
          commitsPerRequest: statements.commits / Math.max(1, requests),
        }
      : {}),
  };
}

/** Magic numbers of statfs(2) for the usual file systems. */
const FILE_SYSTEMS = new Map<number, string>([
  [0xef53, "ext4"],
  [0x58465342, "xfs"],
  [0x9123683e, "btrfs"],
  [0x01021994, "tmpfs"],
  [0x794c7630, "overlayfs"],
  [0x2fc12fc1, "zfs"],
  [0x6969, "nfs"],
  [0x65735546, "fuse"],
  [0x5346544e, "ntfs"],
]);

function fileSystemOf(path: string): string {
  try {
    const type = statfsSync(path).type;
    return FILE_SYSTEMS.get(type) ?? `type 0x${type.toString(16)}`;
  } catch {
    return "unknown";
  }
}
