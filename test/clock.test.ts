// Timers that count only running time: a stall of the whole process does not eat a timeout.
import assert from "node:assert/strict";
import { test } from "node:test";
import { after, nowMs, sleep } from "../lib/clock.ts";

/** Blocks the event loop for `ms` (a stall: the process gets no chance to run anything else). */
function stall(ms: number): void {
  const start = performance.now();
  while (performance.now() - start < ms) {
    // busy
  }
}

test("a stall of the whole process is not counted against a pending timer", async () => {
  const wall0 = performance.now();
  const run0 = nowMs();
  const fired = new Promise<{ wall: number; run: number }>((resolve) =>
    after(60, () => resolve({ wall: performance.now() - wall0, run: nowMs() - run0 })),
  );
  stall(250); // the timer is due at 60 ms, but the process is busy until 250 ms
  const { wall, run } = await fired;
  assert.ok(run >= 59, `fired after ${run} ms of running time`);
  assert.ok(wall >= 250 + 40, `fired ${wall} ms after start: the stall ate the timeout`);
});

test("the clock never runs backwards: a reading just after a stall already leaves the stall out", async () => {
  const cancel = after(10_000, () => {}); // the heartbeat runs
  try {
    const before = nowMs();
    stall(150);
    const justAfter = nowMs();
    await sleep(30); // the heartbeat has looked again meanwhile
    const later = nowMs();
    assert.ok(justAfter >= before, `${justAfter} < ${before}`);
    assert.ok(later >= justAfter, `the clock went back from ${justAfter} to ${later}`);
    assert.ok(justAfter - before < 100, `the stall was counted as running time: ${justAfter - before} ms`);
  } finally {
    cancel();
  }
});

test("without a stall a timer fires after its time", async () => {
  const wall0 = performance.now();
  await sleep(30);
  assert.ok(performance.now() - wall0 >= 29);
});

test("sleep rejects when its signal aborts", async () => {
  const c = new AbortController();
  const p = sleep(10_000, c.signal);
  c.abort(new Error("stop"));
  await assert.rejects(p, /stop/);
});

test("running time never goes backwards across a stall", async () => {
  const cancel = after(1_000, () => {});
  const before = nowMs();
  stall(120);
  const during = nowMs(); // read before any timer has had a chance to record the stall
  await sleep(1);
  const later = nowMs();
  cancel();
  assert.ok(during >= before, `${during} < ${before}`);
  assert.ok(later >= during, `${later} < ${during}`);
});
