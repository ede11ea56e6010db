// The key table and the request fingerprint: claims, fencing tokens, completion with and without a
// fence check, and what counts as "the same request".
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { canonicalJson, requestFingerprint } from "../lib/protocol/fingerprint.ts";
import { type KeyStore, keyStoreOf } from "../lib/tracker/key-store.ts";
import { ReportStore } from "../lib/tracker/store.ts";

const created = { status: 201, body: { id: 1 }, headers: { location: "/reports/1" } };

function withStore(fn: (store: ReportStore, keys: KeyStore) => void): void {
  const store = new ReportStore(":memory:");
  try {
    fn(store, keyStoreOf(store));
  } finally {
    store.close();
  }
}

test("canonical JSON: key order and white space do not matter, values do", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [1, { z: true, y: null }], c: "x" } }),
    '{"a":{"c":"x","d":[1,{"y":null,"z":true}]},"b":1}',
  );
  assert.equal(
    canonicalJson(JSON.parse('{ "title" : "x",\n "module":"a" }')),
    canonicalJson({ module: "a", title: "x" }),
  );
  assert.notEqual(canonicalJson({ title: "x" }), canonicalJson({ title: "x", body: "" }));
  assert.equal(canonicalJson(JSON.parse("1.0")), "1");
});

test("the fingerprint covers method, route and body", () => {
  const fp = requestFingerprint("POST", "/reports", '{"title":"x","module":"a"}');
  assert.match(fp, /^[0-9a-f]{64}$/);
  assert.equal(
    requestFingerprint("post", "/reports", Buffer.from('{ "module": "a", "title": "x" }')),
    fp,
  );
  assert.notEqual(requestFingerprint("PUT", "/reports", '{"title":"x","module":"a"}'), fp);
  assert.notEqual(requestFingerprint("POST", "/reports/1", '{"title":"x","module":"a"}'), fp);
  assert.notEqual(requestFingerprint("POST", "/reports", '{"title":"y","module":"a"}'), fp);
});

test("a claim writes an in-progress row with its lease, TTL and a fencing token", () =>
  withStore((store, keys) => {
    const fence = store.transaction(() => keys.claim("alice", "k", "fp", 1_000, 400, 86_400_000));
    assert.deepEqual(keys.get("alice", "k"), {
      caller: "alice",
      key: "k",
      fingerprint: "fp",
      state: "in_progress",
      fence,
      leaseUntil: 1_400,
      expiresAt: 86_401_000,
      response: undefined,
    });
    assert.equal(keys.get("bob", "k"), undefined, "scoped to the caller");
  }));

test("fencing tokens only grow: across keys, callers and take-overs", () =>
  withStore((store, keys) => {
    const tokens = [
      store.transaction(() => keys.claim("alice", "k", "fp", 0, 10, 1_000)),
      store.transaction(() => keys.claim("bob", "k", "fp", 0, 10, 1_000)),
      store.transaction(() => keys.claim("alice", "k", "fp", 20, 10, 1_000)), // a take-over
      store.transaction(() => keys.claim("alice", "other", "fp", 20, 10, 1_000)),
    ];
    assert.deepEqual(
      [...tokens].sort((a, b) => a - b),
      tokens,
    );
    assert.equal(new Set(tokens).size, tokens.length);
    assert.equal(keys.get("alice", "k")?.fence, tokens[2]);
  }));

test("the fence counter survives a restart: a new store on the same file goes on counting", () => {
  const dir = mkdtempSync(join(tmpdir(), "keys-"));
  try {
    const file = join(dir, "t.sqlite");
    const a = new ReportStore(file);
    const first = a.transaction(() => keyStoreOf(a).claim("c", "k", "fp", 0, 10, 1_000));
    a.close();
    const b = new ReportStore(file);
    const second = b.transaction(() => keyStoreOf(b).claim("c", "k2", "fp", 0, 10, 1_000));
    b.close();
    assert.ok(second > first);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("complete stores the response for replay, whoever holds the key", () =>
  withStore((store, keys) => {
    store.transaction(() => keys.claim("c", "k", "fp", 0, 10, 1_000));
    store.transaction(() => keys.claim("c", "k", "fp", 20, 10, 1_000)); // taken over
    assert.equal(
      store.transaction(() => keys.complete("c", "k", created)),
      1,
    );
    const row = keys.get("c", "k")!;
    assert.equal(row.state, "completed");
    assert.deepEqual(row.response, created);
  }));

test("completeFenced changes nothing for a stale token, one row for the current one", () =>
  withStore((store, keys) => {
    const stale = store.transaction(() => keys.claim("c", "k", "fp", 0, 10, 1_000));
    const current = store.transaction(() => keys.claim("c", "k", "fp", 20, 10, 1_000));
    assert.equal(
      store.transaction(() => keys.completeFenced("c", "k", stale, created)),
      0,
    );
    assert.equal(keys.get("c", "k")?.state, "in_progress");
    assert.equal(
      store.transaction(() => keys.completeFenced("c", "k", current, created)),
      1,
    );
    assert.equal(
      store.transaction(() => keys.completeFenced("c", "k", current, created)),
      0,
      "only an in-progress row",
    );
  }));

test("record writes a completed row in one go (key-after), replacing an expired one", () =>
  withStore((store, keys) => {
    store.transaction(() => keys.record("c", "k", "fp", created, 0, 1_000));
    store.transaction(() =>
      keys.record("c", "k", "fp2", { ...created, status: 500 }, 2_000, 1_000),
    );
    const row = keys.get("c", "k")!;
    assert.equal(row.state, "completed");
    assert.equal(row.fingerprint, "fp2");
    assert.equal(row.expiresAt, 3_000);
    assert.equal(row.response?.status, 500);
    assert.equal(keys.count(), 1);
  }));

test("a claim after completion (the key expired) clears the stored response", () =>
  withStore((store, keys) => {
    store.transaction(() => keys.record("c", "k", "fp", created, 0, 1_000));
    store.transaction(() => keys.claim("c", "k", "fp", 5_000, 10, 1_000));
    assert.equal(keys.get("c", "k")?.response, undefined);
    assert.equal(keys.get("c", "k")?.state, "in_progress");
  }));
