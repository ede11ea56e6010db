// Helpers for the tests that talk HTTP to a tracker: a fresh tracker per test, POSTs as a client
// would send them, and raw bytes for what no polite client sends.
import assert from "node:assert/strict";
import { request } from "node:http";
import { createConnection } from "node:net";
import { httpCall, type Outcome } from "../lib/client/client.ts";
import { startTracker, type Tracker, type TrackerOptions } from "../lib/tracker/service.ts";

export type Response = Extract<Outcome, { kind: "response" }>;

/** The outcome as a response; fails the test if it was a timeout or a network error. */
export function response(o: Outcome): Response {
  assert.equal(o.kind, "response", `expected a response, got ${JSON.stringify(o)}`);
  return o as Response;
}

/** Runs `fn` against a fresh tracker and closes it. */
export async function withTracker(
  options: Omit<TrackerOptions, "postgres">,
  fn: (t: Tracker) => Promise<void>,
): Promise<void> {
  const t = await startTracker(options);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

/** POSTs a report with the given headers (an array value is sent as several header lines). */
export async function post(
  t: { url: string },
  body: unknown,
  headers: Record<string, string | string[]> = {},
): Promise<Response> {
  return response(
    await httpCall({ method: "POST", url: `${t.url}/reports`, body, headers, timeoutMs: 5_000 }),
  );
}

/** POSTs a body given as text, so its bytes are exactly these (JSON content type unless overridden). */
export function rawPost(
  t: { url: string },
  text: string | Buffer,
  headers: Record<string, string | string[]>,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${t.url}/reports`,
      { method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let data = "";
        res.on("data", (c: Buffer) => (data += c.toString()));
        res.on("end", () =>
          resolve({
            kind: "response",
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(data) as unknown,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** Sends raw bytes on a fresh connection and returns everything the server sent until it closed. */
export function raw(port: number, text: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    let out = "";
    socket.on("data", (c) => (out += c.toString()));
    socket.on("close", () => resolve(out));
    socket.on("error", (err: NodeJS.ErrnoException) =>
      err.code === "ECONNRESET" ? resolve(out) : reject(err),
    );
    socket.end(text);
  });
}

/** The first answer in a raw exchange: status, headers (names lower-cased) and body. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function parseRaw(text: string): RawAnswer {
  const m = /^HTTP\/1\.1 (\d{3}) [^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(text);
  assert.ok(m, `not an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`);
  const headers: Record<string, string> = {};
  for (const line of m[2]!.split("\r\n")) {
    const i = line.indexOf(":");
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = Number(headers["content-length"] ?? m[3]!.length);
  return { status: Number(m[1]), headers, body: m[3]!.slice(0, length) };
}
