/**
 * The floor under the tracker's CPU per request: what its work costs with nothing around it.
 * `node:sqlite` alone, on a file in the same place as the benchmark's databases, with the store's
 * settings (WAL, synchronous=NORMAL, prepared statements), in a plain loop:
 *
 * - naive's work: one INSERT … RETURNING in one BEGIN IMMEDIATE … COMMIT;
 * - fenced's work: the claim (look the key up, draw a fencing token, insert the key in progress) in
 *   one transaction, then the report and the completed key in a second one; keyed's is the same
 *   without the fencing token (one UPDATE less), so the floor is a little above keyed's own.
 *
 * Add the bare `node:http` server's CPU per request (the ceiling row of the same run) and the sum is
 * what a request could cost if the tracker did nothing but its work. The table prints each server's
 * CPU per request beside that floor, the gap between them, and the goal of the issue that asked for
 * a faster request path (naive ≤ 90 µs, keyed and fenced with fresh keys ≤ 140 µs, replays ≤ naive,
 * on an idle machine where the floor measured 34 and 83 µs and bare node:http 22 µs).
 */
import { DatabaseSync } from "node:sqlite";
import { t } from "../core/i18n.ts";
import { scratchDir } from "../core/scratch.ts";
import { terminalWidth } from "../core/text.ts";
import { formatNumber } from "../herd/charts.ts";
import type { IdempotencyBench, TargetResult } from "./idempotency.ts";
import { Report } from "./report.ts";

export interface Floor {
  operations: number;
  /** CPU per operation, µs: one insert in one transaction. */
  insertMicros: number;
  /** CPU per operation, µs: claim, then complete, in two transactions. */
  claimCompleteMicros: number;
}

/** The goals, CPU per request, µs. */
export const CPU_GOALS = { naive: 90, keyedFresh: 140 } as const;

/** Measures both floors over `operations` operations each (after a tenth as many to warm up). */
export function measureFloor(operations: number): Floor {
  const dir = scratchDir();
  try {
    const db = new DatabaseSync(dir.path("floor.db"));
    try {
      db.exec(`
        PRAGMA journal_mode = WAL;
        PRAGMA synchronous = NORMAL;
        CREATE TABLE reports (id INTEGER PRIMARY KEY, title TEXT NOT NULL, title_norm TEXT NOT NULL,
          body TEXT NOT NULL DEFAULT '', module TEXT, run TEXT);
        CREATE INDEX reports_by_title ON reports (title_norm);
        CREATE TABLE keys (caller TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, state TEXT NOT NULL,
          fence INTEGER NOT NULL, lease_until INTEGER NOT NULL, expires_at INTEGER NOT NULL,
          status INTEGER, headers TEXT, body TEXT, PRIMARY KEY (caller, key)) WITHOUT ROWID;
        CREATE TABLE fence (only INTEGER PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO fence VALUES (1, 0);
      `);
      const begin = db.prepare("BEGIN IMMEDIATE");
      const commit = db.prepare("COMMIT");
      const insert = db.prepare(
        "INSERT INTO reports (title, title_norm, body, module, run) VALUES (?, ?, ?, ?, ?) RETURNING id, title, body, module, run",
      );
      const get = db.prepare("SELECT * FROM keys WHERE caller = ? AND key = ?");
      const nextFence = db.prepare(
        "UPDATE fence SET value = value + 1 WHERE only = 1 RETURNING value",
      );
      const claim = db.prepare(
        "INSERT INTO keys (caller, key, fingerprint, state, fence, lease_until, expires_at) VALUES (?, ?, ?, 'in_progress', ?, ?, ?)",
      );
      const complete = db.prepare(
        "UPDATE keys SET state = 'completed', status = ?, headers = ?, body = ? WHERE caller = ? AND key = ?",
      );
      const title = "Login button does nothing";
      const body = "Clicking 'Log in' on /login has no effect.";
      const response = JSON.stringify({ id: 1, title, body, module: "auth", run: null });
      const fingerprint = "f".repeat(64);

      const oneInsert = (): void => {
        begin.run();
        insert.get(title, "login button does nothing", body, "auth", null);
        commit.run();
      };
      let n = 0;
      const claimComplete = (): void => {
        const key = `floor-${++n}`;
        begin.run();
        get.get("anonymous", key);
        const fence = (nextFence.get() as { value: number }).value;
        claim.run("anonymous", key, fingerprint, fence, 5_000, 86_400_000);
        commit.run();
        begin.run();
        insert.get(title, "login button does nothing", body, "auth", null);
        complete.run(201, '{"location":"/reports/1"}', response, "anonymous", key);
        commit.run();
      };
      const cpuPer = (work: () => void): number => {
        for (let i = 0; i < Math.ceil(operations / 10); i++) work();
        const before = process.cpuUsage();
        for (let i = 0; i < operations; i++) work();
        const used = process.cpuUsage(before);
        return (used.user + used.system) / operations;
      };
      return {
        operations,
        insertMicros: cpuPer(oneInsert),
        claimCompleteMicros: cpuPer(claimComplete),
      };
    } finally {
      db.close();
    }
  } finally {
    dir.remove();
  }
}

const us = (value: number): string => `${formatNumber(value, 0, true)} µs`;

/** The floor table: each server's CPU per request beside its floor, the gap, and the goal. */
export function floorReport(
  bench: IdempotencyBench,
  floor: Floor,
  width = terminalWidth(),
): string {
  const find = (server: string, keys: "fresh" | "replay"): TargetResult | undefined =>
    bench.results.find(
      (r) =>
        r.target.server === server && r.target.keys === keys && r.target.synchronous === "NORMAL",
    );
  const http = find("ceiling", "fresh")?.cpuMicrosPerRequest;
  const naive = find("naive", "fresh")?.cpuMicrosPerRequest;
  const rows: string[][] = [];
  const row = (
    label: string,
    cpu: number | undefined,
    sqlite: number,
    goal: number | undefined,
    goalText: string,
  ): void => {
    if (cpu === undefined) return;
    const floorTotal = http === undefined ? undefined : sqlite + http;
    rows.push([
      label,
      us(cpu),
      floorTotal === undefined
        ? "–"
        : `${us(floorTotal)} (${formatNumber(sqlite, 0)} + ${formatNumber(http!, 0)})`,
      floorTotal === undefined ? "–" : us(cpu - floorTotal),
      goalText,
      goal === undefined ? "–" : cpu <= goal ? t("met") : t("MISSED"),
    ]);
  };
  row("naive", naive, floor.insertMicros, CPU_GOALS.naive, `≤ ${CPU_GOALS.naive} µs`);
  for (const v of ["keyed", "fenced"])
    row(
      t("{v}, fresh keys", { v }),
      find(v, "fresh")?.cpuMicrosPerRequest,
      floor.claimCompleteMicros,
      CPU_GOALS.keyedFresh,
      `≤ ${CPU_GOALS.keyedFresh} µs`,
    );
  for (const v of ["keyed", "fenced"])
    row(
      t("{v}, replays", { v }),
      find(v, "replay")?.cpuMicrosPerRequest,
      0,
      naive,
      t("≤ naive ({cpu})", { cpu: naive === undefined ? "–" : us(naive) }),
    );
  return new Report(width)
    .para(
      t(
        "The floor under each server: node:sqlite alone (WAL, synchronous=NORMAL, prepared statements, {operations} operations):",
        { operations: formatNumber(floor.operations) },
      ),
    )
    .para(
      t(
        "one insert in one transaction {insert} of CPU; claim + complete in two transactions {claim};",
        { insert: us(floor.insertMicros), claim: us(floor.claimCompleteMicros) },
      ),
    )
    .para(
      http === undefined
        ? t(
            "plus bare node:http's CPU per request from the ceiling row (not measured in this run).",
          )
        : t("plus bare node:http's CPU per request from the ceiling row ({http}).", {
            http: us(http),
          }),
    )
    .table(
      [t("server"), t("CPU/request"), t("floor (SQLite + HTTP)"), t("gap"), t("goal"), ""],
      rows,
    )
    .para(
      t(
        "A replay's floor is HTTP alone: it reads one row. The goals were set on an idle machine (floor 34 and 83 µs, bare node:http 22 µs); on a busy one every figure grows, so read the gap as well as the goal.",
      ),
    )
    .text();
}

/** The section as `npm run bench` prints it: measured now, `quick` with fewer operations. */
export function floorSection(bench: IdempotencyBench, quick: boolean): string {
  return floorReport(bench, measureFloor(quick ? 2_000 : 20_000));
}
