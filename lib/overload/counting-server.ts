/**
 * A counting server: a `node:http` server on 127.0.0.1 that answers every request by a rule the
 * caller gives and counts what it receives. Lessons about load put one wherever traffic lands (the
 * "database" behind a stack of services, the API behind an SDK), so every count a lesson prints is
 * counted where the requests arrive, not worked out on paper.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { listenOnLoopback } from "../core/listen.ts";

/** What the server answers: a status, optional headers, an optional JSON body. */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** One request as the server saw it. */
export interface Received {
  /** 1 for the first request this server received. */
  n: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

/** Decides the reply to request `received` (may wait, e.g. to ask another server first). */
export type Responder = (received: Received, req: IncomingMessage) => Reply | Promise<Reply>;

export interface CountingServer {
  /** e.g. "http://127.0.0.1:40123" */
  readonly url: string;
  /** How many requests have arrived so far. */
  readonly count: number;
  /** Every request so far, in order of arrival. */
  readonly received: readonly Received[];
  /** Stops listening and cuts open connections. */
  close(): Promise<void>;
}

/** Starts a counting server and resolves once it listens. */
export async function startCountingServer(respond: Responder): Promise<CountingServer> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const r: Received = {
      n: received.length + 1,
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
    };
    received.push(r);
    req.resume();
    Promise.resolve()
      .then(() => respond(r, req))
      .catch((): Reply => ({ status: 500, body: { error: "the responder failed" } }))
      .then((reply) => {
        if (res.destroyed) return;
        const text = reply.body === undefined ? "" : JSON.stringify(reply.body);
        res.writeHead(reply.status, {
          ...(text ? { "content-type": "application/json" } : {}),
          ...reply.headers,
          "content-length": Buffer.byteLength(text),
        });
        res.end(text);
      });
  });
  const { url } = await listenOnLoopback(server);
  return {
    url,
    get count() {
      return received.length;
    },
    received,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
