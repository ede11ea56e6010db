// The notifier of lesson 07: a real node:http service with its own Idempotency-Key handling, a count
// of what the maintainer received, and of duplicates delivered when keys are absent.
import assert from "node:assert/strict";
import { test } from "node:test";
import { httpCall, type Outcome } from "../lib/client/client.ts";
import { describeDelivery, type Notifier, startNotifier } from "../lib/outbox/notifier.ts";
import { parseRaw, raw } from "./http-helpers.ts";

type Response = Extract<Outcome, { kind: "response" }>;
const note = { subject: "New bug report: Login button does nothing", reportId: 1 };

async function post(
  n: Notifier,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): Promise<Response> {
  const o = await httpCall({
    method: "POST",
    url: `${n.url}/notifications`,
    body,
    headers,
    timeoutMs: 5_000,
  });
  assert.equal(o.kind, "response", JSON.stringify(o));
  return o as Response;
}

async function withNotifier(fn: (n: Notifier) => Promise<void>): Promise<void> {
  const n = await startNotifier();
  try {
    await fn(n);
  } finally {
    await n.close();
  }
}

test("without a key every POST is delivered, and a repeat counts as a duplicate", () =>
  withNotifier(async (n) => {
    assert.equal((await post(n, note)).status, 201);
    assert.equal((await post(n, { ...note, reportId: 2 })).status, 201);
    assert.equal((await post(n, note)).status, 201);
    assert.deepEqual(
      n.delivered().map((d) => d.duplicate),
      [false, false, true],
    );
    assert.equal(n.deduplicated, 0);
  }));

test("with a key: the repeat is answered from the key, delivered once; both key forms are one key", () =>
  withNotifier(async (n) => {
    const first = await post(n, note, { "idempotency-key": '"outbox-row-1"' });
    const again = await post(n, note, { "idempotency-key": "outbox-row-1" });
    assert.equal(first.status, 201);
    assert.equal(again.status, 201);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.deepEqual(again.body, first.body);
    assert.equal(n.delivered().length, 1);
    assert.equal(n.deduplicated, 1);
    assert.equal(describeDelivery(again), "201, notification #1 (Idempotent-Replayed: true)");
  }));

test("keys are scoped to the caller, and a key reused for another notification is 422", () =>
  withNotifier(async (n) => {
    await post(n, note, { "idempotency-key": "k", authorization: "Bearer tracker-a" });
    const other = await post(n, note, {
      "idempotency-key": "k",
      authorization: "Bearer tracker-b",
    });
    assert.equal(
      other.headers["idempotent-replayed"],
      undefined,
      "another caller's key is another key",
    );
    const misuse = await post(
      n,
      { ...note, reportId: 9 },
      { "idempotency-key": "k", authorization: "Bearer tracker-a" },
    );
    assert.equal(misuse.status, 422);
    assert.equal(n.delivered().length, 2);
  }));

test("bad input is refused and delivers nothing: bad key 400, no subject 400, not JSON 400, wrong type 415", () =>
  withNotifier(async (n) => {
    assert.equal((await post(n, note, { "idempotency-key": ['"a"', '"b"'] })).status, 400);
    assert.equal((await post(n, note, { "idempotency-key": '""' })).status, 400);
    assert.equal((await post(n, { subject: "" })).status, 400);
    assert.equal((await post(n, { subject: "x", reportId: 1.5 })).status, 400);
    const notJson = await httpCall({
      method: "POST",
      url: `${n.url}/notifications`,
      body: "{",
      headers: { "content-type": "application/json" },
      timeoutMs: 5_000,
    });
    assert.equal(notJson.kind === "response" && notJson.status, 400);
    const text = await httpCall({
      method: "POST",
      url: `${n.url}/notifications`,
      body: "hi",
      headers: { "content-type": "text/plain" },
      timeoutMs: 5_000,
    });
    assert.equal(text.kind === "response" && text.status, 415);
    assert.equal(
      (await httpCall({ method: "DELETE", url: `${n.url}/notifications`, timeoutMs: 5_000 }))
        .kind === "response",
      true,
    );
    assert.equal(n.delivered().length, 0);
  }));

test("GET /notifications lists what the maintainer received", () =>
  withNotifier(async (n) => {
    await post(n, note, { "idempotency-key": "a" });
    const list = await httpCall({ method: "GET", url: `${n.url}/notifications`, timeoutMs: 5_000 });
    assert.equal(list.kind, "response");
    assert.deepEqual((list as Response).body, [{ id: 1, ...note, key: "a", duplicate: false }]);
  }));

test("a request target the URL parser refuses is 400 in problem+json, and the notifier goes on serving", () =>
  withNotifier(async (n) => {
    const port = Number(new URL(n.url).port);
    for (const target of ["//:99999/", "http://[::1/notifications", "http://a%zz/"]) {
      const answer = parseRaw(
        await raw(port, `GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`),
      );
      assert.equal(answer.status, 400, target);
      assert.equal(answer.headers["content-type"], "application/problem+json");
    }
    assert.equal((await post(n, note)).status, 201);
  }));
