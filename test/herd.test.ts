import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { seeded } from "../lib/core/random.ts";
import {
  bar,
  bucketCounts,
  seriesChart,
  sparkline,
  sweepTable,
  table,
  writeTimeHistogram,
} from "../lib/herd/charts.ts";
import { MinHeap } from "../lib/herd/heap.ts";
import { simulateManyParallel } from "../lib/herd/parallel.ts";
import {
  HERD_STRATEGIES,
  type HerdStrategy,
  type PointResult,
  pointSeed,
  type RunResult,
  simulateMany,
  simulateOnce,
  simulateOnceLiteral,
  simulatePoint,
} from "../lib/herd/simulator.ts";

function stats(xs: readonly number[]): { mean: number; sd: number; se: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
  return { mean, sd, se: sd / Math.sqrt(xs.length) };
}

function runs(
  sim: typeof simulateOnce,
  strategy: HerdStrategy,
  clients: number,
  count: number,
  seed: number,
): RunResult[] {
  const random = seeded(seed);
  return Array.from({ length: count }, () => sim(strategy, clients, random));
}

function row(rows: readonly PointResult[], strategy: HerdStrategy, clients: number): PointResult {
  const found = rows.find((r) => r.strategy === strategy && r.clients === clients);
  assert.ok(found, `no row for ${strategy} ${clients}`);
  return found;
}

describe("MinHeap", () => {
  test("pops in key order, through pushes, pops and replaceTop, against a sorted list", () => {
    const random = seeded(1);
    const heap = new MinHeap(2); // small, so it has to grow
    let reference: { key: number; value: number }[] = [];
    for (let step = 0; step < 20_000; step++) {
      const op = random();
      if (reference.length === 0 || op < 0.45) {
        const key = Math.floor(random() * 1000) / 10; // ties happen
        heap.push(key, step);
        reference.push({ key, value: step });
      } else {
        reference.sort((a, b) => a.key - b.key);
        const min = reference[0]!;
        assert.equal(heap.peekKey(), min.key);
        // with tied keys any of them may be on top: find the one the heap chose
        const index = reference.findIndex((e) => e.key === min.key && e.value === heap.peekValue());
        assert.notEqual(index, -1);
        if (op < 0.75) {
          heap.pop();
          reference.splice(index, 1);
        } else {
          const key = min.key + random() * 50;
          heap.replaceTop(key, -step);
          reference[index] = { key, value: -step };
        }
      }
      assert.equal(heap.size, reference.length);
    }
    const drained: number[] = [];
    while (heap.size > 0) {
      drained.push(heap.peekKey());
      heap.pop();
    }
    reference = reference.sort((a, b) => a.key - b.key);
    assert.deepEqual(
      drained,
      reference.map((e) => e.key),
    );
  });

  test("refuses to read an empty heap", () => {
    const heap = new MinHeap();
    assert.throws(() => heap.pop(), RangeError);
    assert.throws(() => heap.peekKey(), RangeError);
  });
});

describe("simulator: the model's sanity facts", () => {
  for (const sim of [simulateOnce, simulateOnceLiteral]) {
    test(`${sim.name}: one client writes once; completion is four hops, mean 40 ms, sd 4`, () => {
      for (const strategy of HERD_STRATEGIES) {
        const rs = runs(sim, strategy, 1, 2000, 11);
        assert.ok(rs.every((r) => r.calls === 1 && r.failures === 0));
        const { mean, sd } = stats(rs.map((r) => r.completionMs));
        assert.ok(Math.abs(mean - 40) < 0.5, `${strategy}: mean ${mean}`); // se ≈ 0.09
        assert.ok(Math.abs(sd - 4) < 0.3, `${strategy}: sd ${sd}`);
      }
    });

    test(`${sim.name}: two clients make 3 calls in practically every run`, () => {
      for (const strategy of HERD_STRATEGIES) {
        const rs = runs(sim, strategy, 2, 1000, 12);
        const three = rs.filter((r) => r.calls === 3).length;
        assert.ok(three >= 995, `${strategy}: ${three} of 1000`);
      }
    });

    test(`${sim.name}: no backoff, 10 clients: about 50.6 calls`, () => {
      const { mean } = stats(runs(sim, "no-backoff", 10, 1000, 13).map((r) => r.calls));
      assert.ok(Math.abs(mean - 50.6) < 1, `mean ${mean}`); // sd ≈ 4, se ≈ 0.13
    });
  }

  test("calls - failures = clients, in every run", () => {
    for (const strategy of HERD_STRATEGIES) {
      for (const clients of [1, 3, 17, 40]) {
        for (const r of runs(simulateOnce, strategy, clients, 20, clients)) {
          assert.equal(r.calls - r.failures, clients);
        }
      }
    }
  });

  test("write times: one per call, in time order, within the run", () => {
    const r = simulateOnce("full", 30, seeded(5), { recordWriteTimes: true });
    assert.ok(r.writeTimesMs);
    assert.equal(r.writeTimesMs.length, r.calls);
    for (let i = 1; i < r.writeTimesMs.length; i++)
      assert.ok(r.writeTimesMs[i]! >= r.writeTimesMs[i - 1]!);
    assert.ok(r.writeTimesMs.at(-1)! < r.completionMs);
    assert.equal(simulateOnce("full", 30, seeded(5)).writeTimesMs, undefined);
  });

  test("rejects a bad client count", () => {
    assert.throws(() => simulateOnce("full", 0, seeded(1)), RangeError);
    assert.throws(() => simulateOnce("full", 2.5, seeded(1)), RangeError);
  });
});

describe("simulator: the fast loop agrees with the literal message-by-message model", () => {
  for (const strategy of HERD_STRATEGIES) {
    test(strategy, () => {
      const fast = runs(simulateOnce, strategy, 20, 600, 21);
      const literal = runs(simulateOnceLiteral, strategy, 20, 600, 22);
      for (const metric of ["calls", "completionMs"] as const) {
        const a = stats(fast.map((r) => r[metric]));
        const b = stats(literal.map((r) => r[metric]));
        const z = (a.mean - b.mean) / Math.hypot(a.se, b.se);
        const message = `${metric}: fast ${a.mean.toFixed(1)} vs literal ${b.mean.toFixed(1)}, z = ${z.toFixed(2)}`;
        assert.ok(Math.abs(z) < 4, message);
      }
    });
  }
});

describe("simulator: seeds", () => {
  const spec = { strategies: HERD_STRATEGIES, clients: [5, 30], runs: 10, seed: 3 };

  test("the same seed gives identical results", () => {
    assert.deepEqual(simulateMany(spec), simulateMany(spec));
    const a = simulateOnce("decorrelated", 25, seeded(8), { recordWriteTimes: true });
    const b = simulateOnce("decorrelated", 25, seeded(8), { recordWriteTimes: true });
    assert.deepEqual(a, b);
  });

  test("a different seed gives different results", () => {
    const a = simulateMany(spec);
    const b = simulateMany({ ...spec, seed: 4 });
    assert.notDeepEqual(a, b);
    assert.ok(a.every((r, i) => r.clients < 30 || r.completionMs !== b[i]!.completionMs));
  });

  test("a point does not depend on which other points are run", () => {
    const alone = simulateMany({ strategies: ["equal"], clients: [30], runs: 10, seed: 3 });
    assert.deepEqual(alone[0], row(simulateMany(spec), "equal", 30));
    assert.notEqual(pointSeed(3, "equal", 30), pointSeed(3, "full", 30));
  });

  test("rows come by strategy, then client count, with means", () => {
    const rows = simulateMany(spec);
    assert.deepEqual(
      rows.map((r) => `${r.strategy}:${r.clients}`),
      HERD_STRATEGIES.flatMap((s) => [`${s}:5`, `${s}:30`]),
    );
    const point = simulatePoint({
      strategy: "full",
      clients: 5,
      runs: 10,
      seed: 3,
      recordWriteTimes: true,
    });
    assert.equal(point.writeTimesMs?.length, Math.round(point.calls * 10));
  });

  test("the parallel sweep gives the same rows as the sequential one", async () => {
    const parallel = await simulateManyParallel({ ...spec, clients: [5, 30, 60] }, { threads: 2 });
    assert.deepEqual(parallel, simulateMany({ ...spec, clients: [5, 30, 60] }));
    assert.deepEqual(await simulateManyParallel(spec, { threads: 1 }), simulateMany(spec));
  });

  test("a worker thread computes the same rows", async () => {
    const rows = await simulateManyParallel(spec, { threads: 1, useMainThread: false });
    assert.deepEqual(rows, simulateMany(spec));
  });
});

describe("simulator: the blog's conclusions at 50 clients", () => {
  let rows: PointResult[] = [];
  before(() => {
    rows = simulateMany({ strategies: HERD_STRATEGIES, clients: [50], runs: 200, seed: 2015 });
  });
  const calls = (s: HerdStrategy): number => row(rows, s, 50).calls;
  const time = (s: HerdStrategy): number => row(rows, s, 50).completionMs;

  test("no backoff does the most work", () => {
    for (const s of HERD_STRATEGIES)
      if (s !== "no-backoff") assert.ok(calls("no-backoff") > calls(s), s);
  });

  test("backoff without jitter takes the longest, by far", () => {
    for (const s of HERD_STRATEGIES)
      if (s !== "exponential") assert.ok(time("exponential") > 2 * time(s), s);
  });

  test("full and equal jitter cost less work than exponential and no backoff, and about the same", () => {
    for (const s of ["full", "equal"] as const) {
      assert.ok(calls(s) < calls("exponential") * 0.7, s);
      assert.ok(calls(s) < calls("no-backoff") * 0.7, s);
    }
    assert.ok(Math.abs(calls("full") - calls("equal")) < 0.1 * calls("full"));
  });

  test("decorrelated costs somewhat more work than full; equal is the slowest jittered one", () => {
    assert.ok(calls("decorrelated") > calls("full"));
    assert.ok(time("equal") > time("full") && time("equal") > time("decorrelated"));
  });

  test("Codex's ±10 % jitter on the same cap is much slower than full jitter", () => {
    assert.ok(time("codex-capped") > 2 * time("full"));
    assert.ok(calls("codex-capped") > calls("full"));
  });
});

describe("charts", () => {
  test("bars in eighths of a cell", () => {
    assert.equal(bar(10, 10, 4), "████");
    assert.equal(bar(5, 10, 4), "██");
    assert.equal(bar(1, 16, 2), "▏");
    assert.equal(bar(0, 10, 4), "");
  });

  test("sparklines", () => {
    assert.equal(sparkline([0, 1, 2, 4, 8]), " ▁▂▄█");
    assert.equal(sparkline([0, 0]), "  ");
  });

  test("series chart: one scale, x labels at both ends", () => {
    const chart = seriesChart(
      [
        { name: "a", values: [1, 2] },
        { name: "bb", values: [4, 8] },
      ],
      { xLabel: "clients", xs: [10, 20], cellsPerPoint: 3 },
    );
    const lines = chart.split("\n");
    assert.equal(lines[0], "a  │▁▁▁▂▂▂│ 2");
    assert.equal(lines[1], "bb │▄▄▄███│ 8");
    assert.equal(lines[2], "    10  20  clients"); // the labels end under the first and last cells
    const single = seriesChart([{ name: "a", values: [3] }], { xLabel: "clients", xs: [50] });
    assert.match(single, /^ {3}50 {2}clients$/m);
  });

  test("bucket counts leave out times past the end", () => {
    assert.deepEqual(bucketCounts([0, 9.9, 10, 25, 30, 99], 30, 3), [2, 1, 1]);
  });

  test("tables right-align numbers", () => {
    const t = table(
      ["name", "n"],
      [
        ["a", "1"],
        ["bb", "1,000"],
      ],
    );
    assert.equal(t, "name      n\n────  ─────\na         1\nbb    1,000");
  });

  test("sweep table and histogram render every strategy", () => {
    const rows = simulateMany({
      strategies: ["full", "exponential"],
      clients: [5, 10],
      runs: 3,
      seed: 1,
    });
    const t = sweepTable(rows, "calls", 1);
    assert.match(t, /clients\s+full\s+exponential/);
    assert.equal(t.split("\n").length, 4);
    const h = writeTimeHistogram(
      [
        { name: "a", timesMs: [1, 2, 3] },
        { name: "b", timesMs: [50] },
      ],
      { untilMs: 100, buckets: 10 },
    );
    assert.match(h, /^a │█ {9}│ peak 3$/m);
    assert.match(h, /^b │ {5}█ {4}│ peak 1$/m);
  });
});

describe("the herd command", () => {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const cli = fileURLToPath(new URL("../lib/herd/cli.ts", import.meta.url));
  const herd = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", cli, ...args], { cwd: root, encoding: "utf8" });

  test("--csv prints the header and one row per strategy and client count", () => {
    const r = herd(
      "--csv",
      "--clients",
      "5,10,20",
      "--runs",
      "4",
      "--strategies",
      "full,exponential",
      "--seed",
      "9",
    );
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(lines[0], "strategy,clients,calls,completion_ms");
    assert.equal(lines.length, 1 + 2 * 3);
    const rows = lines.slice(1).map((l) => l.split(","));
    assert.deepEqual(
      rows.map((c) => `${c[0]}:${c[1]}`),
      ["full:5", "full:10", "full:20", "exponential:5", "exponential:10", "exponential:20"],
    );
    for (const cells of rows) {
      assert.equal(cells.length, 4);
      assert.match(cells[2]!, /^\d+(\.\d)?$/);
      assert.match(cells[3]!, /^\d+(\.\d)?$/);
    }
    // the same seed, the same numbers; they match the library's
    const again = herd(
      "--csv",
      "--clients",
      "5,10,20",
      "--runs",
      "4",
      "--strategies",
      "full,exponential",
      "--seed",
      "9",
    );
    assert.equal(again.stdout, r.stdout);
    const lib = simulateMany({
      strategies: ["full", "exponential"],
      clients: [5, 10, 20],
      runs: 4,
      seed: 9,
    });
    assert.equal(Number(rows[2]![2]), Math.round(lib[2]!.calls * 10) / 10);
  });

  test("the default output has tables and charts", () => {
    const r = herd("--clients", "5,10", "--runs", "3");
    assert.equal(r.status, 0, r.stderr);
    for (const s of HERD_STRATEGIES) assert.match(r.stdout, new RegExp(`^${s} +│`, "m"));
    assert.match(r.stdout, /Write calls per run/);
    assert.match(r.stdout, /Completion time/);
  });

  test("--help", () => {
    const r = herd("--help");
    assert.equal(r.status, 0);
    assert.match(r.stdout, /--clients/);
  });

  for (const args of [
    ["--clients", "abc"],
    ["--clients", "0"],
    ["--runs", "0"],
    ["--runs", "1.5"],
    ["--seed", "x"],
    ["--strategies", "full,jitter"],
    ["--bogus"],
    ["stray"],
  ]) {
    test(`bad input ${args.join(" ")}: one line, exit code 2`, () => {
      const r = herd(...args);
      assert.equal(r.status, 2);
      assert.equal(r.stdout, "");
      const lines = r.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, /^error: .* \(try --help\)$/);
      assert.doesNotMatch(r.stderr, /^\s+at /m);
    });
  }

  test("an unknown strategy error names the valid ones", () => {
    const valid = /valid: no-backoff, exponential, full, equal, decorrelated, codex-capped/;
    assert.match(herd("--strategies", "jitter").stderr, valid);
  });
});
