/**
 * A closed-loop HTTP/1.1 load generator on `node:net`: `connections` keep-alive connections, each
 * sending its next request as soon as the answer to the last one is in, until the time is up.
 * Requests in flight at the deadline are waited for and counted.
 *
 * Why raw sockets rather than `node:http`'s client: on a two-core machine the load generator
 * competes with the server for CPU, and `node:http`'s client (agent, request objects, header
 * parsing into objects) costs about as much per request as the server's own HTTP layer, so the
 * bare-server ceiling would measure the client. This one writes prepared request bytes and reads
 * only the status line, Content-Length and one header per answer. It understands exactly what
 * the servers it measures send: HTTP/1.1 answers with a Content-Length (the tracker and the bare
 * server always set one); anything else is an error, never a silent miscount.
 */

import { connect, type Socket } from "node:net";
import { t } from "../core/i18n.ts";
import { quantileSorted } from "../core/stats.ts";

export interface LoadOptions {
  port: number;
  /** Connections, each with one request in flight: the concurrency. */
  connections: number;
  /** Stop sending new requests after this long, ms. */
  durationMs: number;
  /** Stop after this many requests in all (default: no limit). */
  maxRequests?: number;
  /** The bytes of request number i (0, 1, 2, … across all connections, in the order sent). */
  request: (i: number) => string;
}

export interface LoadResult {
  /** Answers received. */
  completed: number;
  /** From the first request sent to the last answer received, ms. */
  elapsedMs: number;
  /** completed / elapsed, per second. */
  perSecond: number;
  /** Latency of each request, sent to answer fully received, ms, ascending. */
  latenciesMs: Float64Array;
  p50Ms: number;
  p99Ms: number;
  /** How many answers had each status. */
  statuses: Record<number, number>;
  /** Answers carrying `Idempotent-Replayed: true`. */
  replayed: number;
}

const HEADER_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const REPLAYED = /\r\nidempotent-replayed:[ \t]*true/i;

/** One parsed answer. */
interface Answer {
  status: number;
  replayed: boolean;
}

/** Reads answers off a byte stream: status line, headers up to the blank line, Content-Length body. */
export class ResponseReader {
  #buffer: Buffer = Buffer.alloc(0);

  /** Adds bytes; returns the answers completed by them (usually zero or one). */
  push(chunk: Buffer): Answer[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const answers: Answer[] = [];
    for (;;) {
      const end = this.#buffer.indexOf(HEADER_END);
      if (end < 0) return answers;
      const head = this.#buffer.toString("latin1", 0, end);
      const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      if (!statusLine)
        throw new Error(
          t("not an HTTP/1.x answer: {start}", { start: JSON.stringify(head.slice(0, 40)) }),
        );
      const length = CONTENT_LENGTH.exec(head);
      if (!length)
        throw new Error(
          t("an answer without Content-Length (this load generator reads no other framing)"),
        );
      const total = end + HEADER_END.length + Number(length[1]);
      if (this.#buffer.length < total) return answers;
      answers.push({ status: Number(statusLine[1]), replayed: REPLAYED.test(head) });
      this.#buffer = this.#buffer.subarray(total);
    }
  }

  /** Whether part of an answer is still waiting for its remaining bytes. */
  get pending(): boolean {
    return this.#buffer.length > 0;
  }
}

/** Runs the load and resolves with what was measured; rejects if a connection fails. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (!(options.connections >= 1))
    throw new RangeError(`connections must be at least 1, got ${options.connections}`);
  const sockets = await Promise.all(
    Array.from({ length: options.connections }, () => open(options.port)),
  );
  const limit = options.maxRequests ?? Infinity;
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let replayed = 0;
  let sent = 0;
  let lastAnswerAt = 0;

  const started = performance.now();
  const deadline = started + options.durationMs;
  try {
    await new Promise<void>((resolve, reject) => {
      let running = sockets.length;
      const finish = (socket: Socket): void => {
        socket.removeAllListeners("data");
        if (--running === 0) resolve();
      };
      for (const socket of sockets) {
        const reader = new ResponseReader();
        let sentAt = 0;
        const send = (): void => {
          if (sent >= limit || performance.now() >= deadline) {
            finish(socket);
            return;
          }
          sentAt = performance.now();
          socket.write(options.request(sent++));
        };
        socket.on("data", (chunk: Buffer) => {
          let answers: Answer[];
          try {
            answers = reader.push(chunk);
          } catch (err) {
            return reject(err as Error);
          }
          for (const a of answers) {
            const now = performance.now();
            latencies.push(now - sentAt);
            lastAnswerAt = now;
            statuses[a.status] = (statuses[a.status] ?? 0) + 1;
            if (a.replayed) replayed++;
            send();
          }
        });
        socket.on("error", reject);
        socket.on("close", () =>
          reject(new Error(t("the server closed a connection during the run"))),
        );
        send();
      }
    });
  } finally {
    for (const s of sockets) {
      s.removeAllListeners("close");
      s.on("error", () => {});
      s.destroy();
    }
  }

  const sorted = Float64Array.from(latencies).sort();
  const elapsedMs = Math.max(lastAnswerAt - started, 1e-3);
  return {
    completed: sorted.length,
    elapsedMs,
    perSecond: (sorted.length / elapsedMs) * 1000,
    latenciesMs: sorted,
    p50Ms: sorted.length > 0 ? quantileSorted(sorted, 0.5) : NaN,
    p99Ms: sorted.length > 0 ? quantileSorted(sorted, 0.99) : NaN,
    statuses,
    replayed,
  };
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, noDelay: true });
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

/** A POST request's bytes, with a Content-Length; `headers` are added as given. */
export function postRequest(
  port: number,
  path: string,
  body: string,
  headers: Record<string, string> = {},
): string {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  return (
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`
  );
}
