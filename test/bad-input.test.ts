// The bad-input corpus, over real HTTP, for every variant (the Idempotency-Key cases for the keyed
// ones; naive ignores the header): every answer is a problem+json 4xx, or a closed connection for a
// client too slow; nothing is stored, not even a key; the server keeps serving after each.
// SQL-looking strings are stored verbatim, never run.
import assert from "node:assert/strict";
import { createConnection } from "node:net";
import { after, before, describe, test } from "node:test";
import { httpCall } from "../lib/client/client.ts";
import { MAX_BODY_BYTES } from "../lib/protocol/http.ts";
import { MAX_KEY_CHARS } from "../lib/protocol/idempotency-key.ts";
import { keyStoreOf } from "../lib/tracker/key-store.ts";
import { MAX_TITLE_CHARS } from "../lib/tracker/report-body.ts";
import { DEFAULT_HEADERS_TIMEOUT_MS, startTracker, type Tracker } from "../lib/tracker/service.ts";
import type { VariantName } from "../lib/tracker/variant.ts";
import { parseRaw, post, raw, rawPost, response, withTracker } from "./http-helpers.ts";

const VARIANTS: VariantName[] = ["naive", "key-after", "keyed", "fenced"];
/** Short limits, so that the slow clients are cut off in well under a second. */
const LIMITS = { headersTimeoutMs: 400, requestTimeoutMs: 800 };
const report = { title: "Login button does nothing", module: "auth" };

/** What a bad request got: the status, the content type and the problem's own status. */
interface Got {
  status: number;
  type: string | undefined;
  problemStatus: unknown;
}

interface Case {
  what: string;
  status: number;
  /** Only for the variants that read the key (the others would rightly accept the request). */
  keyed?: true;
  /** Sends it; `key` is a fresh valid key, so that only what the case breaks is wrong. */
  send(t: Tracker, key: string): Promise<Got>;
}

const fromResponse = async (
  p: Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: unknown;
  }>,
): Promise<Got> => {
  const r = await p;
  return {
    status: r.status,
    type: r.headers["content-type"] as string | undefined,
    problemStatus: (r.body as { status?: unknown } | undefined)?.status,
  };
};
const fromRaw = async (p: Promise<string>): Promise<Got> => {
  const r = parseRaw(await p);
  return {
    status: r.status,
    type: r.headers["content-type"],
    problemStatus: (JSON.parse(r.body) as { status?: unknown }).status,
  };
};
const postWith =
  (
    body: unknown,
    headers: (key: string) => Record<string, string | string[]> = (key) => ({
      "idempotency-key": key,
    }),
  ) =>
  (t: Tracker, key: string) =>
    fromResponse(post(t, body, headers(key)));
const postText =
  (
    text: string | Buffer,
    headers: (key: string) => Record<string, string | string[]> = (key) => ({
      "idempotency-key": key,
    }),
  ) =>
  (t: Tracker, key: string) =>
    fromResponse(rawPost(t, text, headers(key)));
const request = (method: string, path: string, body?: unknown) => (t: Tracker) =>
  fromResponse(
    httpCall({
      method,
      url: `${t.url}${path}`,
      ...(body === undefined ? {} : { body }),
      timeoutMs: 5_000,
    }).then(response),
  );
/** Raw bytes: a request line, then header lines (the key's among them), a blank line and `rest`. */
const rawRequest =
  (
    line: string,
    headers: (key: string) => string[],
    rest = "",
    encoding: BufferEncoding = "utf8",
  ) =>
  (t: Tracker, key: string) =>
    fromRaw(
      raw(
        t.port,
        Buffer.from(
          `${line}\r\nhost: x\r\n${headers(key)
            .map((h) => `${h}\r\n`)
            .join("")}\r\n${rest}`,
          encoding,
        ),
      ),
    );
const json = (key: string, ...more: string[]): string[] => [
  "content-type: application/json",
  `idempotency-key: ${key}`,
  ...more,
];
const small = '{"title":"x"}';
/** One chunk of a chunked body: 0x10000 bytes, as its size line says. */
const bigChunk = `10000\r\n${"a".repeat(0x10000)}\r\n`;

const CASES: Case[] = [
  // The body and its JSON.
  { what: "malformed JSON", status: 400, send: postText("{not json") },
  { what: "truncated JSON", status: 400, send: postText('{"title": "Crash on sa') },
  { what: "an empty body", status: 400, send: postText("") },
  { what: "a JSON array", status: 400, send: postWith([report]) },
  { what: "a JSON number", status: 400, send: postWith(42) },
  { what: "a JSON string", status: 400, send: postWith("Login button does nothing") },
  { what: "JSON null", status: 400, send: postText("null") },
  {
    what: "30 000 nested arrays",
    status: 400,
    send: postText("[".repeat(30_000) + "]".repeat(30_000)),
  },
  { what: "no title", status: 400, send: postWith({ body: "x" }) },
  { what: "a number as title", status: 400, send: postWith({ title: 7 }) },
  { what: "null as title", status: 400, send: postWith({ title: null }) },
  { what: "an array as title", status: 400, send: postWith({ title: ["x"] }) },
  { what: "an object as title", status: 400, send: postWith({ title: { text: "x" } }) },
  { what: "a blank title", status: 400, send: postWith({ title: " \t " }) },
  {
    what: `a title of ${MAX_TITLE_CHARS + 1} characters`,
    status: 400,
    send: postWith({ title: "t".repeat(MAX_TITLE_CHARS + 1) }),
  },
  { what: "an unknown field", status: 400, send: postWith({ title: "x", titel: "y" }) },
  {
    what: "a __proto__ field",
    status: 400,
    send: postText('{"title":"x","__proto__":{"admin":true}}'),
  },
  { what: "a number as module", status: 400, send: postWith({ title: "x", module: 1 }) },
  // Size and framing.
  {
    what: "a body over the limit",
    status: 413,
    send: postWith({ title: "x", body: "y".repeat(MAX_BODY_BYTES) }),
  },
  {
    what: "a lying Content-Length (ten times the limit, 13 bytes sent)",
    status: 413,
    send: rawRequest(
      "POST /reports HTTP/1.1",
      (k) => json(k, `content-length: ${MAX_BODY_BYTES * 10}`),
      small,
    ),
  },
  {
    what: "a chunked body over the limit, no Content-Length",
    status: 413,
    send: rawRequest(
      "POST /reports HTTP/1.1",
      (k) => json(k, "transfer-encoding: chunked"),
      `${bigChunk}${bigChunk}0\r\n\r\n`,
    ),
  },
  {
    what: "a Content-Length shorter than the body",
    status: 400,
    send: rawRequest("POST /reports HTTP/1.1", (k) => json(k, "content-length: 5"), small),
  },
  {
    what: "a Content-Length longer than the body",
    status: 400,
    send: rawRequest("POST /reports HTTP/1.1", (k) => json(k, "content-length: 20"), small),
  },
  {
    what: "a Content-Length that is not a number",
    status: 400,
    send: rawRequest("POST /reports HTTP/1.1", (k) => json(k, "content-length: 13x"), small),
  },
  {
    what: "two different Content-Lengths",
    status: 400,
    send: rawRequest(
      "POST /reports HTTP/1.1",
      (k) => json(k, "content-length: 13", "content-length: 14"),
      `${small} `,
    ),
  },
  {
    what: "Transfer-Encoding and Content-Length together",
    status: 400,
    send: rawRequest(
      "POST /reports HTTP/1.1",
      (k) => json(k, "transfer-encoding: chunked", "content-length: 13"),
      `d\r\n${small}\r\n0\r\n\r\n`,
    ),
  },
  {
    what: "headers over 16 KiB",
    status: 431,
    send: rawRequest(
      "POST /reports HTTP/1.1",
      (k) => json(k, `x-padding: ${"p".repeat(20_000)}`, "content-length: 13"),
      small,
    ),
  },
  // The content type.
  {
    what: "text/plain",
    status: 415,
    send: postWith(report, (key) => ({ "idempotency-key": key, "content-type": "text/plain" })),
  },
  {
    what: "no Content-Type",
    status: 415,
    send: rawRequest(
      "POST /reports HTTP/1.1",
      (k) => [`idempotency-key: ${k}`, "content-length: 13"],
      small,
    ),
  },
  {
    what: "a form",
    status: 415,
    send: postText("title=x", (key) => ({
      "idempotency-key": key,
      "content-type": "application/x-www-form-urlencoded",
    })),
  },
  {
    what: "multipart/form-data",
    status: 415,
    send: postText("--b\r\n\r\nx\r\n--b--", (key) => ({
      "idempotency-key": key,
      "content-type": "multipart/form-data; boundary=b",
    })),
  },
  // Every bad Idempotency-Key form.
  { what: "no key", status: 400, keyed: true, send: postWith(report, () => ({})) },
  {
    what: 'an empty quoted key ("")',
    status: 400,
    keyed: true,
    send: postWith(report, () => ({ "idempotency-key": '""' })),
  },
  {
    what: "an empty bare key",
    status: 400,
    keyed: true,
    send: postWith(report, () => ({ "idempotency-key": "" })),
  },
  {
    what: `a bare key of ${MAX_KEY_CHARS + 1} characters`,
    status: 400,
    keyed: true,
    send: postWith(report, () => ({ "idempotency-key": "k".repeat(MAX_KEY_CHARS + 1) })),
  },
  {
    what: `a quoted key of ${MAX_KEY_CHARS + 1} characters`,
    status: 400,
    keyed: true,
    send: postWith(report, () => ({ "idempotency-key": `"${"k".repeat(MAX_KEY_CHARS + 1)}"` })),
  },
  {
    what: "a control character (\\x01) in the key",
    status: 400,
    keyed: true,
    send: rawRequest("POST /reports HTTP/1.1", () => json("a\x01b", "content-length: 13"), small),
  },
  {
    what: "DEL (\\x7f) in the key",
    status: 400,
    keyed: true,
    send: rawRequest("POST /reports HTTP/1.1", () => json("a\x7fb", "content-length: 13"), small),
  },
  {
    what: "a tab inside a quoted key",
    status: 400,
    keyed: true,
    send: postWith(report, () => ({ "idempotency-key": '"a\tb"' })),
  },
  {
    what: "a non-ASCII key (UTF-8)",
    status: 400,
    keyed: true,
    send: rawRequest("POST /reports HTTP/1.1", () => json('"clé"', "content-length: 13"), small),
  },
  {
    what: "a non-ASCII key (Latin-1)",
    status: 400,
    keyed: true,
    send: rawRequest(
      "POST /reports HTTP/1.1",
      () => json("clé", "content-length: 13"),
      small,
      "latin1",
    ),
  },
  {
    what: "an unterminated quoted key",
    status: 400,
    keyed: true,
    send: postWith(report, (key) => ({ "idempotency-key": `"${key}` })),
  },
  {
    what: "a quoted key with parameters",
    status: 400,
    keyed: true,
    send: postWith(report, (key) => ({ "idempotency-key": `"${key}";v=1` })),
  },
  {
    what: "a quoted key with a bad escape",
    status: 400,
    keyed: true,
    send: postWith(report, () => ({ "idempotency-key": '"a\\qb"' })),
  },
  {
    what: "a bare key with a comma (two keys joined)",
    status: 400,
    keyed: true,
    send: postWith(report, (key) => ({ "idempotency-key": `${key}, ${key}x` })),
  },
  {
    what: "a bare key with a space",
    status: 400,
    keyed: true,
    send: postWith(report, () => ({ "idempotency-key": "a b" })),
  },
  {
    what: "two Idempotency-Key lines",
    status: 400,
    keyed: true,
    send: postWith(report, (key) => ({ "idempotency-key": [key, `${key}x`] })),
  },
  {
    what: "two Idempotency-Key lines with the same key",
    status: 400,
    keyed: true,
    send: postWith(report, (key) => ({ "idempotency-key": [key, key] })),
  },
  // Who is calling.
  {
    what: "a Basic Authorization",
    status: 401,
    send: postWith(report, (key) => ({
      "idempotency-key": key,
      authorization: "Basic YWxpY2U6c2VjcmV0",
    })),
  },
  {
    what: "a Bearer with no name",
    status: 401,
    send: postWith(report, (key) => ({ "idempotency-key": key, authorization: "Bearer" })),
  },
  {
    what: "a Bearer name of 201 characters",
    status: 401,
    send: postWith(report, (key) => ({
      "idempotency-key": key,
      authorization: `Bearer ${"n".repeat(201)}`,
    })),
  },
  // Routes, methods, ids.
  { what: "an unknown route", status: 404, send: request("GET", "/nope") },
  { what: "a trailing slash", status: 404, send: request("GET", "/reports/") },
  { what: "a path below a report", status: 404, send: request("GET", "/reports/1/comments") },
  { what: "DELETE /reports", status: 405, send: request("DELETE", "/reports") },
  { what: "PATCH /reports/1", status: 405, send: request("PATCH", "/reports/1", report) },
  { what: "POST /reports/1", status: 405, send: request("POST", "/reports/1", report) },
  {
    what: "a method HTTP does not know",
    status: 400,
    send: rawRequest("BREW /reports HTTP/1.1", () => []),
  },
  {
    what: "a line that is not HTTP",
    status: 400,
    send: (t) => fromRaw(raw(t.port, "THIS IS NOT HTTP\r\n\r\n")),
  },
  {
    what: "bare LF line endings",
    status: 400,
    send: (t) => fromRaw(raw(t.port, "GET /reports HTTP/1.1\nhost: x\n\n")),
  },
  {
    what: "NUL in the request target",
    status: 400,
    send: (t) => fromRaw(raw(t.port, "GET /reports\0 HTTP/1.1\r\nhost: x\r\n\r\n")),
  },
  ...["abc", "0", "-1", "1.5", "1e3", "0x10", "%31", "99999999999999999999"].map(
    (id): Case => ({ what: `the id "${id}"`, status: 404, send: request("GET", `/reports/${id}`) }),
  ),
  {
    what: "PUT to an enormous id",
    status: 404,
    send: request("PUT", "/reports/99999999999999999999", report),
  },
  { what: "a report that does not exist", status: 404, send: request("GET", "/reports/123456") },
];

/** Everything the database holds: reports, and keys for the keyed variants. */
function stored(t: Tracker): { reports: number; keys: number } {
  return {
    reports: t.store.countReports(),
    keys: t.variant.name === "naive" ? 0 : keyStoreOf(t.store).count(),
  };
}

let keys = 0;
const freshKey = (): string => `bad-input-${++keys}`;

for (const variant of VARIANTS) {
  describe(`bad input, ${variant}`, () => {
    let t: Tracker;
    before(async () => (t = await startTracker({ variant, ...LIMITS })));
    after(() => t.close());

    for (const c of CASES.filter((c) => variant !== "naive" || !c.keyed)) {
      test(`${c.what}: ${c.status} problem+json, nothing stored, still serving`, async () => {
        const before = stored(t);
        const got = await c.send(t, freshKey());
        assert.deepEqual(got, {
          status: c.status,
          type: "application/problem+json",
          problemStatus: c.status,
        });
        assert.deepEqual(stored(t), before, "nothing stored, not even a key");
        assert.equal(
          response(await httpCall({ method: "GET", url: `${t.url}/reports`, timeoutMs: 5_000 }))
            .status,
          200,
        );
      });
    }

    test("a client that sends its headers slowly is cut off (408, closed) while others are served", async () => {
      const r = await trickle(
        t,
        "POST /reports HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n",
        (i) => `x-slow-${i}: 1\r\n`,
      );
      assert.ok(
        r.ms < DEFAULT_HEADERS_TIMEOUT_MS,
        `cut off after ${r.ms} ms, before the default ${DEFAULT_HEADERS_TIMEOUT_MS} ms`,
      );
      assertCutOff(r.answer);
      assert.equal(r.servedMeanwhile, 200);
      assert.equal(stored(t).reports, 0);
    });

    test("a client that sends its body slowly is cut off too, and nothing is stored", async () => {
      const head =
        'POST /reports HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nidempotency-key: slow-body\r\ncontent-length: 60000\r\n\r\n{"title":"';
      const r = await trickle(t, head, () => "a");
      assert.ok(r.ms < DEFAULT_HEADERS_TIMEOUT_MS, `cut off after ${r.ms} ms`);
      assertCutOff(r.answer);
      assert.equal(r.servedMeanwhile, 200);
      assert.deepEqual(stored(t), { reports: 0, keys: 0 });
    });

    test("after the whole corpus a good request is served and stored once", async () => {
      const ok = await post(t, report, { "idempotency-key": freshKey() });
      assert.equal(ok.status, 201);
      assert.equal(t.store.countReports(), 1);
    });
  });
}

/** A slow client gets a 408 problem+json and a closed connection, or (if the close overtook it) only the close. */
function assertCutOff(answer: string): void {
  if (answer === "") return;
  const r = parseRaw(answer);
  assert.deepEqual(
    [r.status, r.headers["content-type"], r.headers.connection],
    [408, "application/problem+json", "close"],
    answer,
  );
}

/**
 * Opens a connection, sends `head`, then one more piece (`next(i)`) every 50 ms until the server
 * closes the connection; meanwhile, once the first bytes are out, a normal client is served. Returns
 * what the slow client got, how long it was let in, and the normal client's status.
 */
function trickle(
  t: Tracker,
  head: string,
  next: (i: number) => string,
): Promise<{ answer: string; ms: number; servedMeanwhile: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = createConnection({ port: t.port, host: "127.0.0.1" });
    let answer = "";
    let i = 0;
    let timer: NodeJS.Timeout | undefined;
    let served: Promise<number> | undefined;
    socket.on("data", (c) => (answer += c.toString()));
    socket.on("error", (err: NodeJS.ErrnoException) =>
      err.code === "ECONNRESET" || err.code === "EPIPE" ? undefined : reject(err),
    );
    socket.on("close", () => {
      clearInterval(timer);
      const ms = Math.round(performance.now() - started);
      void (served ?? Promise.resolve(0)).then((servedMeanwhile) =>
        resolve({ answer, ms, servedMeanwhile }),
      );
    });
    socket.write(head, () => {
      served = httpCall({ method: "GET", url: `${t.url}/reports`, timeoutMs: 5_000 }).then(
        (o) => response(o).status,
      );
      timer = setInterval(() => {
        if (!socket.destroyed && socket.writable) socket.write(next(++i));
      }, 50);
    });
  });
}

test("SQL-looking strings are stored verbatim and never run: titles, bodies, keys, callers, searches", async () => {
  const sql = {
    title: "Robert'); DROP TABLE reports;--",
    body: "1 OR 1=1; DELETE FROM idempotency_keys WHERE 1=1; --",
    module: "' UNION SELECT name, sql FROM sqlite_master --",
    run: "\"; ATTACH DATABASE '/tmp/x' AS x; --",
  };
  for (const variant of VARIANTS) {
    await withTracker({ variant }, async (t) => {
      const headers = {
        "idempotency-key": `"'; DROP TABLE idempotency_keys; --"`,
        authorization: "Bearer x');DROP--",
      };
      const first = await post(t, sql, headers);
      assert.equal(first.status, 201, variant);
      const id = (first.body as { id: number }).id;
      const got = response(
        await httpCall({ method: "GET", url: `${t.url}/reports/${id}`, timeoutMs: 5_000 }),
      );
      assert.deepEqual(got.body, { id, ...sql }, `${variant}: stored verbatim`);
      const injected = response(
        await httpCall({
          method: "GET",
          url: `${t.url}/reports?title=${encodeURIComponent("' OR '1'='1")}`,
          timeoutMs: 5_000,
        }),
      );
      assert.deepEqual(injected.body, [], `${variant}: a search is a value, not SQL`);
      const found = response(
        await httpCall({
          method: "GET",
          url: `${t.url}/reports?title=${encodeURIComponent(sql.title)}`,
          timeoutMs: 5_000,
        }),
      );
      assert.equal((found.body as unknown[]).length, 1);
      const again = await post(t, sql, headers);
      if (variant === "naive") assert.equal(t.store.countReports(), 2, "naive ignores the key");
      else {
        assert.equal(
          again.headers["idempotent-replayed"],
          "true",
          `${variant}: the key was stored verbatim and found again`,
        );
        assert.equal(t.store.countReports(), 1);
        assert.equal(
          keyStoreOf(t.store).get("x');DROP--", "'; DROP TABLE idempotency_keys; --")?.state,
          "completed",
        );
      }
    });
  }
});
