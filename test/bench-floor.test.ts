// The floor under the tracker's CPU per request (lib/bench/floor.ts): the measurement runs, and the
// table computes each gap and goal from the numbers it is given.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CPU_GOALS, floorReport, measureFloor } from "../lib/bench/floor.ts";
import {
  benchTargets,
  type IdempotencyBench,
  type TargetResult,
} from "../lib/bench/idempotency.ts";
import { tableRow } from "./run-helpers.ts";

test("measureFloor: both floors are measured, and two transactions cost more than one", () => {
  // CPU time on a shared machine is noisy (a GC pause, another process's cache): the best of three
  // measurements of each, as a benchmark would take it, not a single short one.
  const floors = [1, 2, 3].map(() => measureFloor(1000));
  for (const floor of floors) {
    assert.equal(floor.operations, 1000);
    assert.ok(floor.insertMicros > 0 && floor.claimCompleteMicros > 0);
  }
  const insert = Math.min(...floors.map((f) => f.insertMicros));
  const claimComplete = Math.min(...floors.map((f) => f.claimCompleteMicros));
  assert.ok(claimComplete > insert, JSON.stringify(floors));
});

test("floorReport: CPU per request beside floor + HTTP, the gap, and each goal met or missed", () => {
  const cpu: Record<string, number> = {
    "ceiling:fresh": 20,
    "naive:fresh": 85,
    "key-after:fresh": 200,
    "keyed:fresh": 150,
    "fenced:fresh": 130,
    "keyed:replay": 60,
    "fenced:replay": 95,
  };
  const results = benchTargets(["naive", "key-after", "keyed", "fenced"]).map(
    (target) =>
      ({
        target,
        cpuMicrosPerRequest:
          target.synchronous === "FULL" ? 999 : cpu[`${target.server}:${target.keys}`]!,
      }) as TargetResult,
  );
  const text = floorReport(
    { results } as IdempotencyBench,
    { operations: 1000, insertMicros: 30, claimCompleteMicros: 80 },
    1000,
  );
  const row = (label: string): string[] => {
    const cells = tableRow(text, label);
    assert.ok(cells, `no row ${label} in\n${text}`);
    return cells.slice(1);
  };
  assert.deepEqual(row("naive"), [
    "85 µs",
    "50 µs (30 + 20)",
    "35 µs",
    `≤ ${CPU_GOALS.naive} µs`,
    "met",
  ]);
  assert.deepEqual(row("keyed, fresh keys"), [
    "150 µs",
    "100 µs (80 + 20)",
    "50 µs",
    `≤ ${CPU_GOALS.keyedFresh} µs`,
    "MISSED",
  ]);
  assert.deepEqual(row("fenced, fresh keys"), [
    "130 µs",
    "100 µs (80 + 20)",
    "30 µs",
    `≤ ${CPU_GOALS.keyedFresh} µs`,
    "met",
  ]);
  assert.deepEqual(row("keyed, replays"), [
    "60 µs",
    "20 µs (0 + 20)",
    "40 µs",
    "≤ naive (85 µs)",
    "met",
  ]);
  assert.deepEqual(row("fenced, replays"), [
    "95 µs",
    "20 µs (0 + 20)",
    "75 µs",
    "≤ naive (85 µs)",
    "MISSED",
  ]);
  assert.match(
    text,
    /one insert in one transaction 30 µs of CPU; claim \+ complete in two transactions 80 µs;/,
  );
});
