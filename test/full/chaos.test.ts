// The chaos run: its plan replays from the seed, its tally counts what it claims to, a small seeded
// run over real processes keeps `fenced` exactly-once while `keyed` duplicates under paused holders,
// and the command line answers --help, refuses bad flags and prints a replay command on failure.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChaosResult, runChaos } from "../../lib/chaos/run.ts";
import { CHAOS_FAULTS, planChaos } from "../../lib/chaos/schedule.ts";
import { failed, printSummary } from "../../lib/chaos/summary.ts";
import { isClean, tally } from "../../lib/chaos/tally.ts";
import { Trace } from "../../lib/core/trace.ts";
import { englishRuns, widerThan } from "../chinese-output.ts";
import { runTs, tableRow } from "../run-helpers.ts";

test("the plan is a function of the seed: same seed, same operations, keys and faults; a longer run extends a shorter one", () => {
  const a = planChaos({ seed: 7, ops: 200, agents: 10 });
  const b = planChaos({ seed: 7, ops: 200, agents: 10 });
  assert.deepEqual(a, b);
  const other = planChaos({ seed: 8, ops: 200, agents: 10 });
  assert.notEqual(other.digest, a.digest);
  assert.notDeepEqual(
    other.ops.map((o) => o.faults),
    a.ops.map((o) => o.faults),
  );
  assert.deepEqual(planChaos({ seed: 7, ops: 50, agents: 10 }).ops, a.ops.slice(0, 50));
  assert.equal(new Set(a.ops.map((o) => o.key)).size, 200, "one key per operation");
  assert.equal(
    new Set(a.ops.map((o) => o.report.title)).size,
    200,
    "one title per operation: the database tells them apart",
  );
  const planned = CHAOS_FAULTS.reduce((n, f) => n + a.planned[f], 0);
  assert.ok(planned > 20 && planned < 120, `${planned} faults for 200 operations at 25 %`);
  assert.deepEqual(
    planChaos({ seed: 7, ops: 200, agents: 10, faults: ["slow"] })
      .ops.flatMap((o) => o.faults)
      .filter((f) => f && f !== "slow"),
    [],
  );
  assert.equal(
    CHAOS_FAULTS.reduce(
      (n, f) => n + planChaos({ seed: 7, ops: 200, agents: 10, rate: 0 }).planned[f],
      0,
    ),
    0,
  );
});

test("the tally: duplicates, lost (acknowledged or not), unanswered, strays", () => {
  const ops = [
    { index: 1, title: "a", acked: 1 }, // stored once: fine
    { index: 2, title: "b", acked: 2 }, // stored twice: one duplicate
    { index: 3, title: "c", acked: 9 }, // told #9, which does not exist: lost after an acknowledgement
    { index: 4, title: "d" }, // never answered, never stored: lost
    { index: 5, title: "e" }, // never answered, but stored
  ];
  const rows = [
    { id: 1, title: "a" },
    { id: 2, title: "b" },
    { id: 3, title: "b" },
    { id: 4, title: "e" },
    { id: 5, title: "nobody's" },
  ];
  const t = tally(ops, rows);
  assert.equal(t.stored, 5);
  assert.equal(t.acknowledged, 3);
  assert.equal(t.duplicates, 1);
  assert.deepEqual(t.duplicatedOps, [2]);
  assert.equal(t.lost, 2);
  assert.deepEqual(t.lostOps, [3, 4]);
  assert.equal(t.lostAcknowledged, 1);
  assert.equal(t.lostUnacknowledged, 1);
  assert.equal(t.unanswered, 2);
  assert.equal(t.strays, 1);
  assert.equal(isClean(t), false);
  assert.equal(isClean(tally([{ index: 1, title: "a", acked: 1 }], [{ id: 1, title: "a" }])), true);
});

// The smoke run: small, but every fault kind, three real processes, SIGKILLs and restarts included.
const smoke = { ops: 60, seed: 3, agents: 12, rate: 0.5, timeoutMs: 300, leaseMs: 500 } as const;

test("a small seeded chaos run: fenced stores every operation exactly once and answers each", async () => {
  const r = await runChaos({ variant: "fenced", ...smoke });
  const plan = planChaos({
    seed: smoke.seed,
    ops: smoke.ops,
    agents: smoke.agents,
    rate: smoke.rate,
  });
  assert.equal(r.digest, plan.digest, "the run carried out the plan of its seed");
  assert.ok(
    plan.planned.kill + plan.planned["crash-after-claim"] + plan.planned["crash-between-commits"] >
      0,
    "the plan kills processes",
  );
  assert.ok(
    plan.planned["pause-past-lease"] > 0 && plan.planned["lose-response"] > 0,
    "the plan pauses holders and loses answers",
  );
  const injected = CHAOS_FAULTS.reduce((n, f) => n + r.injected[f], 0);
  assert.ok(injected > 0 && r.restarts > 0, `faults injected ${injected}, restarts ${r.restarts}`);
  // Every struck request was an operation's first or second; a second request's fault strikes only
  // if the operation sends one, so at most as many as planned.
  assert.equal(r.injectedByArrival[0]! + r.injectedByArrival[1]!, injected);
  assert.deepEqual(r.plannedByArrival, plan.plannedByArrival);
  for (const [i, n] of r.injectedByArrival.entries())
    assert.ok(
      n <= plan.plannedByArrival[i]!,
      `request ${i + 1}: ${n} struck, planned ${plan.plannedByArrival[i]}`,
    );
  assert.equal(r.tally.operations, smoke.ops);
  assert.deepEqual(
    {
      duplicates: r.tally.duplicates,
      lost: r.tally.lost,
      unanswered: r.tally.unanswered,
      stored: r.tally.stored,
      changed: r.changedAnswers,
    },
    { duplicates: 0, lost: 0, unanswered: 0, stored: smoke.ops, changed: 0 },
    r.examples.join("\n"),
  );
});

/** A made-up result, for the printout. */
function result(variant: ChaosResult["variant"], duplicates: number): ChaosResult {
  const ops = [{ index: 1, title: "a", acked: 1 }];
  const rows = [
    { id: 1, title: "a" },
    ...Array.from({ length: duplicates }, (_, i) => ({ id: i + 2, title: "a" })),
  ];
  const zero = Object.fromEntries(CHAOS_FAULTS.map((f) => [f, 0])) as ChaosResult["injected"];
  return {
    variant,
    store: "sqlite",
    seed: 42,
    digest: "abc",
    agents: 1,
    inFlight: 1,
    processes: 2,
    timeoutMs: 400,
    leaseMs: 700,
    tally: tally(ops, rows),
    changedAnswers: 0,
    planned: zero,
    plannedByArrival: [0, 0],
    injected: zero,
    injectedByArrival: [0, 0],
    restarts: 0,
    watchdogKills: 0,
    attempts: 1,
    gaveUp: 0,
    inFlightMean: 1,
    settled: 0,
    ms: 1000,
    examples: [],
  };
}

test("the printout: a failing fenced run names its seed and the command that replays it; other variants never fail the run", () => {
  const lines: string[] = [];
  const trace = new Trace({ color: false, step: false, write: (l) => lines.push(l) });
  const results = [result("keyed", 3), result("fenced", 1)];
  assert.deepEqual(
    failed(results).map((r) => r.variant),
    ["fenced"],
  );
  printSummary(trace, results, (v) => `npm run chaos -- --variant ${v} --ops 1 --seed 42`);
  const out = lines.join("\n");
  assert.match(out, /FAIL fenced: 1 duplicates, 0 lost.*seed 42/);
  assert.match(out, /replay: npm run chaos -- --variant fenced --ops 1 --seed 42/);
  assert.deepEqual(failed([result("keyed", 3), result("naive", 5), result("fenced", 0)]), []);
});

test("npm run chaos: --help, bad flags as one line with exit 2", async () => {
  const help = await runTs(["lib/chaos/cli.ts", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--variant/);
  assert.match(help.stdout, /lost/);
  assert.match(
    help.stdout,
    /--in-flight <value> +the most operations each agent has in flight at once;.*?\(default 3\)/s,
  );
  const bad = [
    [],
    ["--variant", "nope"],
    ["--variant", "fenced", "--ops", "0"],
    ["--variant", "fenced", "--faults", "meteor"],
    ["--variant", "fenced", "--in-flight", "0"],
    ["--bogus"],
    // Repeated: the parser alone would keep the last one silently.
    ["--variant", "fenced", "--ops", "5", "--ops", "6"],
    ["--variant", "fenced", "--ops=5", "--ops", "6"],
    ["--variant", "fenced", "--faults", "kill,kill"],
    ["--variant", "fenced", "--variant", "keyed", "--ops", "1"],
  ];
  const runs = await Promise.all(bad.map((args) => runTs(["lib/chaos/cli.ts", ...args])));
  runs.forEach((r, i) => {
    assert.equal(r.code, 2, `${bad[i]!.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, /^error: .* \(try --help\)\n$/, bad[i]!.join(" "));
  });
});

test("npm run chaos with paused holders only: keyed files twice (red), fenced once (green), and the run passes", async () => {
  const args = [
    "--variant",
    "keyed,fenced",
    "--faults",
    "pause-past-lease",
    "--ops",
    "16",
    "--agents",
    "8",
    "--processes",
    "2",
    "--seed",
    "3",
    "--fault-rate",
    "50",
    "--timeout-ms",
    "250",
    "--lease-ms",
    "400",
  ];
  const plan = planChaos({ seed: 3, ops: 16, agents: 8, rate: 0.5, faults: ["pause-past-lease"] });
  assert.ok(
    plan.ops.some((o) => o.faults[0] === "pause-past-lease"),
    "some operation's first request pauses",
  );
  const run = await runTs(["lib/chaos/cli.ts", ...args], { timeoutMs: 60_000 });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  // Piped: the progress is plain lines on stderr, the last of each variant at 100 %, with the
  // duplicates it read from the database so far (keyed's are there before the summary).
  assert.ok(!/[\r\x1b]/.test(run.stderr), JSON.stringify(run.stderr));
  const progress = run.stderr.trimEnd().split("\n");
  for (const line of progress)
    assert.match(
      line,
      /^(keyed|fenced): \d+\/16 operations \(\d+ %\)(, settling)?, \d+ duplicates?, \d+ kills?, \d+ s, /,
    );
  const last = (v: string): string => progress.filter((l) => l.startsWith(`${v}:`)).at(-1) ?? "";
  assert.match(last("fenced"), /^fenced: 16\/16 operations \(100 %\).*, 0 duplicates, .*done$/);
  assert.match(last("keyed"), /^keyed: 16\/16 operations \(100 %\).*, [1-9]\d* duplicates?, /);
  assert.match(run.stdout, new RegExp(`plan ${plan.digest}:`), "the printed plan is the seed's");
  const [, keyed, fenced] = tableRow(run.stdout, "duplicates")!;
  assert.ok(Number(keyed) >= 1, `keyed duplicates: ${keyed}`);
  assert.equal(fenced, "0");
  assert.deepEqual(tableRow(run.stdout, "lost")!.slice(1), ["0", "0"]);
  assert.match(
    run.stdout,
    /keyed, the first operations stored twice or lost:\n {2}op \d+ .*pause-past-lease/,
  );
  assert.match(run.stdout, /PASS fenced/);
});

test("npm run chaos --lang zh at 80 columns: Chinese throughout (names and commands aside), the same plan and verdict", async () => {
  const args = [
    "--variant",
    "keyed,fenced",
    "--faults",
    "pause-past-lease,lose-response",
    "--ops",
    "16",
    "--agents",
    "8",
    "--processes",
    "2",
    "--seed",
    "3",
    "--fault-rate",
    "50",
    "--timeout-ms",
    "250",
    "--lease-ms",
    "400",
  ];
  const plan = planChaos({
    seed: 3,
    ops: 16,
    agents: 8,
    rate: 0.5,
    faults: ["pause-past-lease", "lose-response"],
  });
  const run = await runTs(["lib/chaos/cli.ts", ...args, "--lang", "zh"], {
    timeoutMs: 60_000,
    env: { COLUMNS: "80" },
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const total = CHAOS_FAULTS.reduce((n, f) => n + plan.planned[f], 0);
  assert.match(
    run.stdout,
    new RegExp(
      `^计划 ${plan.digest}：${total} 个故障（第一个请求上 ${plan.plannedByArrival[0]} 个，第二个请求上 ${plan.plannedByArrival[1]} 个）：`,
      "m",
    ),
  );
  assert.match(run.stdout, /^通过 fenced：每个操作都恰好存了一次/m);
  assert.deepEqual(tableRow(run.stdout, "丢失")!.slice(1), ["0", "0"]);
  assert.deepEqual(widerThan(run.stdout, 80), []);
  // Each operation's attempts ("timeout, 409, 201") are the run's data, not prose.
  assert.deepEqual(englishRuns(run.stdout.replace(/尝试：.*$/gm, "")), []);
  assert.deepEqual(englishRuns(run.stderr), []);
  assert.match(run.stderr, /^fenced：16\/16 个操作（100 %），/m);
});
