/**
 * Refusing a body that is too large so that the client hears it. A server that answers 413 and
 * closes while the client is still sending makes the client's next write meet a reset (EPIPE,
 * ECONNRESET), and a client that sends its whole body before it reads (Python's http.client, curl
 * on large bodies) never reads the 413. Two ways out:
 *
 * - when the headers already decide it (a Content-Length over the limit) and the client asked
 *   `Expect: 100-continue`, answer the final status instead of 100 Continue (RFC 9110 §10.1.1: "A
 *   server MAY omit sending a 100 (Continue) response if it has already received some or all of the
 *   content … or if the request would be refused anyway"); the client then never sends the body;
 * - otherwise send the 413 with `Connection: close`, half-close the connection (FIN: "nothing more
 *   from me") and read and discard what the client still sends, until it closes its side, or up
 *   to a bound in bytes and in time, whichever comes first; only then close. This is the "lingering
 *   close" of Apache httpd and Go's net/http.
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

/** How much of an oversized body a server reads and throws away before it closes, bytes. */
export const MAX_DISCARD_BYTES = 64 * 1024 * 1024;
/** How long it keeps reading and discarding, ms, at most. */
export const MAX_DISCARD_MS = 30_000;

/** The requests refused as too large, whose connection must linger. */
const oversized = new WeakSet<IncomingMessage>();

/** Marks `req` as refused for its size: its connection will discard the rest before closing. */
export function markOversized(req: IncomingMessage): void {
  oversized.add(req);
}

export function isOversized(req: IncomingMessage): boolean {
  return oversized.has(req);
}

/** The declared Content-Length, if it is over `limit`. */
export function declaredOver(req: IncomingMessage, limit: number): boolean {
  const declared = req.headers["content-length"];
  return declared !== undefined && Number(declared) > limit;
}

/**
 * Call before the 413 is written: when node:http ends the response, the connection half-closes and
 * discards the client's remaining bytes instead of closing at once (node:http calls the socket's
 * `destroySoon` once the last answer on a `Connection: close` connection has been written).
 */
export function lingerBeforeClose(
  req: IncomingMessage,
  limits: { bytes?: number; ms?: number } = {},
): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  const maxBytes = limits.bytes ?? MAX_DISCARD_BYTES;
  const maxMs = limits.ms ?? MAX_DISCARD_MS;
  // Keep the request's body flowing (into nothing), so node:http's parser keeps reading the socket.
  req.removeAllListeners("data");
  req.resume();
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.destroyed) return;
    let discarded = 0;
    const stop = (): void => {
      clearTimeout(timer);
      this.destroy();
    };
    const timer = setTimeout(stop, maxMs);
    timer.unref();
    this.on("data", (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > maxBytes) stop();
    });
    this.once("end", stop);
    this.once("close", () => clearTimeout(timer));
    // FIN after the answer: the client reads the 413 and knows no more answers come.
    if (this.writable) this.end();
  };
}
