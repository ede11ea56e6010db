// The tracker's HTTP API, its validation and its clean shutdown (naive variant).
import assert from "node:assert/strict";
import { createConnection } from "node:net";
import { after, before, describe, test } from "node:test";
import { httpCall, type Outcome } from "../lib/client.ts";
import { MAX_BODY_BYTES } from "../lib/tracker/http.ts";
import { startTracker, type Tracker } from "../lib/tracker/service.ts";
import { normalizeTitle } from "../lib/tracker/store.ts";

function response(o: Outcome): Extract<Outcome, { kind: "response" }> {
  assert.equal(o.kind, "response", `expected a response, got ${JSON.stringify(o)}`);
  return o as Extract<Outcome, { kind: "response" }>;
}

/** Sends raw bytes and returns the raw answer (for requests a well-behaved client cannot make). */
function raw(port: number, text: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    let out = "";
    socket.on("data", (c) => (out += c.toString()));
    socket.on("end", () => resolve(out));
    socket.on("close", () => resolve(out));
    socket.on("error", reject);
    socket.end(text);
  });
}

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
    const got = response(await httpCall({ method: "GET", url: `${t.url}/reports/${body.id}`, timeoutMs: 5000 }));
    assert.deepEqual(got.body, r.body);
  });

  test("GET /reports?title= finds by normalised title", async () => {
    await post({ title: "Login: button does NOTHING!" });
    const r = response(await httpCall({ method: "GET", url: `${t.url}/reports?title=${encodeURIComponent("login button does nothing")}`, timeoutMs: 5000 }));
    assert.equal(r.status, 200);
    assert.equal((r.body as unknown[]).length, 1);
    assert.equal(normalizeTitle("  Login:   button does NOTHING! "), "login button does nothing");
  });

  test("PUT /reports/<id> creates, then replaces: still one row", async () => {
    const before = t.store.countReports();
    const a = response(await httpCall({ method: "PUT", url: `${t.url}/reports/900`, body: { title: "A" }, timeoutMs: 5000 }));
    const b = response(await httpCall({ method: "PUT", url: `${t.url}/reports/900`, body: { title: "B" }, timeoutMs: 5000 }));
    assert.equal(a.status, 201);
    assert.equal(b.status, 200);
    assert.equal(t.store.countReports(), before + 1);
    assert.equal(t.store.getReport(900)?.title, "B");
  });

  const rejected: Array<[string, () => Promise<Outcome>, number]> = [
    ["malformed JSON", () => httpCall({ method: "POST", url: `${t.url}/reports`, body: undefined, headers: { "content-type": "application/json" }, timeoutMs: 5000 }), 400],
    ["an array", () => post([1, 2]), 400],
    ["a number", () => post(42), 400],
    ["no title", () => post({ body: "x" }), 400],
    ["a non-string title", () => post({ title: 7 }), 400],
    ["an empty title", () => post({ title: "   " }), 400],
    ["an unknown field", () => post({ title: "x", titel: "y" }), 400],
    ["a non-string module", () => post({ title: "x", module: 1 }), 400],
    ["the wrong content type", () => post({ title: "x" }, { "content-type": "text/plain" }), 415],
    ["a body over the limit", () => post({ title: "x", body: "y".repeat(MAX_BODY_BYTES) }), 413],
    ["a bad Authorization", () => post({ title: "x" }, { authorization: "Basic abc" }), 401],
    ["an unknown route", () => httpCall({ method: "GET", url: `${t.url}/nope`, timeoutMs: 5000 }), 404],
    ["a non-numeric id", () => httpCall({ method: "GET", url: `${t.url}/reports/abc`, timeoutMs: 5000 }), 404],
    ["an enormous id", () => httpCall({ method: "GET", url: `${t.url}/reports/99999999999999999999`, timeoutMs: 5000 }), 404],
    ["a missing report", () => httpCall({ method: "GET", url: `${t.url}/reports/123456`, timeoutMs: 5000 }), 404],
    ["DELETE /reports", () => httpCall({ method: "DELETE", url: `${t.url}/reports`, timeoutMs: 5000 }), 405],
  ];
  for (const [what, send, status] of rejected) {
    test(`rejects ${what} with ${status} problem+json and stores nothing`, async () => {
      const before = t.store.countReports();
      const r = response(await send());
      assert.equal(r.status, status);
      assert.equal(r.headers["content-type"], "application/problem+json");
      assert.equal((r.body as { status: number }).status, status);
      assert.equal(t.store.countReports(), before);
    });
  }

  test("rejects a lying Content-Length over the limit before reading the body", async () => {
    const before = t.store.countReports();
    const answer = await raw(t.port, `POST /reports HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${MAX_BODY_BYTES * 10}\r\n\r\n{"title":"x"}`);
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.equal(t.store.countReports(), before);
  });

  test("a malformed request line gets a 400 and the server keeps serving", async () => {
    const answer = await raw(t.port, "THIS IS NOT HTTP\r\n\r\n");
    assert.match(answer, /^HTTP\/1\.1 400 /);
    const r = response(await httpCall({ method: "GET", url: `${t.url}/reports`, timeoutMs: 5000 }));
    assert.equal(r.status, 200);
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

test("the tracker listens on 127.0.0.1 only", async () => {
  const t = await startTracker();
  try {
    assert.match(t.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  } finally {
    await t.close();
  }
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
