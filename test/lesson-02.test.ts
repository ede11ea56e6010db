// Lesson 02, run once: it prints schedules computed by lib/client/backoff.ts, the herd simulator's
// tables and the blog's conclusions checked against them (all fixed by the seed), then a live HTTP
// demo whose counts vary with scheduling: only its robust properties are checked. The same seed's
// second run, and the runs at 80 and 120 columns, are in test/full/.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { runLesson, testRunsCleanly } from "./lesson-run.ts";
import { runTs, tableRow } from "./run-helpers.ts";
import { allElements, parseXml } from "./xml.ts";

const LESSON = "lessons/02-backoff-and-jitter.ts";
const LIVE = "The herd over real HTTP";
const ran = await runLesson([LESSON, "--seed", "1"]);

testRunsCleanly("lesson 02", ran);

test("lesson 02's live HTTP demo ran", () => {
  assert.ok(ran.stdout.includes(LIVE), "the live HTTP demo ran");
});

test("lesson 02: Codex's schedule, nominal and range, as computed", () => {
  assert.deepEqual(tableRow(ran.stdout, "retry 1")?.slice(0, 2), ["retry 1", "180–220"]);
  assert.deepEqual(tableRow(ran.stdout, "retry 4")?.slice(0, 2), ["retry 4", "1,440–1,760"]);
  const draw = Number(tableRow(ran.stdout, "retry 4")![2]!.replace(/,/g, ""));
  assert.ok(draw >= 1440 && draw < 1760, `retry 4's draw ${draw}`);
});

test("lesson 02 leaves exercise 02a's answer to the learner: no nominal Codex wait is printed", () => {
  assert.doesNotMatch(ran.stdout, /1,600|\b1600\b/);
  assert.match(ran.stdout.replace(/\s+/g, " "), /exercise 02a asks you to compute them/);
});

test("lesson 02 says what it measured: the exponent against N², decorrelated's widest range, why 2 × base", () => {
  const text = ran.stdout.replace(/\s+/g, " ");
  assert.match(
    text,
    /like N\^\d\.\d+: between linear \(×10\) and N² \(×100\), so the check is that the exponent is at least 1\.5/,
  );
  assert.match(text, /widest range any history could reach by retry n/);
  assert.match(
    text,
    /Exponential doubles from 10 ms, 2 × base, because the blog's simulator counts the first retry as n = 1/,
  );
  assert.doesNotMatch(text, /found in recent forks|stored copy/);
});

test("lesson 02: the SDK's jitter only goes down, by up to 25 %", () => {
  assert.deepEqual(tableRow(ran.stdout, "retry 1")?.slice(3, 6), ["0", "500", "375–500"]);
  assert.deepEqual(tableRow(ran.stdout, "retry 5")?.slice(3, 6), ["4", "8,000", "6,000–8,000"]);
  assert.match(ran.stdout.replace(/\s+/g, " "), /from −25 % to 0 % of 4,000 ms/);
});

test("lesson 02: the AWS four, retry by retry", () => {
  const row = tableRow(ran.stdout, "n = 1")!;
  assert.equal(row[1], "10");
  assert.match(row[2]!, /^0–10 → \d/);
  assert.match(row[3]!, /^5–10 → \d/);
  assert.match(row[4]!, /^5–15 → \d/);
  assert.equal(tableRow(ran.stdout, "n = 8")![1], "1,280");
});

test("lesson 02: the simulator's tables and charts are printed", () => {
  assert.match(ran.stdout, /Write calls per run \(mean\)/);
  assert.match(ran.stdout, /Completion time versus clients/);
  assert.match(ran.stdout, /When the write calls reach the server: 100 clients/);
  assert.match(ran.stdout, /^\s+100\s+[\d,.]+\s+[\d,.]+/m);
});

test("lesson 02: every conclusion of the blog is printed with its verdict; all hold for seed 1", () => {
  const claims = [
    "Without backoff, work grows much faster than N (the blog: roughly N²).",
    "Backoff without jitter barely helps with the work.",
    "Backoff without jitter is the clear loser on time.",
    "Full and Equal jitter cost about the same work.",
    "Decorrelated jitter costs somewhat more.",
    "Equal jitter is the slowest of the jittered ones.",
    "Jittered backoff should be the default.",
  ];
  for (const claim of claims) assert.ok(ran.stdout.includes(`✓ supported  ${claim}`), claim);
  assert.match(ran.stdout, /exponential used \d+ % of no-backoff's calls/);
  assert.match(ran.stdout, /8 of 8 conclusions checked supported by this run/);
});

test("lesson 02, live HTTP: every agent is served under both strategies, and the counts add up", () => {
  for (const strategy of ["exponential", "full"]) {
    const m = new RegExp(
      `${strategy}: (\\d+) requests for 10 agents; (\\d+) served, (\\d+) answered 503`,
    ).exec(ran.stdout);
    assert.ok(m, `no summary line for ${strategy}`);
    const [requests, served, refused] = [Number(m[1]), Number(m[2]), Number(m[3])];
    assert.equal(served, 10);
    assert.equal(requests, served + refused);
    assert.ok(requests <= 300, `${requests} requests: more than 30 attempts per agent`);
  }
});

test("lesson 02, live HTTP: its words about full jitter agree with the 503s this run counted", () => {
  const refused = (strategy: string) =>
    Number(
      new RegExp(`${strategy}: \\d+ requests for 10 agents; \\d+ served, (\\d+) answered 503`).exec(
        ran.stdout,
      )![1],
    );
  const [expo, full] = [refused("exponential"), refused("full")];
  const text = ran.stdout.replace(/\s+/g, " ");
  assert.match(
    text,
    new RegExp(`full jitter was turned away ${full} times, exponential ${expo} times\\.`),
  );
  if (full >= expo) assert.match(text, /This run did not show it/);
  else assert.doesNotMatch(text, /This run did not show it/);
  assert.doesNotMatch(text, /the server mostly finds a retry on its own/);
});

// One small run checks both --clients with --runs and --svg: 2 client counts, a few runs, the charts.
const svgDir = mkdtempSync(join(tmpdir(), "retry-workbook-svg-"));
after(() => rmSync(svgDir, { recursive: true, force: true }));
let small: ReturnType<typeof runTs> | undefined;
const smallRun = () =>
  (small ??= runTs([LESSON, "--clients", "20,10", "--runs", "5", "--svg", svgDir], {
    timeoutMs: 60_000,
  }));

test("lesson 02: --clients and --runs are checked; bad values exit 2 with one line", async () => {
  const [badList, badRuns] = await Promise.all([
    runTs([LESSON, "--clients", "10,x"]),
    runTs([LESSON, "--runs", "0"]),
  ]);
  for (const bad of [badList, badRuns]) {
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^error: --(clients|runs) .* \(try --help\)\n$/);
  }
  const r = await smallRun();
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /10, 20 clients; 5 runs per point/);
  assert.match(r.stdout, /conclusions, checked against this run \(20 clients\)/);
});

test("lesson 02 --svg writes the three herd charts, well-formed, with the plotted points", async () => {
  const r = await smallRun();
  assert.equal(r.code, 0, r.stderr);
  for (const name of ["herd-calls.svg", "herd-completion.svg", "herd-write-times.svg"]) {
    const svg = readFileSync(join(svgDir, name), "utf8");
    const root = parseXml(svg); // throws on anything that is not well-formed XML
    assert.equal(root.name, "svg", name);
    assert.ok(
      allElements(root).some(
        (e) => e.attrs["data-y"] !== undefined || e.attrs["data-value"] !== undefined,
      ),
      `${name} has no plotted points`,
    );
  }
});
