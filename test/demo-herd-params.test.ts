// Demo 1 without a browser: its URL parameters, the flags of `npm run herd` they map to, the
// simulator's latency parameter, the conclusions as data, the charts in Chinese, and the page the
// server renders from a URL.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { request } from "node:http";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { seeded } from "../lib/core/random.ts";
import {
  cliArgs,
  DEFAULTS,
  parseClients,
  parseParams,
  sweepSpec,
  toQuery,
} from "../lib/demos/herd/params.ts";
import { CHART_LABELS_ZH, formulaCaption } from "../lib/demos/herd/text.ts";
import { startDemoServer } from "../lib/demos/server.ts";
import { checkConclusions } from "../lib/herd/conclusions.ts";
import { herdCsv } from "../lib/herd/csv.ts";
import {
  HERD_LATENCY,
  HERD_STRATEGIES,
  type HerdStrategy,
  type PointResult,
  simulateMany,
  simulateOnce,
  simulateOnceLiteral,
  simulatePoint,
} from "../lib/herd/simulator.ts";
import { herdSvgs } from "../lib/herd/svg-docs.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function herdCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ["--import", "tsx", "lib/herd/cli.ts", ...args], {
    cwd: ROOT,
    encoding: "utf8",
  });
}

describe("Demo 1's parameters", () => {
  test("clients: a list, a sweep a..b:step, or both; each 1-200; repeats dropped; anything else refused", () => {
    assert.deepEqual(
      parseClients("10..190:10"),
      Array.from({ length: 19 }, (_, i) => (i + 1) * 10),
    );
    assert.deepEqual(parseClients("5..8"), [5, 6, 7, 8]);
    assert.deepEqual(parseClients(" 1, 20..40:10 ,20"), [1, 20, 30, 40]);
    for (const bad of ["", "0", "201", "10..5", "1..300", "a", "10;20", "10..20:0", "1..200"]) {
      assert.equal(parseClients(bad), undefined, bad);
    }
  });

  test("a URL's query gives the parameters, and the parameters give back the same query", () => {
    const parsed = parseParams(
      new URLSearchParams(
        "clients=5,20..40:10&strategies=full,exponential&runs=20&seed=-3&base=10&cap=800&mean=12.5&sd=0",
      ),
    );
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.params, {
      clients: [5, 20, 30, 40],
      clientsText: "5,20..40:10",
      strategies: ["exponential", "full"],
      runs: 20,
      seed: -3,
      baseMs: 10,
      capMs: 800,
      meanMs: 12.5,
      sdMs: 0,
    });
    const again = parseParams(new URLSearchParams(toQuery(parsed.params)));
    assert.deepEqual(again, parsed);
    assert.deepEqual(parseParams(new URLSearchParams("")), { ok: true, params: DEFAULTS });
  });

  test("each bad value names its field, in both languages, and keeps the defaults for the rest", () => {
    const parsed = parseParams(
      new URLSearchParams("clients=0&strategies=fast&runs=0&seed=x&base=0&cap=1&mean=-1&sd=-1"),
    );
    assert.equal(parsed.ok, false);
    if (parsed.ok) return;
    assert.deepEqual(
      parsed.errors.map((e) => e.field),
      ["clients", "strategies", "runs", "seed", "base", "cap", "mean", "sd"],
    );
    for (const e of parsed.errors) {
      assert.match(e.message.en, /[a-z]/);
      assert.match(e.message.zh, /[\u4e00-\u9fff]/);
    }
    assert.equal(parsed.params.runs, DEFAULTS.runs);
  });

  test("npm run herd with the page's flags prints the CSV of the page's sweep (the same module, one CSV function)", () => {
    for (const query of [
      "clients=3,12&runs=7&seed=11",
      "clients=4..6&strategies=decorrelated,codex-capped&runs=5&seed=2&base=7&cap=300&mean=15&sd=4",
    ]) {
      const parsed = parseParams(new URLSearchParams(query));
      assert.ok(parsed.ok);
      const r = herdCli(["--csv", ...cliArgs(parsed.params)]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, herdCsv(simulateMany(sweepSpec(parsed.params))), query);
    }
  });
});

describe("npm run herd's new flags", () => {
  test("--base, --cap, --latency-mean and --latency-sd change the run; a bad value is one line naming the flag", () => {
    const plain = herdCli([
      "--csv",
      "--clients",
      "10",
      "--runs",
      "5",
      "--strategies",
      "exponential",
    ]);
    const slow = herdCli([
      "--csv",
      "--clients",
      "10",
      "--runs",
      "5",
      "--strategies",
      "exponential",
      "--latency-mean",
      "40",
      "--latency-sd",
      "0",
    ]);
    assert.equal(plain.status, 0);
    const completion = (csv: string): number => Number(csv.trim().split("\n")[1]!.split(",")[3]);
    assert.ok(
      completion(slow.stdout) > 2 * completion(plain.stdout),
      `${plain.stdout} / ${slow.stdout}`,
    );
    for (const [args, flag] of [
      [["--base", "0"], "--base"],
      [["--cap", "2", "--base", "5"], "--cap"],
      [["--latency-sd", "-1"], "--latency-sd"],
      [["--latency-mean", "x"], "--latency-mean"],
    ] as const) {
      const r = herdCli([...args]);
      assert.equal(r.status, 2, args.join(" "));
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`^error: .*${flag}.*\\(try --help\\)`));
    }
    assert.match(herdCli(["--help"]).stdout, /--latency-mean[\s\S]*--latency-sd/);
  });
});

describe("the simulator's latency parameter", () => {
  test("the original's latency given explicitly is the default, draw for draw", () => {
    for (const strategy of HERD_STRATEGIES) {
      const a = simulatePoint({ strategy, clients: 30, runs: 5, seed: 4 });
      const b = simulatePoint({
        strategy,
        clients: 30,
        runs: 5,
        seed: 4,
        latency: { ...HERD_LATENCY },
      });
      assert.deepEqual(a, b);
    }
  });

  test("one client takes four hops: about 4 × the mean, in both loops", () => {
    const latency = { meanMs: 30, sdMs: 1 };
    for (const sim of [simulateOnce, simulateOnceLiteral]) {
      const random = seeded(9);
      const runs = Array.from({ length: 200 }, () => sim("full", 1, random, { latency }));
      assert.ok(runs.every((r) => r.calls === 1));
      const mean = runs.reduce((s, r) => s + r.completionMs, 0) / runs.length;
      assert.ok(Math.abs(mean - 120) < 1, `mean completion ${mean}`);
    }
  });
});

describe("the blog's conclusions as data", () => {
  const row = (
    strategy: HerdStrategy,
    clients: number,
    calls: number,
    completionMs: number,
  ): PointResult => ({ strategy, clients, runs: 100, calls, completionMs });
  // A made-up run where every conclusion holds, then one where exponential is quick.
  const good: PointResult[] = [
    row("no-backoff", 10, 50, 300),
    row("no-backoff", 100, 4000, 2000),
    row("exponential", 10, 40, 900),
    row("exponential", 100, 3500, 60000),
    row("full", 10, 30, 400),
    row("full", 100, 800, 5000),
    row("equal", 10, 30, 500),
    row("equal", 100, 820, 6500),
    row("decorrelated", 10, 32, 450),
    row("decorrelated", 100, 1000, 4500),
    row("codex-capped", 10, 38, 800),
    row("codex-capped", 100, 900, 12000),
  ];

  test("each verdict follows from the numbers", () => {
    const all = checkConclusions(good);
    assert.equal(all.clients, 100);
    assert.deepEqual(
      all.conclusions.filter((c) => c.holds !== true).map((c) => c.id),
      [],
    );
    assert.equal(all.conclusions.length, 8);
    const quick = checkConclusions(
      good.map((r) =>
        r.strategy === "exponential" && r.clients === 100 ? { ...r, completionMs: 3000 } : r,
      ),
    );
    assert.equal(quick.conclusions.find((c) => c.id === "exponential-time")!.holds, false);
  });

  test("a strategy left out, or a single client count, leaves the conclusions that need it unchecked", () => {
    const some = checkConclusions(good.filter((r) => r.strategy !== "equal" && r.clients === 100));
    const byId = Object.fromEntries(some.conclusions.map((c) => [c.id, c]));
    assert.equal(byId["no-backoff-n-squared"]!.holds, undefined);
    assert.equal(byId["full-equal-work"]!.holds, undefined);
    assert.deepEqual(byId["full-equal-work"]!.missing, ["equal"]);
    assert.equal(byId["jitter-default"]!.holds, true);
  });
});

describe("the page's conclusions and lesson 02's", () => {
  test("give the same verdicts on the same run, mixed ones included", () => {
    for (const [clients, runs, seed] of [
      [[3, 6], 3, 2],
      [[4, 8], 2, 3],
      [[5], 5, 1],
    ] as const) {
      const lesson = spawnSync(
        process.execPath,
        [
          "--import",
          "tsx",
          "lessons/02-backoff-and-jitter.ts",
          "--clients",
          clients.join(","),
          "--runs",
          String(runs),
          "--seed",
          String(seed),
          "--no-color",
        ],
        { cwd: ROOT, encoding: "utf8" },
      );
      assert.equal(lesson.status, 0, lesson.stderr);
      const printed = lesson.stdout
        .split("\n")
        .flatMap((l) =>
          /^ {2}✓ supported/.test(l)
            ? [true]
            : /^ {2}✗ not supported/.test(l)
              ? [false]
              : /^ {2}\? not checked/.test(l)
                ? [undefined]
                : [],
        );
      const rows = simulateMany({ strategies: HERD_STRATEGIES, clients: [...clients], runs, seed });
      const page = checkConclusions(rows).conclusions.map((c) => c.holds);
      assert.deepEqual(
        page,
        printed,
        `--clients ${clients.join(",")} --runs ${runs} --seed ${seed}`,
      );
    }
  });
});

describe("the charts in the page's language", () => {
  test("the same SVG documents, with every label in Chinese", () => {
    const rows = simulateMany({
      strategies: ["exponential", "full"],
      clients: [5, 10],
      runs: 3,
      seed: 1,
    });
    const [calls, completion] = herdSvgs(rows, undefined, CHART_LABELS_ZH);
    assert.match(calls!.svg, /每次运行的写调用数与客户端数/);
    assert.match(completion!.svg, /（对数刻度）/);
    assert.doesNotMatch(calls!.svg + completion!.svg, /log scale|clients<|Completion time/);
    // Lines differ by dash as well as colour.
    assert.match(calls!.svg, /stroke-dasharray="8 4"/);
  });
});

describe("the formulas' captions", () => {
  test("exponential's example waits are computed from the base and cap: 10, 20, 40 at the default 5 ms, others elsewhere", () => {
    assert.deepEqual(formulaCaption("exponential", DEFAULTS), {
      en: "the same wait for everyone who failed together: 10, 20, 40 … ms",
      zh: "同时失败的客户端等一样久：10、20、40…… ms",
    });
    assert.equal(
      formulaCaption("exponential", { baseMs: 7, capMs: 2000 }).en,
      "the same wait for everyone who failed together: 14, 28, 56 … ms",
    );
    assert.equal(
      formulaCaption("exponential", { baseMs: 7, capMs: 2000 }).zh,
      "同时失败的客户端等一样久：14、28、56…… ms",
    );
    // The cap bounds them, as min(cap, base · 2^n) does; a fractional base stays readable; no thousands separator.
    assert.match(formulaCaption("exponential", { baseMs: 5, capMs: 25 }).en, /: 10, 20, 25 … ms$/);
    assert.match(
      formulaCaption("exponential", { baseMs: 0.3, capMs: 2000 }).en,
      /: 0\.6, 1\.2, 2\.4 … ms$/,
    );
    assert.match(
      formulaCaption("exponential", { baseMs: 1000, capMs: 100_000 }).en,
      /: 2000, 4000, 8000 … ms$/,
    );
    // The other captions do not depend on the base.
    assert.deepEqual(
      formulaCaption("full", { baseMs: 7, capMs: 2000 }),
      formulaCaption("full", DEFAULTS),
    );
  });
});

describe("the page the server renders", () => {
  const get = (
    url: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      request(url, { headers }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
        .on("error", reject)
        .end();
    });

  test("fills the form from the URL, marks a bad value, and speaks the language asked for", async () => {
    const server = await startDemoServer();
    try {
      const en = await get(`${server.url}/herd?clients=10..190:10&runs=0&seed=7&strategies=full`);
      assert.equal(en.status, 200);
      assert.match(en.body, /id="clients" name="clients" value="10\.\.190:10"/);
      assert.match(en.body, /id="seed" name="seed" value="7"/);
      assert.match(en.body, /id="runs"[^>]*aria-invalid="true"/);
      assert.match(en.body, /id="s-full" name="strategies" value="full" checked/);
      assert.doesNotMatch(en.body, /id="s-equal" name="strategies" value="equal" checked/);
      assert.match(en.body, /<math/);
      assert.match(en.body, /<script type="module" src="\/assets\/herd\.js">/);
      // The caption under exponential's formula follows the URL's base: the default's 10, 20, 40 here.
      assert.match(
        en.body,
        /id="caption-exponential">the same wait for everyone who failed together: 10, 20, 40 … ms</,
      );
      const base7 = await get(`${server.url}/herd?base=7`);
      assert.match(
        base7.body,
        /id="caption-exponential">the same wait for everyone who failed together: 14, 28, 56 … ms</,
      );
      assert.doesNotMatch(base7.body, /10, 20, 40/);
      const zh = await get(`${server.url}/herd?base=7`, { "accept-language": "zh-CN,zh;q=0.9" });
      assert.match(zh.body, /<html lang="zh-CN">/);
      assert.match(zh.body, /惊群模拟器/);
      assert.match(zh.body, /id="caption-exponential">同时失败的客户端等一样久：14、28、56…… ms</);
      const js = await get(`${server.url}/assets/herd-worker.js`);
      assert.equal(js.status, 200);
      assert.match(js.body, /postMessage/);
    } finally {
      await server.close();
    }
  });
});
