// The tracker in a real child process: crash faults kill it with SIGKILL, a fresh child opens the same
// SQLite file, the parent steers faults and gates over IPC, and no child ever outlives its parent.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileReport, httpCall } from "../lib/client/client.ts";
import { seeded } from "../lib/core/random.ts";
import { ROOT } from "../lib/runner/catalog.ts";
import { childEnv } from "../lib/runner/exercise-run.ts";
import { type ChildExit, startChildTracker } from "../lib/tracker/child.ts";
import type { FaultName } from "../lib/tracker/faults.ts";
import type { TrackerEvent } from "../lib/tracker/narrate.ts";
import { countReportsIn } from "../lib/tracker/store.ts";
import { superviseTracker } from "../lib/tracker/supervisor.ts";
import type { VariantName } from "../lib/tracker/variant.ts";
import { gone } from "./run-helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "child-tracker-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const dbFile = (): string => join(dir, `t${++files}.sqlite`);
const report = { title: "Login button does nothing" };

/**
 * The crash case: request #1 hits `crash`, and the agent's retries wait (beforeRetry) until the
 * supervisor has a fresh child listening on the same file and port; reports are counted in the file.
 */
async function crashAndRetry(
  variant: VariantName,
  crash: FaultName,
  extra: { leaseMs?: number; maxAttempts?: number } = {},
) {
  const db = dbFile();
  const events: TrackerEvent[] = [];
  const tracker = await superviseTracker({
    variant,
    db,
    faults: { 1: crash },
    onEvent: (e) => events.push(e),
    ...(extra.leaseMs ? { leaseMs: extra.leaseMs } : {}),
  });
  const exits: ChildExit[] = [];
  try {
    const r = await fileReport({
      url: tracker.url,
      report,
      policy: "same-key",
      maxAttempts: extra.maxAttempts ?? 2,
      timeoutMs: 10_000,
      random: seeded(1),
      beforeRetry: async () => {
        if (tracker.generation === 1) exits.push(await tracker.restartAfterExit());
      },
    });
    const statuses = r.attempts.map((a) =>
      a.outcome.kind === "response" ? a.outcome.status : a.outcome.kind,
    );
    return {
      reports: countReportsIn(db),
      statuses,
      last: r.final,
      events,
      exits,
      generation: tracker.generation,
    };
  } finally {
    await tracker.close();
  }
}

test("a child tracker takes its side effects as a plug-in: the module named by URL is loaded in the child, with its config", async () => {
  const events: TrackerEvent[] = [];
  const module = new URL("./fixtures/side-effects-plugin.ts", import.meta.url).href;
  const tracker = await startChildTracker({
    variant: "naive",
    db: dbFile(),
    sideEffects: { module, config: { word: "plugged in" } },
    onEvent: (e) => events.push(e),
  });
  try {
    const r = await httpCall({
      method: "POST",
      url: `${tracker.url}/reports`,
      body: report,
      timeoutMs: 10_000,
    });
    assert.equal(r.kind === "response" && r.status, 201);
    await tracker.flush();
    assert.ok(
      events.some((e) => e.text === "plugged in: report 1 for anonymous caller"),
      events.map((e) => e.text).join("\n"),
    );
  } finally {
    await tracker.close();
  }
});

test("key-after killed (SIGKILL) between its commits: the retry on the restarted server stores a second report (red)", async () => {
  const r = await crashAndRetry("key-after", "crash-between-commits");
  assert.deepEqual(r.exits, [{ code: null, signal: "SIGKILL" }]);
  assert.deepEqual(r.statuses, ["error", 201], "the connection died with the process");
  assert.ok(
    r.events.some((e) => e.text.includes('killed (SIGKILL) at "between-commits"')),
    "the event before the kill reached the parent",
  );
  assert.equal(r.generation, 2);
  assert.equal(r.reports, 2);
});

test("keyed killed at the same point: the restarted server replays; one report (green)", async () => {
  const r = await crashAndRetry("keyed", "crash-between-commits");
  assert.deepEqual(r.statuses, ["error", 201]);
  assert.equal(r.last.kind === "response" && r.last.headers["idempotent-replayed"], "true");
  assert.equal(r.reports, 1);
});

test("keyed killed after the claim: the restarted server answers 409 until the lease ends, then takes over; one report", async () => {
  const r = await crashAndRetry("keyed", "crash-after-claim", { leaseMs: 150, maxAttempts: 3 });
  assert.equal(r.statuses[0], "error");
  assert.equal(r.statuses.at(-1), 201);
  // The restart may itself outlast the 150 ms lease; then the first retry takes over at once.
  assert.ok(r.statuses.length === 2 || r.statuses[1] === 409, `attempts: ${r.statuses.join(", ")}`);
  assert.ok(r.events.some((e) => e.text.includes("TAKE OVER")));
  assert.equal(r.reports, 1);
});

test("the parent steers the child over IPC: a slow request is held until released, a fault is set by number", async () => {
  const events: string[] = [];
  const server = await startChildTracker({
    variant: "keyed",
    db: dbFile(),
    faults: { 1: "slow" },
    onEvent: (e) => events.push(`#${e.requestNo} ${e.text}`),
  });
  try {
    const first = httpCall({
      method: "POST",
      url: `${server.url}/reports`,
      body: report,
      headers: { "idempotency-key": "a" },
      timeoutMs: 10_000,
    });
    await server.reached(1, "held");
    const busy = await httpCall({
      method: "POST",
      url: `${server.url}/reports`,
      body: report,
      headers: { "idempotency-key": "a" },
      timeoutMs: 10_000,
    });
    assert.equal(busy.kind === "response" && busy.status, 409);
    await server.flush();
    assert.ok(
      events.some((e) => e.startsWith("#2 → 409")),
      "flush() delivers every event written before it",
    );
    assert.equal(server.hasReached(1, "committed"), false);
    await server.release(1);
    const done = await first;
    assert.equal(done.kind === "response" && done.status, 201);
    assert.equal(server.hasReached(1, "committed"), true);

    await server.setFault(3, "internal-error");
    const failed = await httpCall({
      method: "POST",
      url: `${server.url}/reports`,
      body: report,
      headers: { "idempotency-key": "b" },
      timeoutMs: 10_000,
    });
    assert.equal(failed.kind === "response" && failed.status, 500);
  } finally {
    const exit = await server.close();
    assert.deepEqual(exit, { code: 0, signal: null }, "close() is a clean exit");
  }
});

test("close() and kill() leave no process behind; reached() rejects when the child dies first", async () => {
  const a = await startChildTracker({ variant: "naive", db: dbFile() });
  await a.close();
  await gone(a.pid, "process", 5_000);
  const b = await startChildTracker({ variant: "naive", db: dbFile(), faults: { 1: "slow" } });
  const waiting = b.reached(1, "committed");
  assert.equal((await b.kill()).signal, "SIGKILL");
  await assert.rejects(waiting, /exited before request 1 was committed/);
  await gone(b.pid, "process", 5_000);
  await b.close(); // closing a dead child is fine
});

test("a child that cannot start (its port is taken) is reported and not left running", async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
  const port = (blocker.address() as { port: number }).port;
  try {
    await assert.rejects(
      startChildTracker({ variant: "naive", db: dbFile(), port }),
      /did not start: .*EADDRINUSE/,
    );
  } finally {
    blocker.close();
  }
});

for (const how of ["hang", "exit", "throw"] as const) {
  test(`no child outlives its parent (the parent ${how === "hang" ? "is killed with SIGKILL" : how === "exit" ? "exits without closing it" : "dies of an uncaught error"})`, async () => {
    const parent = spawn(
      process.execPath,
      ["--import", "tsx", "test/fixtures/child-parent.ts", how],
      { cwd: ROOT, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    const line = new Promise<string>((resolve, reject) => {
      parent.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.includes("\n")) resolve(out);
      });
      parent.on("close", () =>
        reject(new Error(`the parent ended before printing the child's pid: ${out}`)),
      );
    });
    const [pid, scratch] = (await line).trim().split(" ");
    const childPid = Number(pid);
    assert.ok(childPid > 0);
    if (how === "hang") parent.kill("SIGKILL");
    await new Promise((r) =>
      parent.exitCode !== null || parent.signalCode !== null
        ? r(undefined)
        : parent.once("close", r),
    );
    await gone(childPid, "process", 5_000);
    rmSync(scratch!, { recursive: true, force: true });
  });
}
