/**
 * The faulty server that lesson 09 points real HTTP client libraries at. It serves many independent
 * runs at once: each run has its own path (`/run/<id>/…`), its own script (what attempt n gets) and
 * its own log of every attempt: method, headers, arrival time, and when and how it ended.
 *
 * What a script can answer: a status (503, 429, …) with or without `Retry-After` (delay-seconds or
 * an HTTP-date, RFC 9110 §10.2.3), a reset of the connection after the whole request body was read
 * (the work is done, the answer is lost), a hang (the body is read and no answer ever comes, until
 * the client gives up), or 200.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { performance } from "node:perf_hooks";
import { Signals } from "../core/gate.ts";
import { listenOnLoopback } from "../core/listen.ts";

/** A Retry-After value: delay-seconds, or an HTTP-date `secondsAhead` (at least) from the answer. */
export type RetryAfter = { seconds: number } | { dateSecondsAhead: number };

/** What one attempt gets. */
export type Fault =
  | { kind: "ok" }
  | { kind: "status"; status: number; retryAfter?: RetryAfter }
  | { kind: "reset" }
  | { kind: "hang" };

/** What attempt `n` (1 for the first) of a run gets. */
export type Script = (n: number) => Fault;

/** One attempt as the server saw it. Times are `performance.now()` ms, plus wall-clock ms where a date matters. */
export interface LoggedAttempt {
  n: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** When the request's headers arrived. */
  arrivedAt: number;
  /** The same, as wall-clock time (Date.now()), to compare with an HTTP-date. */
  arrivedWall: number;
  /** Bytes of request body read. */
  bodyBytes: number;
  /** What the server did: "503", "503 Retry-After: 1", "reset", "hang", "200". */
  answer: string;
  /** The Retry-After header sent, if any, and as wall-clock ms when it was a date. */
  retryAfter?: { header: string; dateWall?: number };
  /** When the attempt ended for the server: answer written, connection reset, or client gone (hang). */
  endedAt?: number;
}

/** One run: a script, its base URL and its log. */
export interface Run {
  readonly id: number;
  /** Base URL of this run, e.g. http://127.0.0.1:40123/run/7 (append any path). */
  readonly url: string;
  readonly log: readonly LoggedAttempt[];
  /** Resolves when attempt `n` has arrived (at once if it already has). */
  arrived(n: number): Promise<void>;
  /** Resolves when the server has read the whole body of attempt `n` (the work is done). */
  read(n: number): Promise<void>;
  /** Resolves when attempt `n` has ended (answered, reset, or the client left a hang). */
  ended(n: number): Promise<void>;
  /** Called synchronously as each attempt arrives (before it is answered). */
  onArrival(listener: (attempt: LoggedAttempt) => void): void;
}

export interface FaultyServer {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** Starts a run with its own path and log. */
  open(script: Script): Run;
  /** Stops listening and cuts every open connection (hanging ones included). */
  close(): Promise<void>;
}

interface RunState extends Run {
  script: Script;
  mutableLog: LoggedAttempt[];
  signals: Signals;
  listeners: ((a: LoggedAttempt) => void)[];
}

/** Formats a Retry-After value for a response sent now. */
export function retryAfterHeader(
  ra: RetryAfter,
  nowWall: number = Date.now(),
): { header: string; dateWall?: number } {
  if ("seconds" in ra) return { header: String(ra.seconds) };
  // An HTTP-date has whole seconds: round up so the date is at least `dateSecondsAhead` away.
  const dateWall = Math.ceil((nowWall + ra.dateSecondsAhead * 1000) / 1000) * 1000;
  return { header: new Date(dateWall).toUTCString(), dateWall };
}

/** Starts the faulty server on 127.0.0.1 (port 0) and resolves once it listens. */
export async function startFaultyServer(): Promise<FaultyServer> {
  const runs = new Map<number, RunState>();
  let nextId = 1;

  const server: Server = createServer((req, res) => {
    const arrivedAt = performance.now();
    const arrivedWall = Date.now();
    const m = /^\/run\/(\d+)(\/.*)?$/.exec((req.url ?? "/").split("?")[0]!);
    const run = m ? runs.get(Number(m[1])) : undefined;
    if (!run) {
      req.resume();
      res.writeHead(404, { "content-type": "text/plain" }).end("no such run\n");
      return;
    }
    const n = run.mutableLog.length + 1;
    const fault = run.script(n);
    const attempt: LoggedAttempt = {
      n,
      method: req.method ?? "GET",
      path: m![2] ?? "/",
      headers: req.headers,
      arrivedAt,
      arrivedWall,
      bodyBytes: 0,
      answer:
        fault.kind === "status" ? String(fault.status) : fault.kind === "ok" ? "200" : fault.kind,
    };
    run.mutableLog.push(attempt);
    const end = (): void => {
      if (attempt.endedAt !== undefined) return;
      attempt.endedAt = performance.now();
      run.signals.fire(`ended:${n}`);
    };
    for (const listener of run.listeners) listener(attempt);
    run.signals.fire(`arrived:${n}`);

    // Every fault reads the whole body first: the server has "done the work" before it fails.
    req.on("data", (chunk: Buffer) => (attempt.bodyBytes += chunk.length));
    req.on("error", () => {});
    req.on("end", () => {
      run.signals.fire(`read:${n}`);
      switch (fault.kind) {
        case "ok":
          res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}', end);
          return;
        case "status": {
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (fault.retryAfter) {
            attempt.retryAfter = retryAfterHeader(fault.retryAfter);
            headers["retry-after"] = attempt.retryAfter.header;
            attempt.answer = `${fault.status} Retry-After: ${attempt.retryAfter.header}`;
          }
          res
            .writeHead(fault.status, headers)
            .end(JSON.stringify({ error: `status ${fault.status}` }), end);
          return;
        }
        case "reset":
          // A TCP RST, not a polite FIN: the client sees ECONNRESET with no byte of an answer.
          req.socket.resetAndDestroy();
          end();
          return;
        case "hang":
          // Never answer; the attempt ends when the client gives up and closes the connection.
          res.on("close", end);
          return;
      }
    });
  });
  server.keepAliveTimeout = 5_000;

  const { url } = await listenOnLoopback(server);

  return {
    url,
    open(script) {
      const id = nextId++;
      const signals = new Signals();
      const state: RunState = {
        id,
        url: `${url}/run/${id}`,
        script,
        mutableLog: [],
        signals,
        listeners: [],
        get log() {
          return state.mutableLog;
        },
        arrived: (n) => signals.when(`arrived:${n}`),
        read: (n) => signals.when(`read:${n}`),
        ended: (n) => signals.when(`ended:${n}`),
        onArrival: (listener) => void state.listeners.push(listener),
      };
      runs.set(id, state);
      return state;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
