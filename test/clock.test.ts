// Timers that count only running time: a stall of the whole process does not eat a timeout.
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { test } from "node:test";
import { after, nowMs, sleep } from "../lib/core/clock.ts";
import { ROOT } from "../lib/runner/catalog.ts";
import { childEnv } from "../lib/runner/exercise-run.ts";

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
    assert.ok(
      justAfter - before < 100,
      `the stall was counted as running time: ${justAfter - before} ms`,
    );
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

/** Runs `args` (node --import tsx …) on a pseudo-terminal, via util-linux's script(1); undefined without it. */
function onTerminal(args: string[]):
  | {
      child: ChildProcessWithoutNullStreams;
      output: () => string;
      waitFor: (re: RegExp) => Promise<void>;
    }
  | undefined {
  if (spawnSync("script", ["--version"]).status !== 0) return undefined;
  const command = [process.execPath, "--import", "tsx", ...args]
    .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
    .join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: ROOT,
    env: childEnv({ NO_COLOR: "1", TERM: "dumb" }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let text = "";
  const waiters = new Set<() => void>();
  child.stdout.on("data", (c: Buffer) => {
    text += c.toString();
    for (const w of [...waiters]) w();
  });
  return {
    child,
    output: () => text,
    waitFor: (re) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (re.test(text)) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
      }),
  };
}

test("a --step pause waits for Enter without using the CPU (under 0.1 s of CPU over 2 s of waiting)", {
  timeout: 60_000,
}, async (t) => {
  const term = onTerminal(["test/fixtures/step-pause.ts"]);
  if (!term) return t.skip("script(1) is not installed: no pseudo-terminal to test on");
  t.after(() => term.child.kill("SIGKILL"));
  await term.waitFor(/PAUSED/);
  // The measurement window: the pause must last a while for its CPU use to show. Nothing races here.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  term.child.stdin.write("\r");
  await term.waitFor(/RESUMED paused=true cpu_us=\d+/);
  const cpu = Number(/cpu_us=(\d+)/.exec(term.output())![1]);
  assert.ok(cpu < 100_000, `the pause used ${cpu / 1000} ms of CPU`);
});

test("Ctrl-C during a --step pause stops the process (exit 130), as it would outside the pause", {
  timeout: 60_000,
}, async (t) => {
  const term = onTerminal(["test/fixtures/step-pause.ts"]);
  if (!term) return t.skip("script(1) is not installed: no pseudo-terminal to test on");
  t.after(() => term.child.kill("SIGKILL"));
  await term.waitFor(/PAUSED/);
  term.child.stdin.write("\x03");
  const code = await new Promise<number | null>((resolve) =>
    term.child.on("close", (c) => resolve(c)),
  );
  assert.equal(code, 130);
  assert.doesNotMatch(term.output(), /RESUMED/);
});
