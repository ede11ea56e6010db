// Lesson 10's agent gives up on an attempt only once an instance has said that its request gets no
// answer (lib/cluster/trackers.ts, noAnswerFromNow), never on a timer alone: an instance that is
// merely slow (here stopped with SIGSTOP for longer than the timeout, as a busy machine can stall a
// process) is awaited, and a lost answer still times out. Red before: the first case's attempt 1
// timed out after 200 ms, and the retry made the story another one.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { agentCall, type Cluster, type ClusterRun, startCluster } from "../lib/cluster/trackers.ts";
import { seeded } from "../lib/core/random.ts";
import { Trace } from "../lib/core/trace.ts";

const dir = mkdtempSync(join(tmpdir(), "retry-workbook-cluster-gate-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const trace = new Trace({ color: false, step: false, width: 80, write: () => {} });
const report = { title: "Login button does nothing" };
const TIMEOUT_MS = 200;
/** The agent's call through the cluster, and what each attempt got: a status, or "timeout". */
const call = (cluster: Cluster) =>
  agentCall(cluster, { trace, report, timeoutMs: TIMEOUT_MS, random: seeded(1), maxAttempts: 3 });
const got = (run: ClusterRun): (number | string)[] =>
  run.attempts.map((a) => (a.outcome.kind === "response" ? a.outcome.status : a.outcome.kind));

test("an instance stopped for longer than the timeout is awaited: one attempt, 201", async () => {
  const cluster = await startCluster({
    trace,
    size: 1,
    store: { kind: "own-files", file: (i) => join(dir, `slow-${i}.sqlite`) },
  });
  try {
    const instance = cluster.instances[0]!;
    process.kill(instance.pid, "SIGSTOP");
    const resumed = new Promise((r) => setTimeout(r, 4 * TIMEOUT_MS)).then(() =>
      process.kill(instance.pid, "SIGCONT"),
    );
    const run = await call(cluster);
    await resumed;
    assert.deepEqual(got(run), [201]);
  } finally {
    await cluster.close();
  }
});

test("a lost answer still times out, and the retry is replayed: timeout, then 201", async () => {
  const cluster = await startCluster({
    trace,
    size: 1,
    store: { kind: "own-files", file: (i) => join(dir, `lost-${i}.sqlite`) },
    faults: { 1: { 1: "lose-response" } },
  });
  try {
    const run = await call(cluster);
    assert.deepEqual(got(run), ["timeout", 201]);
    assert.equal(
      run.attempts[1]?.outcome.kind === "response" &&
        run.attempts[1].outcome.headers["idempotent-replayed"],
      "true",
    );
  } finally {
    await cluster.close();
  }
});
