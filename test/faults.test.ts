// Faults by request number, ordered by gates: the three truths of lesson 01, counted.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileReport, httpCall } from "../lib/client/client.ts";
import { seeded } from "../lib/core/random.ts";
import { Faults } from "../lib/tracker/faults.ts";
import { startTracker } from "../lib/tracker/service.ts";

const report = { title: "Login button does nothing" };
const TIMEOUT_MS = 100;

test("drop-request: nothing runs, the agent times out, a blind retry stores exactly one report", async () => {
  const faults = new Faults({ 1: "drop-request" });
  const t = await startTracker({ faults });
  try {
    const r = await fileReport({
      url: t.url,
      report,
      policy: "blind-retry",
      maxAttempts: 2,
      timeoutMs: TIMEOUT_MS,
      random: seeded(1),
    });
    assert.equal(r.attempts[0]!.outcome.kind, "timeout");
    assert.equal(r.ok, true);
    assert.equal(faults.hasReached(1, "dropped"), true);
    assert.equal(faults.hasReached(1, "committed"), false);
    assert.equal(t.store.countReports(), 1);
  } finally {
    await t.close();
  }
});

test("lose-response: committed, the answer never arrives, a blind retry stores a duplicate", async () => {
  const faults = new Faults({ 1: "lose-response" });
  const t = await startTracker({ faults });
  try {
    const r = await fileReport({
      url: t.url,
      report,
      policy: "blind-retry",
      maxAttempts: 2,
      timeoutMs: TIMEOUT_MS,
      random: seeded(1),
    });
    assert.equal(r.attempts[0]!.outcome.kind, "timeout");
    assert.equal(faults.hasReached(1, "committed"), true);
    assert.equal(faults.hasReached(1, "lost"), true);
    assert.equal(t.store.countReports(), 2);
  } finally {
    await t.close();
  }
});

test("no-retry after a lost response: one attempt, one report, and the agent does not know it", async () => {
  const t = await startTracker({ faults: new Faults({ 1: "lose-response" }) });
  try {
    const r = await fileReport({
      url: t.url,
      report,
      policy: "no-retry",
      timeoutMs: TIMEOUT_MS,
      random: seeded(1),
    });
    assert.equal(r.attempts.length, 1);
    assert.equal(r.ok, false);
    assert.equal(t.store.countReports(), 1);
  } finally {
    await t.close();
  }
});

test("slow: the handler holds at its gate until released; the retry runs beside it; two reports", async () => {
  const faults = new Faults({ 1: "slow" });
  const t = await startTracker({ faults });
  try {
    const call = fileReport({
      url: t.url,
      report,
      policy: "blind-retry",
      maxAttempts: 2,
      timeoutMs: TIMEOUT_MS,
      random: seeded(1),
    });
    await faults.reached(1, "held");
    await faults.reached(2, "arrived");
    assert.equal(faults.hasReached(1, "committed"), false, "#1 is still held when #2 arrives");
    const r = await call;
    assert.equal(r.ok, true);
    assert.equal(t.store.countReports(), 1, "only the retry has been stored so far");
    faults.release(1);
    await faults.reached(1, "committed");
    assert.equal(t.store.countReports(), 2);
  } finally {
    await t.close();
  }
});

test("a request held forever does not keep close() from finishing", async () => {
  const faults = new Faults({ 1: "slow" });
  const t = await startTracker({ faults });
  const call = httpCall({
    method: "POST",
    url: `${t.url}/reports`,
    body: report,
    timeoutMs: 10_000,
  });
  await faults.reached(1, "held");
  await t.close();
  const o = await call;
  assert.equal(o.kind, "error");
  assert.equal(t.store.db.isOpen, false);
});

test("PUT twice after a lost answer leaves one row; POST twice leaves two", async () => {
  for (const [method, path, rows] of [
    ["PUT", "/reports/7", 1],
    ["POST", "/reports", 2],
  ] as const) {
    const t = await startTracker({ faults: new Faults({ 1: "lose-response" }) });
    try {
      const first = await httpCall({
        method,
        url: t.url + path,
        body: report,
        timeoutMs: TIMEOUT_MS,
      });
      assert.equal(first.kind, "timeout");
      const second = await httpCall({ method, url: t.url + path, body: report, timeoutMs: 5000 });
      assert.equal(second.kind, "response");
      assert.equal(t.store.countReports(), rows, method);
    } finally {
      await t.close();
    }
  }
});

test("stages resolve for waiters that come before or after the event", async () => {
  const faults = new Faults();
  const early = faults.reached(3, "arrived");
  faults.mark(3, "arrived");
  await early;
  await faults.reached(3, "arrived");
  assert.equal(faults.hasReached(3, "arrived"), true);
  assert.equal(faults.hasReached(3, "committed"), false);
  assert.equal(faults.faultFor(3), "none");
  faults.otherwise((n) => (n % 2 === 0 ? "slow" : undefined)).at(4, "lose-response");
  assert.equal(faults.faultFor(2), "slow");
  assert.equal(faults.faultFor(4), "lose-response");
  assert.equal(faults.faultFor(5), "none");
});

test("keepLast(n) forgets finished requests beyond the last n, and only finished ones", () => {
  const faults = new Faults().keepLast(2);
  faults.mark(1, "arrived"); // request 1 never finishes (held, say)
  for (const n of [2, 3, 4, 5]) {
    faults.mark(n, "arrived");
    faults.mark(n, "finished");
  }
  assert.equal(faults.hasReached(1, "arrived"), true, "an unfinished request is kept");
  assert.equal(faults.hasReached(2, "finished"), false, "request 2 was forgotten");
  assert.equal(faults.hasReached(3, "finished"), false, "request 3 was forgotten");
  assert.equal(faults.hasReached(4, "finished"), true);
  assert.equal(faults.hasReached(5, "arrived"), true);
});

test("noAnswer: resolves for a request a fault strikes (dropped, held, lost), after the wait given", async () => {
  const faults = new Faults({ 1: "lose-response", 2: "drop-request" });
  const tracker = await startTracker({ variant: "naive", faults, db: ":memory:" });
  try {
    const order: string[] = [];
    void faults.noAnswer(1, 0).then(() => order.push("#1 lost"));
    void faults.noAnswer(2, 0).then(() => order.push("#2 dropped"));
    void faults.noAnswer(3, 0).then(() => order.push("#3 answered?"));
    const one = (n: number) =>
      httpCall({
        method: "POST",
        url: `${tracker.url}/reports`,
        body: { title: "x" },
        timeoutMs: 5_000,
        giveUp: faults.noAnswer(n, 0),
      });
    const [a, b, c] = [await one(1), await one(2), await one(3)];
    assert.deepEqual([a.kind, b.kind, c.kind], ["timeout", "timeout", "response"]);
    await faults.reached(3, "finished");
    assert.deepEqual(order, ["#1 lost", "#2 dropped"]);
  } finally {
    await tracker.close();
  }
});
