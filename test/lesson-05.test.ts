// Lesson 05, run once: it prints what it measured, each case's report count read from its closing
// table, and no tracker process outlives it. The same seed's second run, and the runs at 80 and 120
// columns, are in test/full/.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type { Attempt } from "../lib/client/client.ts";
import { startChildTracker } from "../lib/tracker/child.ts";
import { pacedClock } from "../lib/tracker/paced-clock.ts";
import { runLesson, testRunsCleanly } from "./lesson-run.ts";
import { tableRow } from "./run-helpers.ts";

const LESSON = "lessons/05-leases-and-fencing.ts";

/** The pids of live processes whose command line mentions `text`. */
function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (
        readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text) &&
        !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, "utf8"))
      )
        pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

// The lesson's temporary files, and so its tracker processes' command lines, live under this folder.
const tmp = mkdtempSync(join(tmpdir(), "lesson-05-test-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
const ran = await runLesson([LESSON, "--seed", "1"], { env: { TMPDIR: tmp } });
// Read as soon as the lesson has exited: a tracker process still running now outlived it.
const outlived = processesMentioning(tmp);

testRunsCleanly("lesson 05", ran);

test("lesson 05 leaves no tracker process behind, and the check would see one", async () => {
  assert.deepEqual(outlived, [], "a tracker process outlived the lesson");
  // The check can see a tracker process: one started here, under the same folder, is found.
  const probe = await startChildTracker({ variant: "fenced", db: join(tmp, "probe.sqlite") });
  try {
    assert.deepEqual(processesMentioning(tmp), [probe.pid]);
  } finally {
    await probe.close();
  }
});

test("lesson 05 measures every case: kill -9 → 1, the paused holder 2 on keyed and 1 on fenced", () => {
  const reports = (label: string) => tableRow(ran.stdout, label)?.[1];
  assert.equal(reports("kill -9 after the claim, fenced"), "1 (error → 409 → 201)");
  assert.match(reports("paused holder, keyed") ?? "", /^2 \(the key replays report 2\)$/);
  assert.equal(reports("paused holder, fenced"), "1 (the key replays report 1)");
  assert.equal(reports("stale failure, keyed"), "1 (the agent was told 500 replayed)");
  assert.equal(reports("stale failure, fenced"), "1 (the agent was told 409)");
  assert.equal(reports("late holder, nobody took over, fenced"), "1 (201)");
  assert.match(ran.stdout, /#1 process killed \(SIGKILL\) at "after-claim"/);
  assert.match(
    ran.stdout,
    /TAKE OVER \(lease ran out\) key [0-9a-f]{8}…[0-9a-f]{4} as in_progress, fence 2 \(was 1\)/,
  );
  assert.match(
    ran.stdout,
    /#1 INSERT report 2, UPDATE key [0-9a-f]{8}…[0-9a-f]{4} completed WHERE fence = 1: 0 rows · ROLLBACK \(report 2 undone\)/,
  );
  assert.match(
    ran.stdout,
    /UPDATE key [0-9a-f]{8}…[0-9a-f]{4} to the error 500 WHERE fence = 1: 0 rows/,
  );
  assert.match(ran.stdout, /100 ms +│ +150 ms +│ +250 ms +│ +300 ms +│ +yes/);
  const took = Number(/This run took (\d+) ms/.exec(ran.stdout)?.[1]);
  assert.ok(took > 0 && took < 15_000, `the lesson took ${took} ms`);
});

test("the paced clock moves by what the agent waited: its timeout, then the wait it was asked for", () => {
  const clock = pacedClock(1_000);
  const timedOut: Attempt = { n: 1, outcome: { kind: "timeout", limitMs: 100 } };
  const conflict: Attempt = {
    n: 2,
    outcome: {
      kind: "response",
      status: 409,
      headers: { "retry-after-ms": "200" },
      body: undefined,
    },
  };
  const reset: Attempt = { n: 3, outcome: { kind: "error", code: "ECONNRESET", message: "" } };
  assert.equal(clock.now(), 1_000);
  assert.equal(clock.advance(timedOut, 0), 1_100);
  assert.equal(clock.advance(conflict, 200), 1_300);
  assert.equal(clock.advance(reset, 0), 1_300, "a reset connection cost no waiting");
  assert.equal(clock.now(), 1_300);
});
