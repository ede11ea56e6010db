// The benchmark's report (lib/bench/report.ts, floor.ts) from made-up measurements, in English and
// in Chinese, at 80 columns: every line fits by display width, the Chinese has no English left
// outside names and commands, and both carry the same figures. The old ratio goals (keyed with fresh
// keys ≥ 0.85× naive, above the floor's own ratio) are not printed; the floor's are.
import assert from "node:assert/strict";
import { test } from "node:test";
import { floorReport } from "../lib/bench/floor.ts";
import type { SweepSpeed } from "../lib/bench/herd-speed.ts";
import {
  benchTargets,
  type IdempotencyBench,
  postgresBenchTargets,
  type TargetResult,
} from "../lib/bench/idempotency.ts";
import {
  durabilityReport,
  herdSpeedReport,
  idempotencyReport,
  postgresReport,
} from "../lib/bench/report.ts";
import { setLang, t } from "../lib/core/i18n.ts";
import { countsOf, englishRuns, widerThan } from "./chinese-output.ts";
import { runTs } from "./run-helpers.ts";

const VARIANTS = ["naive", "key-after", "keyed", "fenced"] as const;

function result(target: TargetResult["target"], i: number): TargetResult {
  const perSecond = 4000 - 300 * i;
  return {
    target,
    rounds: [],
    perSecond,
    p50Ms: 3.2 + i,
    p99Ms: 41 + 7 * i,
    cpuMicrosPerRequest: 120 + 25 * i,
    spread: [perSecond - 210, perSecond + 190],
    journalMode: target.postgres ? "fsync=on" : "wal",
    synchronous: target.postgres
      ? `synchronous_commit=${target.postgres.synchronousCommit}`
      : target.synchronous,
    problems: [],
    reports: 1,
    requests: 1,
    ...(target.postgres
      ? { roundTripsPerRequest: target.keys === "replay" ? 2 : 5, commitsPerRequest: 2 }
      : {}),
  } as TargetResult;
}

const spec = { concurrency: 16, warmupMs: 500, roundMs: 300, rounds: 10 };

/** Everything `npm run bench` prints after its first line, from the same made-up numbers. */
function report(lang: "en" | "zh"): string {
  setLang(lang);
  try {
    const sqlite: IdempotencyBench = {
      spec,
      results: benchTargets([...VARIANTS]).map(result),
      fileSystem: "ext4",
    };
    const postgres: IdempotencyBench = {
      spec,
      results: postgresBenchTargets([...VARIANTS]).map(result),
      fileSystem: "ext4",
    };
    // The labels as herd-speed.ts makes them, in this language.
    const herd: SweepSpeed[] = [
      { label: t("write-only loop (npm run herd)"), threads: 2 },
      { label: t("literal loop, message by message"), threads: 1 },
    ].map((r, i) => ({
      ...r,
      work: t("{strategies} strategies × {counts} client counts × {runs} runs", {
        strategies: 6,
        counts: 19,
        runs: 100,
      }),
      roundsMs: [900],
      medianMs: 900 + 1000 * i,
      cpuMs: 1700,
      calls: 16_000_000,
      events: 64_000_000,
      eventsPerSecond: 71_000_000 / (1 + 9 * i),
    }));
    return [
      herdSpeedReport(herd, 3, 80),
      idempotencyReport(sqlite, 80),
      durabilityReport(sqlite, 80),
      floorReport(sqlite, { operations: 20_000, insertMicros: 34, claimCompleteMicros: 83 }, 80),
      postgresReport(postgres, "PostgreSQL 18.4, embedded, 127.0.0.1", 80),
    ].join("\n\n");
  } finally {
    setLang("en");
  }
}

test("the bench's report at 80 columns: every line fits, in English and in Chinese", () => {
  for (const lang of ["en", "zh"] as const) assert.deepEqual(widerThan(report(lang), 80), [], lang);
});

test("the report in Chinese: no English left but names and commands, the same figures", () => {
  const en = report("en");
  const zh = report("zh");
  assert.match(zh, /幂等的代价：经回环发 POST \/reports/);
  assert.deepEqual(englishRuns(zh), []);
  // A narrow column may wrap its header "p50 ms" in one language and not the other: not a figure.
  const figures = (text: string): number[] => countsOf(text.replace(/\bp(50|99)\b/g, "p"));
  assert.deepEqual(figures(zh), figures(en));
});

test("the goals printed are the floor's and the sweep's; the old ratio goal is gone", () => {
  const en = report("en");
  assert.doesNotMatch(en, /0\.85×|Goal, keyed|Goal, fenced/);
  assert.match(
    en.replace(/\s+/g, " "),
    /Goal, the sweep well under 2 s: 900 ms on 2 threads: met\./,
  );
  assert.match(en, /≤ 140 µs/);
  assert.match(en, /≤ 90 µs/);
});

test("npm run bench -- --help --lang zh: Chinese, within 80 columns", async () => {
  const help = await runTs(["lib/bench/cli.ts", "--help", "--lang", "zh"], {
    env: { COLUMNS: "80" },
  });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /基准测试，在这台机器上一次跑完/);
  assert.deepEqual(widerThan(help.stdout, 80), []);
  // The frame of every command's help (the --lang and --help rows, "Options:") is lib/core's.
  assert.deepEqual(englishRuns(help.stdout.slice(0, help.stdout.indexOf("  --lang <zh|en>"))), []);
});
