// The chaos run's printout and progress line, in English and in Chinese, from a made-up result: the
// Chinese has no English left outside names and commands, every line fits 80 columns by display
// width, both carry the same figures; and the summary says why fewer faults were injected than
// planned. `npm run chaos -- --help --lang zh` is read the same way.
import assert from "node:assert/strict";
import { test } from "node:test";
import { progressLine } from "../lib/chaos/progress.ts";
import type { ChaosResult } from "../lib/chaos/run.ts";
import { CHAOS_FAULTS } from "../lib/chaos/schedule.ts";
import { printSummary } from "../lib/chaos/summary.ts";
import { tally } from "../lib/chaos/tally.ts";
import { setLang } from "../lib/core/i18n.ts";
import { Trace } from "../lib/core/trace.ts";
import { countsOf, englishRuns, widerThan } from "./chinese-output.ts";
import { runTs } from "./run-helpers.ts";

/** A fenced run and a keyed one of 3 operations: keyed stored op 2 twice; 5 faults planned, 4 struck. */
function results(): ChaosResult[] {
  const ops = [1, 2, 3].map((index) => ({ index, title: `t${index}`, acked: index }));
  const planned = Object.fromEntries(CHAOS_FAULTS.map((f) => [f, 0])) as ChaosResult["planned"];
  planned["lose-response"] = 3;
  planned["pause-past-lease"] = 2;
  const injected = { ...planned, "pause-past-lease": 1 };
  const base: Omit<ChaosResult, "variant" | "tally" | "changedAnswers" | "examples"> = {
    store: "sqlite",
    seed: 7,
    digest: "0123456789ab",
    agents: 2,
    inFlight: 3,
    processes: 3,
    timeoutMs: 400,
    leaseMs: 700,
    planned,
    plannedByArrival: [4, 1],
    injected,
    injectedByArrival: [4, 0],
    restarts: 1,
    watchdogKills: 0,
    attempts: 9,
    gaveUp: 0,
    inFlightMean: 2,
    settled: 0,
    ms: 1500,
  };
  const rows = [1, 2, 3].map((i) => ({ id: i, title: `t${i}` }));
  return [
    {
      ...base,
      variant: "keyed",
      tally: tally(ops, [...rows, { id: 4, title: "t2" }]),
      changedAnswers: 1,
      examples: [
        "op 2 (agent-2, key 0a1b2c3d…): 2 reports (#2, #4), acknowledged as #2; faults: pause-past-lease on request 1; attempts: timeout, 409, 201",
      ],
    },
    { ...base, variant: "fenced", tally: tally(ops, rows), changedAnswers: 0, examples: [] },
  ];
}

function printed(lang: "en" | "zh"): string {
  setLang(lang);
  try {
    const lines: string[] = [];
    const trace = new Trace({ color: false, step: false, width: 80, write: (l) => lines.push(l) });
    printSummary(trace, results(), (v) => `npm run chaos -- --variant ${v} --ops 3 --seed 7`);
    return lines.join("\n");
  } finally {
    setLang("en");
  }
}

test("the summary says how many faults were planned for first and second requests, and why fewer struck", () => {
  const en = printed("en");
  assert.match(en, /plan 0123456789ab: 5 faults planned \(4 on first requests, 1 on second\):/);
  assert.match(en, /faults injected +│ +4 +│ +4/);
  assert.match(en, /at a first request +│ +4 +│ +4/);
  assert.match(en, /at a second request +│ +0 +│ +0/);
  assert.match(
    en.replace(/\s+/g, " "),
    /Fewer faults are injected than planned: a fault planned for an operation's second request strikes only if that operation sends a second request while faults are on\./,
  );
});

test("the summary in Chinese: no English left but names, within 80 columns, the same figures", () => {
  const en = printed("en");
  const zh = printed("zh");
  assert.match(zh, /^混沌测试，种子 7：/);
  assert.match(zh, /注入的故障比计划的少/);
  assert.match(zh, /通过 fenced：/);
  // The example line is the run's data (made up here in English): only the summary's own lines count.
  const own = zh
    .split("\n")
    .filter((l) => !l.includes("op 2 ("))
    .join("\n");
  assert.deepEqual(englishRuns(own), []);
  assert.deepEqual(widerThan(zh, 80), []);
  assert.deepEqual(countsOf(zh), countsOf(en));
});

test("the progress line in Chinese: the same figures, no English words", () => {
  const p = {
    variant: "fenced",
    done: 4_000,
    ops: 10_000,
    duplicates: 2,
    kills: 3,
    elapsedMs: 40_000,
    phase: "settling",
  } as const;
  const en = progressLine(p);
  setLang("zh");
  try {
    const zh = progressLine(p);
    assert.equal(
      zh,
      "fenced：4,000/10,000 个操作（40 %），收尾中，重复 2，杀掉进程 3 次，已用 40 s，还剩约 1 min 00 s",
    );
    assert.deepEqual(countsOf(zh), countsOf(en));
    assert.deepEqual(englishRuns(zh, 3), []);
  } finally {
    setLang("en");
  }
});

test("npm run chaos -- --help --lang zh: Chinese, within 80 columns", async () => {
  const help = await runTs(["lib/chaos/cli.ts", "--help", "--lang", "zh"], {
    env: { COLUMNS: "80" },
  });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /许多 Agent 同时通过同键客户端提交/);
  assert.deepEqual(widerThan(help.stdout, 80), []);
  // The frame of every command's help (the --lang and --help rows, "Options:") is lib/core's.
  const own = help.stdout.slice(0, help.stdout.indexOf("  --lang <zh|en>"));
  assert.deepEqual(englishRuns(own), []);
  const bad = await runTs(["lib/chaos/cli.ts", "--variant", "nope", "--lang", "zh"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--variant：没有“nope”这种实现/);
});
