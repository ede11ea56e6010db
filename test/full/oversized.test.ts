// Oversized bodies: every client hears its 413. The tracker refuses a body over 64 KiB; before this
// test, it closed the connection while the client was still sending, and the client's next write
// met a reset: fetch failed with EPIPE, a client that sends its whole body before reading (Python's
// http.client, curl on large bodies) never read the answer at all. Each kind of client below sends
// 3 MB and 50 MB, 20 times, five at a time: all 20 must read a 413.
import assert from "node:assert/strict";
import { createConnection } from "node:net";
import { after, before, describe, test } from "node:test";
import { MAX_BODY_BYTES } from "../../lib/protocol/http.ts";
import { MAX_DISCARD_BYTES, MAX_DISCARD_MS } from "../../lib/protocol/oversized.ts";
import { startTracker, type Tracker } from "../../lib/tracker/service.ts";

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
    socket.on("error", (err: NodeJS.ErrnoException) =>
      done({ error: `${writing ? "while writing" : "while reading"}: ${err.code ?? err.message}` }),
    );
    socket.on("close", () =>
      done({
        error: writing
          ? "closed while writing"
          : `closed before an answer (${JSON.stringify(received.slice(0, 40))})`,
      }),
    );
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

/** fetch with a streamed body: no Content-Length, so it goes chunked, 64 KiB a chunk. */
async function viaFetchChunked(url: string, size: number): Promise<Outcome> {
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= size) return controller.close();
      const from = at;
      at = Math.min(size, at + PIECE);
      controller.enqueue(BYTES.subarray(from, at));
    },
  });
  try {
    const res = await fetch(`${url}/reports`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "big" },
      body,
      duplex: "half",
    } as RequestInit);
    await res.arrayBuffer();
    return { status: res.status };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return { error: `${(err as Error).message}${cause?.code ? ` (${cause.code})` : ""}` };
  }
}

/** Runs `tries` tries, `atOnce` at a time; returns every outcome. */
async function inBatches(
  tries: number,
  atOnce: number,
  one: () => Promise<Outcome>,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let i = 0; i < tries; i += atOnce)
    outcomes.push(...(await Promise.all(Array.from({ length: Math.min(atOnce, tries - i) }, one))));
  return outcomes;
}

function assertAll413(outcomes: Outcome[]): void {
  const heard = outcomes.filter((o) => "status" in o && o.status === 413).length;
  const others = outcomes
    .filter((o) => !("status" in o) || o.status !== 413)
    .map((o) => ("status" in o ? String(o.status) : o.error));
  assert.equal(
    heard,
    outcomes.length,
    `${heard} of ${outcomes.length} saw the 413; the others: ${[...new Set(others)].join("; ")}`,
  );
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
    test(`fetch, ${mb} chunked (a streamed body): ${TRIES} of ${TRIES}`, async () => {
      assertAll413(await inBatches(TRIES, AT_ONCE, () => viaFetchChunked(tracker.url, size)));
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
      socket.write(
        head(tracker.port, `content-length: ${3 * 1024 * 1024}`, "").replace(
          /\r\n\r\n$/,
          "\r\nexpect: 100-continue\r\n\r\n",
        ),
      );
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
      socket.write(
        head(tracker.port, `content-length: ${Buffer.byteLength(body)}`)
          .replace(/idempotency-key: big/, "idempotency-key: small")
          .replace(/\r\n\r\n$/, "\r\nexpect: 100-continue\r\n\r\n"),
      );
    });
    assert.match(text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  });

  test(`a body just over the limit (${MAX_BODY_BYTES + 1} bytes) is still a 413 and the server keeps serving`, async () => {
    assertAll413([await viaFetch(tracker.url, MAX_BODY_BYTES + 1)]);
    const res = await fetch(`${tracker.url}/reports`);
    assert.equal(res.status, 200);
  });
});

/**
 * A client that declares a 1 GiB body and writes only what it is told to. The server's FIN after its
 * 413 does not stop it (allowHalfOpen, as a client still sending would be); only a write that meets
 * the server's closed socket does (the reset ends the connection: `cut`).
 */
function declaredHuge(port: number): {
  /** Writes one more 64 KiB piece; false once the connection is gone. */
  more: () => Promise<boolean>;
  answered: Promise<string>;
  cut: Promise<void>;
  written: () => number;
} {
  const socket = createConnection({ port, host: "127.0.0.1", allowHalfOpen: true });
  let received = "";
  let written = 0;
  let onAnswer!: (text: string) => void;
  const answered = new Promise<string>((resolve) => (onAnswer = resolve));
  socket.on("data", (c: Buffer) => {
    received += c.toString("latin1");
    if (received.includes("\r\n\r\n")) onAnswer(received);
  });
  socket.on("error", () => {});
  const cut = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.write(head(port, `content-length: ${1024 * 1024 * 1024}`));
  const more = async (): Promise<boolean> => {
    if (socket.destroyed) return false;
    written += PIECE;
    if (!socket.write(BYTES.subarray(0, PIECE)))
      await new Promise((ok) => socket.once("drain", ok).once("close", ok));
    return !socket.destroyed;
  };
  return { more, answered, cut, written: () => written };
}

describe("the rest of a refused body is discarded within bounds, in bytes and in time", () => {
  test(`by default at most ${MAX_DISCARD_BYTES / 1024 / 1024} MiB and ${MAX_DISCARD_MS / 1000} s (the README's figures)`, () => {
    assert.equal(MAX_DISCARD_BYTES, 64 * 1024 * 1024);
    assert.equal(MAX_DISCARD_MS, 30_000);
  });

  test("a client that never stops sending is cut once the byte bound is discarded", async () => {
    const tracker = await startTracker({
      variant: "naive",
      discardBytes: 1024 * 1024,
      discardMs: 60_000,
    });
    try {
      const c = declaredHuge(tracker.port);
      // Write until the server closes: it must, long before the 1 GiB declared.
      let open = true;
      while (open && c.written() < 128 * 1024 * 1024) open = await c.more();
      assert.equal(
        open,
        false,
        `the server still read after ${c.written()} bytes (the bound is 1 MiB)`,
      );
      await c.cut;
      assert.match(await c.answered, /^HTTP\/1\.1 413 /, "the 413 was read first");
      // The 1 MiB bound plus what the kernel's buffers held: far below the 128 MiB the client offered.
      assert.ok(
        c.written() < 64 * 1024 * 1024,
        `${c.written()} bytes written before the server closed`,
      );
    } finally {
      await tracker.close();
    }
  });

  test("a client that goes quiet without closing is closed once the time bound is up", async () => {
    const tracker = await startTracker({ variant: "naive", discardMs: 200 });
    try {
      const sent = performance.now();
      const c = declaredHuge(tracker.port);
      await c.more();
      assert.match(await c.answered, /^HTTP\/1\.1 413 /);
      // Quiet now; a piece now and then only to learn whether the server still reads (a write to a
      // closed socket meets a reset). Well under the byte bound: only the time bound can end it.
      while (await c.more()) await new Promise((ok) => setTimeout(ok, 20));
      await c.cut;
      assert.ok(c.written() < MAX_DISCARD_BYTES / 2);
      assert.ok(performance.now() - sent >= 180, "not before the 200 ms bound");
    } finally {
      await tracker.close();
    }
  });
});
