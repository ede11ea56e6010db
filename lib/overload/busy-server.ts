/**
 * Servers under load and the crowds of clients that swamp them (lessons 02-03). This one is a busy
 * server: a `node:http` server on 127.0.0.1 that can work on one request at a time and sheds
 * everything else. A request that arrives while it is free is accepted: the server is busy with it
 * for `serviceMs`, then answers 200. A request that arrives while it is busy gets 503 at once, with
 * no queue and no Retry-After, so only the client's backoff decides when it comes back.
 *
 * That is the smallest model of contention (the herd simulator's version check, over real HTTP): of
 * the requests that arrive together, one gets through and the others fail. Whether two arrivals are
 * "together" depends on when the event loop delivers them, so the counts vary a little from run to
 * run; every arrival is recorded with its time, caller and answer, for the lesson to count.
 */
import { nowMs, sleep } from "../core/clock.ts";
import { startCountingServer } from "./counting-server.ts";

/** One request as the busy server saw it. */
export interface Arrival {
  /** 1 for the first request this server received. */
  n: number;
  /** When it arrived, ms on the `nowMs()` clock (the same clock as `lib/core/clock.ts`). */
  atMs: number;
  /** Who sent it: the `Authorization: Bearer <name>` header, or "anonymous". */
  caller: string;
  /** 200 if it was served, 503 if it found the server busy. */
  status: 200 | 503;
  /** For a 503: the number `n` of the request the server was busy with. */
  busyWith?: number;
}

export interface BusyServer {
  /** e.g. "http://127.0.0.1:40123" */
  readonly url: string;
  /** Every request so far, in order of arrival. */
  readonly arrivals: readonly Arrival[];
  /** Stops listening and cuts open connections. */
  close(): Promise<void>;
}

export interface BusyServerOptions {
  /** How long the server works on an accepted request (running time, see lib/core/clock.ts). */
  serviceMs: number;
  /** The work itself, for tests to hold it open with a promise; default: sleep `serviceMs`. */
  serve?: (n: number) => Promise<void>;
  /** Called as each request arrives, before it is answered. */
  onArrival?: (arrival: Arrival) => void;
}

/** Starts a busy server and resolves once it listens. */
export async function startBusyServer(options: BusyServerOptions): Promise<BusyServer> {
  const serve = options.serve ?? (() => sleep(options.serviceMs));
  const arrivals: Arrival[] = [];
  let busyWith: number | undefined;
  const server = await startCountingServer(async (r) => {
    const auth = r.headers.authorization;
    const caller = auth?.startsWith("Bearer ") ? auth.slice("Bearer ".length) : "anonymous";
    const arrival: Arrival =
      busyWith === undefined
        ? { n: r.n, atMs: nowMs(), caller, status: 200 }
        : { n: r.n, atMs: nowMs(), caller, status: 503, busyWith };
    arrivals.push(arrival);
    options.onArrival?.(arrival);
    if (arrival.status === 503)
      return { status: 503, body: { error: `busy with request ${busyWith}` } };
    busyWith = r.n;
    try {
      await serve(r.n);
    } finally {
      busyWith = undefined;
    }
    return { status: 200, body: { served: r.n } };
  });
  return { url: server.url, arrivals, close: () => server.close() };
}
