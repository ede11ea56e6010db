// stripe-node against lesson 09's faulty server: the one client measured that keys every POST itself.
// And where lesson 09 reads fetch's default timeout, and ky's. Events are ordered by the server's
// log and the tracker's faults, never by sleeps.
import assert from "node:assert/strict";
import { test } from "node:test";
import { httpCall } from "../../lib/client/client.ts";
import { keyUse, postsProcessed, reportsAtKeyedTracker } from "../../lib/http-clients/analysis.ts";
import { baseCase, observe } from "../../lib/http-clients/measure.ts";
import { fetchDefaultTimeout } from "../../lib/http-clients/probe.ts";
import { findProbe } from "../../lib/http-clients/probes/index.ts";
import { kyProbe } from "../../lib/http-clients/probes/ky.ts";
import { stripeProbe } from "../../lib/http-clients/probes/stripe.ts";
import { type LoggedAttempt, startFaultyServer } from "../../lib/http-clients/server.ts";
import { Faults } from "../../lib/tracker/faults.ts";
import { startTracker } from "../../lib/tracker/service.ts";
import { runTs, tableRow } from "../run-helpers.ts";

const STRIPE_KEY =
  /^stripe-node-retry-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("stripe-node: a POST whose answer is lost is sent 3 times (2 retries), with one stripe-node-retry-<uuid> key on all", async () => {
  const server = await startFaultyServer();
  try {
    const lost = await observe(server, stripeProbe, baseCase("post-reset", "k"));
    assert.equal(postsProcessed(lost.log), 3);
    const key = keyUse(lost.log);
    assert.equal(key.kind, "same");
    assert.ok(key.kind === "same" && STRIPE_KEY.test(key.values[0]!), `key ${JSON.stringify(key)}`);
    assert.equal(reportsAtKeyedTracker(lost.log), 1);

    const again = await observe(server, stripeProbe, baseCase("post-503", "k"));
    const other = keyUse(again.log);
    assert.equal(again.log.length, 3);
    assert.ok(
      other.kind === "same" && key.kind === "same" && other.values[0] !== key.values[0],
      "a new key for a new call",
    );

    const get = await observe(server, stripeProbe, baseCase("get-503", "k"));
    assert.equal(get.log.length, 3);
    assert.deepEqual(keyUse(get.log), { kind: "none" }, "no key on a GET");

    const mine = await observe(server, stripeProbe, baseCase("post-reset-keyed", "k-1"));
    assert.deepEqual(keyUse(mine.log), {
      kind: "same",
      header: "idempotency-key",
      values: Array(3).fill('"k-1"'),
    });
  } finally {
    await server.close();
  }
});

test("stripe-node is found by name and package; its default timeout is read from its source", () => {
  assert.equal(findProbe("stripe"), stripeProbe);
  const t = stripeProbe.defaultTimeout();
  assert.ok("text" in t);
  assert.equal(t.text, "80 s per attempt");
});

const attempt = (n: number, key: string | undefined, bodyBytes = 10): LoggedAttempt => ({
  n,
  method: "POST",
  path: "/reports",
  headers: key === undefined ? {} : { "idempotency-key": key },
  arrivedAt: n,
  arrivedWall: n,
  bodyBytes,
  answer: "reset",
});

test("the keyed rule over a log: one report per key (quoted or bare); a POST without a key is refused; unread bodies are nothing", () => {
  assert.equal(reportsAtKeyedTracker([attempt(1, "a"), attempt(2, '"a"'), attempt(3, "a")]), 1);
  assert.equal(reportsAtKeyedTracker([attempt(1, undefined), attempt(2, undefined)]), undefined);
  assert.equal(
    reportsAtKeyedTracker([attempt(1, "a"), attempt(2, "b"), attempt(3, undefined, 0)]),
    2,
  );
});

test("the rule agrees with the keyed tracker: three POSTs with stripe's key, answers lost, leave one report", async () => {
  const server = await startFaultyServer();
  let key: string;
  try {
    const lost = await observe(server, stripeProbe, baseCase("post-reset", "k"));
    const used = keyUse(lost.log);
    assert.ok(used.kind === "same");
    key = used.values[0]!;
  } finally {
    await server.close();
  }
  const tracker = await startTracker({
    variant: "keyed",
    faults: new Faults({ 1: "lose-response", 2: "lose-response" }),
  });
  try {
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      const o = await httpCall({
        method: "POST",
        url: `${tracker.url}/reports`,
        body: { title: "Login button does nothing" },
        headers: { "idempotency-key": key },
        timeoutMs: i < 2 ? 200 : 10_000,
      });
      statuses.push(o.kind === "response" ? String(o.status) : o.kind);
    }
    assert.equal(statuses[2], "201");
    assert.equal(tracker.store.countReports(), 1);
  } finally {
    await tracker.close();
  }
});

test("fetch's default timeout is read from Node's own fetch (its built-in undici), not the installed package", async () => {
  const t = await fetchDefaultTimeout();
  assert.equal(t.text, "5 min for headers (undici Agent)");
  assert.ok(t.source.includes(`built-in undici ${process.versions.undici}`), t.source);
  assert.match(t.source, /^read at run time from the connection/);
});

test("ky's default timeout, which lesson 09 names as the shortest, is 10 s per attempt", () => {
  const t = kyProbe.defaultTimeout();
  assert.ok("text" in t);
  assert.equal(t.text, "10 s per attempt");
});

test("lesson 09 --only stripe: one key on all 3 attempts, 1 report at a keyed tracker; ky's 10 s named as a default", async () => {
  const ran = await runTs(["lessons/09-your-http-client.ts", "--only", "stripe"], {
    timeoutMs: 60_000,
  });
  assert.equal(ran.stderr, "");
  assert.equal(ran.code, 0);
  assert.deepEqual(tableRow(ran.stdout, "stripe")?.slice(0, 8), [
    "stripe",
    "3",
    "1",
    "3",
    "3",
    "3",
    "3",
    "3",
  ]);
  const row = (first: string) =>
    ran.stdout.split("\n").find((l) => l.trim().startsWith("stripe") && l.includes(first));
  assert.ok(row("idempotency-key, same on all 3"), "part 3: stripe's own key");
  assert.match(row("duplicate") ?? "", /│\s+1\s+│\s+same key on all 3/);
  const text = ran.stdout.replace(/\s+/g, " ");
  assert.match(
    text,
    /idempotency-key: stripe-node-retry-<uuid>, and sent it unchanged on all 3 attempts, so where this keyless server filed 3 reports a keyed tracker keeps 1/,
  );
  // The default number of retries: the code's 2 and the README's 1, both named, and what the run measured.
  assert.match(
    text,
    /stripe-node's default number of retries: 2 in its code \(stripe esm\/stripe\.esm\.node\.js, the build Node loads, and esm\/platform\/PlatformFunctions\.js\), and its CHANGELOG at 17\.0\.0 says "max retries: 1 -> 2"; its README says 1 \(maxNetworkRetries\)\. This run measured the code: 3 attempts, 2 retries\./,
  );
  assert.match(text, /the defaults run from ky's 10 s per attempt to minutes/);
  assert.doesNotMatch(text, /None of them sent an Idempotency-Key|defaults run to minutes/);
});
