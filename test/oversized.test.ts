// Oversized bodies: every client hears its 413. The tracker refuses a body over 64 KiB; before this
// test, it closed the connection while the client was still sending, and the client's next write
// met a reset: fetch failed with EPIPE, a client that sends its whole body before reading (Python's
// http.client, curl on large bodies) never read the answer at all. Each kind of client below sends
// 3 MB and 50 MB, 20 times, five at a time: all 20 must read a 413.
import assert from "node:assert/strict";
import { createConnection } from "node:net";
import { after, before, describe, test } from "node:test";
import { MAX_BODY_BYTES } from "../lib/tracker/http.ts";
import { startTracker, type Tracker } from "../lib/tracker/service.ts";

const SIZES = [3 * 1024 * 1024, 50 * 1024 * 1024];
const TRIES = 20;
const AT_ONCE = 5;
const PIECE = 64 * 1024;
/** One buffer of the largest size, sliced for every request: filling 50 MB per try would cost more than sending it. */
const BYTES = Buffer.alloc(Math.max(...SIZES), "a");

/** What one try ended with: the status read, or the error that ended it first. */
type Outcome = { status: number } | { error: string };

function head(port: number, framing: string, extra = ""): string {
  return `POST /reports HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\nidempotency-key: big\r\n${framing}\r\n${extra}\r\n`;
}

/**
 * A client that writes its whole request before it reads a byte of the answer, as Python's
 * http.client does: a failed write ends the try (Python's sendall raises), whatever the server had
 * said meanwhile. `chunked` sends the body as 64 KiB chunks with no Content-Length.
 */
function sendThenRead(port: number, size: number, chunked: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    // allowHalfOpen: the server's FIN after its answer does not stop the writes, as in Python.
    const socket = createConnection({ port, host: "127.0.0.1", allowHalfOpen: true });
    let received = "";
    let writing = true;
    let settled = false;
    const done = (o: Outcome): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(o);
    };
    const statusIfAny = (): void => {
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(received);
      if (!writing && m && received.includes("\r\n\r\n")) done({ status: Number(m[1]) });
    };
    socket.on("data", (c: Buffer) => {
      received += c.toString("latin1");
      statusIfAny();
    });
    socket.on("error", (err: NodeJS.ErrnoException) => done({ error: `${writing ? "while writing" : "while reading"}: ${err.code ?? err.message}` }));
    socket.on("close", () => done({ error: writing ? "closed while writing" : `closed before an answer (${JSON.stringify(received.slice(0, 40))})` }));
    const write = (data: Buffer | string): Promise<void> =>
      new Promise((ok) => {
        if (socket.write(data)) ok();
        else socket.once("drain", ok);
      });
    void (async () => {
      await write(head(port, chunked ? "transfer-encoding: chunked" : `content-length: ${size}`));
      for (let at = 0; at < size && !settled; at += PIECE) {
        const piece = BYTES.subarray(at, Math.min(size, at + PIECE));
        if (chunked) await write(`${piece.length.toString(16)}\r\n`);
        await write(piece);
        if (chunked) await write("\r\n");
      }
      if (chunked && !settled) await write("0\r\n\r\n");
      writing = false;
      statusIfAny();
    })();
  });
}

async function viaFetch(url: string, size: number): Promise<Outcome> {
  try {
    const res = await fetch(`${url}/reports`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "big" },
      body: BYTES.subarray(0, size),
    });
    await res.arrayBuffer();
    return { status: res.status };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return { error: `${(err as Error).message}${cause?.code ? ` (${cause.code})` : ""}` };
  }
}

/** Runs `tries` tries, `atOnce` at a time; returns every outcome. */
async function inBatches(tries: number, atOnce: number, one: () => Promise<Outcome>): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let i = 0; i < tries; i += atOnce) outcomes.push(...(await Promise.all(Array.from({ length: Math.min(atOnce, tries - i) }, one))));
  return outcomes;
}

function assertAll413(outcomes: Outcome[]): void {
  const heard = outcomes.filter((o) => "status" in o && o.status === 413).length;
  const others = outcomes.filter((o) => !("status" in o) || o.status !== 413).map((o) => ("status" in o ? String(o.status) : o.error));
  assert.equal(heard, outcomes.length, `${heard} of ${outcomes.length} saw the 413; the others: ${[...new Set(others)].join("; ")}`);
}

describe("a body over the limit: every client reads the 413", () => {
  let tracker: Tracker;
  before(async () => {
    tracker = await startTracker({ variant: "keyed" });
  });
  after(() => tracker.close());

  for (const size of SIZES) {
    const mb = `${size / 1024 / 1024} MB`;
    test(`fetch, ${mb} with Content-Length: ${TRIES} of ${TRIES}`, async () => {
      assertAll413(await inBatches(TRIES, AT_ONCE, () => viaFetch(tracker.url, size)));
    });
    test(`a client that sends all before reading (http.client), ${mb} with Content-Length: ${TRIES} of ${TRIES}`, async () => {
      assertAll413(await inBatches(TRIES, AT_ONCE, () => sendThenRead(tracker.port, size, false)));
    });
    test(`a client that sends all before reading (http.client), ${mb} chunked: ${TRIES} of ${TRIES}`, async () => {
      assertAll413(await inBatches(TRIES, AT_ONCE, () => sendThenRead(tracker.port, size, true)));
    });
  }

  test("Expect: 100-continue with a Content-Length over the limit gets the 413 at once, never 100 Continue (RFC 9110 §10.1.1)", async () => {
    const first = await new Promise<string>((resolve, reject) => {
      const socket = createConnection({ port: tracker.port, host: "127.0.0.1" });
      let text = "";
      socket.on("data", (c: Buffer) => {
        text += c.toString();
        if (text.includes("\r\n\r\n")) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on("error", reject);
      socket.write(head(tracker.port, `content-length: ${3 * 1024 * 1024}`, "").replace(/\r\n\r\n$/, "\r\nexpect: 100-continue\r\n\r\n"));
    });
    assert.match(first, /^HTTP\/1\.1 413 /);
    assert.match(first, /content-type: application\/problem\+json/);
  });

  test("Expect: 100-continue with a body within the limit gets 100 Continue, then the answer", async () => {
    const body = JSON.stringify({ title: "Login button does nothing" });
    const text = await new Promise<string>((resolve, reject) => {
      const socket = createConnection({ port: tracker.port, host: "127.0.0.1" });
      let out = "";
      let sent = false;
      socket.on("data", (c: Buffer) => {
        out += c.toString();
        if (!sent && out.startsWith("HTTP/1.1 100 ") && out.includes("\r\n\r\n")) {
          sent = true;
          socket.write(body);
        }
        if (/\r\n\r\n[\s\S]*HTTP\/1\.1 201 [\s\S]*\r\n\r\n[\s\S]*\n$/.test(out)) {
          socket.destroy();
          resolve(out);
        }
      });
      socket.on("error", reject);
      socket.write(head(tracker.port, `content-length: ${Buffer.byteLength(body)}`).replace(/idempotency-key: big/, "idempotency-key: small").replace(/\r\n\r\n$/, "\r\nexpect: 100-continue\r\n\r\n"));
    });
    assert.match(text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  });

  test(`a body just over the limit (${MAX_BODY_BYTES + 1} bytes) is still a 413 and the server keeps serving`, async () => {
    assertAll413([await viaFetch(tracker.url, MAX_BODY_BYTES + 1)]);
    const res = await fetch(`${tracker.url}/reports`);
    assert.equal(res.status, 200);
  });
});
