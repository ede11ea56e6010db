// The tracker's HTTP API and its clean shutdown (naive variant). Bad input, for every variant:
// bad-input.test.ts; binding to 127.0.0.1 only: scoping.test.ts.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { httpCall } from "../lib/client/client.ts";
import { startTracker, type Tracker } from "../lib/tracker/service.ts";
import { normalizeTitle } from "../lib/tracker/store.ts";
import { response } from "./http-helpers.ts";

describe("the tracker's API", () => {
  let t: Tracker;
  before(async () => (t = await startTracker()));
  after(() => t.close());
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    httpCall({ method: "POST", url: `${t.url}/reports`, body, headers, timeoutMs: 5000 });

  test("POST /reports stores a report: 201, the report, a Location", async () => {
    const r = response(await post({ title: "Crash on save", module: "editor" }));
    assert.equal(r.status, 201);
    const body = r.body as { id: number; title: string; module: string };
    assert.equal(body.title, "Crash on save");
    assert.equal(body.module, "editor");
    assert.equal(r.headers.location, `/reports/${body.id}`);
    const got = response(
      await httpCall({ method: "GET", url: `${t.url}/reports/${body.id}`, timeoutMs: 5000 }),
    );
    assert.deepEqual(got.body, r.body);
  });

  test("GET /reports?title= finds by normalised title", async () => {
    await post({ title: "Login: button does NOTHING!" });
    const r = response(
      await httpCall({
        method: "GET",
        url: `${t.url}/reports?title=${encodeURIComponent("login button does nothing")}`,
        timeoutMs: 5000,
      }),
    );
    assert.equal(r.status, 200);
    assert.equal((r.body as unknown[]).length, 1);
    assert.equal(normalizeTitle("  Login:   button does NOTHING! "), "login button does nothing");
  });

  test("PUT /reports/<id> creates, then replaces: still one row", async () => {
    const before = t.store.countReports();
    const a = response(
      await httpCall({
        method: "PUT",
        url: `${t.url}/reports/900`,
        body: { title: "A" },
        timeoutMs: 5000,
      }),
    );
    const b = response(
      await httpCall({
        method: "PUT",
        url: `${t.url}/reports/900`,
        body: { title: "B" },
        timeoutMs: 5000,
      }),
    );
    assert.equal(a.status, 201);
    assert.equal(b.status, 200);
    assert.equal(t.store.countReports(), before + 1);
    assert.equal(t.store.getReport(900)?.title, "B");
  });
});

test("close() frees the port and closes the database", async () => {
  const t = await startTracker();
  await t.close();
  const o = await httpCall({ method: "GET", url: `${t.url}/reports`, timeoutMs: 2000 });
  assert.equal(o.kind, "error");
  assert.equal((o as { code: string }).code, "ECONNREFUSED");
  assert.equal(t.store.db.isOpen, false);
});

test("a transaction refuses to span an await", async () => {
  const t = await startTracker();
  try {
    assert.throws(() => t.store.transaction(() => Promise.resolve(1)), /must not span an await/);
    assert.equal(t.store.countReports(), 0);
  } finally {
    await t.close();
  }
});

test("a 401 says which scheme the tracker accepts (RFC 9110 §11.6.1: WWW-Authenticate)", async () => {
  const t = await startTracker();
  try {
    const r = response(
      await httpCall({
        method: "POST",
        url: `${t.url}/reports`,
        body: { title: "x" },
        headers: { authorization: "Basic abc" },
        timeoutMs: 5000,
      }),
    );
    assert.equal(r.status, 401);
    assert.match(String(r.headers["www-authenticate"]), /^Bearer /);
    assert.equal(t.store.countReports(), 0);
  } finally {
    await t.close();
  }
});
