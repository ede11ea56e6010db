// Lesson 08's cells as data (lib/matrix/cell-events.ts, lib/matrix/matrix.ts): every fault × variant ×
// client runs to its end; each step is one trace line, in order, and every tracker sentence is read
// back into what the server did (none is left "other"); the agent's attempts pair up; the count is the
// file's.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { POLICY_NAMES, type PolicyName } from "../../lib/client/client.ts";
import { liveChildren } from "../../lib/core/child-pipe.ts";
import {
  type CellEvent,
  type CellFault,
  matrixVariants,
  runCell,
  STEP_FAULTS,
} from "../../lib/matrix/matrix.ts";
import { countReportsIn } from "../../lib/tracker/store.ts";
import type { VariantName } from "../../lib/tracker/variant.ts";

const dir = mkdtempSync(join(tmpdir(), "cell-events-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let runs = 0;

async function stepped(variant: VariantName, fault: CellFault, policy: PolicyName) {
  const prefix = `${++runs}-`;
  const events: CellEvent[] = [];
  // Twice the lesson's timeout and lease, in its proportion, so that a loaded machine adds no attempt.
  const r = await runCell(variant, fault, {
    dbPath: (name) => join(dir, prefix + name),
    policy,
    timeoutMs: 300,
    leaseMs: 800,
    onEvent: (e) => events.push(e),
  });
  return { r, events };
}

function checkCell(
  where: string,
  r: Awaited<ReturnType<typeof stepped>>["r"],
  events: CellEvent[],
): void {
  // One event per trace line, in order, with the trace's own words.
  const lines = r.events.map((l) => l.replace(/^\s*\d+ ms {2}\S+\s+/, ""));
  assert.deepEqual(
    events.map((e) => e.text),
    lines,
    where,
  );
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
    where,
  );
  const unread = events.filter((e) => e.what === "other");
  assert.deepEqual(
    unread.map((e) => e.text),
    [],
    `${where}: every sentence is read back`,
  );
  // Each attempt sent comes back once, per call.
  const sent = events.filter((e) => e.what === "send").map((e) => `${e.call}.${e.attempt}`);
  const back = events.filter((e) => e.what === "receive").map((e) => `${e.call}.${e.attempt}`);
  assert.deepEqual([...back].sort(), [...sent].sort(), where);
  assert.deepEqual(r.calls.flat().length, back.length, where);
  // The count is the file's, and the verdict follows from it.
  assert.equal(r.reports, countReportsIn(r.db), where);
  assert.equal(r.verdict, r.reports === 1 ? "ok" : r.reports > 1 ? "duplicate" : "lost", where);
  // Every transaction said how it ended.
  for (const e of events.filter((e) => e.sql?.[0] === "BEGIN IMMEDIATE"))
    assert.ok(
      e.tx === "commit" ||
        e.tx === "rollback" ||
        e.what === "replay" ||
        e.what === "409" ||
        e.what === "422",
      `${where}: ${e.text}`,
    );
}

test("every in-process fault × variant × client runs to its end, each step read back", async () => {
  const inProcess = STEP_FAULTS.filter((f) => !f.startsWith("crash-"));
  const cells = matrixVariants().flatMap((variant) =>
    inProcess.flatMap((fault) => POLICY_NAMES.map((policy) => ({ variant, fault, policy }))),
  );
  assert.equal(cells.length, 4 * 6 * 4);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cells.length) {
      const c = cells[next++]!;
      const { r, events } = await stepped(c.variant, c.fault, c.policy);
      checkCell(`${c.variant} × ${c.fault} × ${c.policy}`, r, events);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
});

test("cells the issue names, and what each leaves", async () => {
  const leaves = async (variant: VariantName, fault: CellFault, policy: PolicyName) =>
    (await stepped(variant, fault, policy)).r.reports;
  assert.equal(await leaves("naive", "none", "no-retry"), 1);
  assert.equal(await leaves("naive", "drop-request", "blind-retry"), 1);
  assert.equal(await leaves("naive", "drop-request", "no-retry"), 0);
  assert.equal(await leaves("keyed", "lose-response", "fresh-key"), 2);
  assert.equal(await leaves("keyed", "lose-response", "same-key"), 1);
  assert.equal(await leaves("naive", "slow", "no-retry"), 1);
  assert.equal(await leaves("keyed", "concurrent", "blind-retry"), 0);
  assert.equal(await leaves("key-after", "concurrent", "same-key"), 2);
});

test("crash cells under each client: the process dies by SIGKILL, a new one starts on the same file", async () => {
  const cases: Array<[VariantName, CellFault, PolicyName, number]> = [
    ["key-after", "crash-between-commits", "same-key", 2],
    ["keyed", "crash-between-commits", "same-key", 1],
    ["keyed", "crash-between-commits", "fresh-key", 2],
    ["naive", "crash-between-commits", "no-retry", 1],
    ["fenced", "crash-after-claim", "blind-retry", 0],
  ];
  for (const [variant, fault, policy, reports] of cases) {
    const where = `${variant} × ${fault} × ${policy}`;
    const { r, events } = await stepped(variant, fault, policy);
    checkCell(where, r, events);
    assert.equal(r.reports, reports, where);
    const crash = events.find((e) => e.what === "crash");
    const restart = events.find((e) => e.what === "restart");
    if (r.fired) {
      assert.ok(crash && restart, where);
      assert.equal(crash.signal, "SIGKILL");
      assert.equal(restart.signal, "SIGKILL");
      assert.equal(
        restart.oldPid,
        crash.pid,
        `${where}: the process that crashed is the one that died`,
      );
      assert.notEqual(restart.pid, restart.oldPid);
      assert.ok(
        events
          .filter((e) => e.generation === 2 && e.actor !== "lesson")
          .every((e) => e.pid === restart.pid),
        where,
      );
    } else assert.equal(crash, undefined, where);
  }
  assert.equal(liveChildren(), 0, "every tracker process is gone");
});
