/**
 * The bug tracker service: `node:http` in front of `node:sqlite` (or of PostgreSQL, with the
 * `postgres` option: postgres-store.ts), with a chosen variant for POST /reports and server-side
 * faults by request number. This module starts one; its parts are the life of one request
 * (request.ts), the routes (router.ts), the variants (variants/), the database (database.ts) and the
 * key sweeper (sweeper.ts).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { listenOnLoopback } from "../core/listen.ts";
import { MAX_BODY_BYTES, rawProblem } from "../protocol/http.ts";
import { declaredOver } from "../protocol/oversized.ts";
import type { TrackerDatabase } from "./database.ts";
import { Faults, type Stage } from "./faults.ts";
import type { TrackerEvent } from "./narrate.ts";
import type { PostgresStore } from "./postgres-store.ts";
import { type RequestRecord, requestLife } from "./request.ts";
import { type LeaseOverrun, router } from "./router.ts";
import type { SideEffects } from "./side-effects.ts";
import { sqliteDatabase } from "./sqlite-database.ts";
import { ReportStore } from "./store.ts";
import { type Swept, startKeySweeper } from "./sweeper.ts";
import type { CrashPoint, Variant, VariantName } from "./variant.ts";
import { variantByName } from "./variants/index.ts";

export interface TrackerOptions {
  /** Which variant handles POST /reports (default "naive"). */
  variant?: VariantName;
  /** SQLite file path, or ":memory:" (default). */
  db?: string;
  /**
   * A PostgreSQL URL whose search_path names the schema (lib/postgres/schema.ts): the reports and
   * keys live there instead of in SQLite (`db` is then unused), and every tracker given the same URL,
   * in this process or another, serves the same ones. Not with `sideEffects.inTransaction`.
   */
  postgres?: string;
  /** Faults by request number (default: none). Stages (`faults.reached`) are recorded only when given. */
  faults?: Faults;
  /** Receives every event, for the trace or a log. */
  onEvent?: (event: TrackerEvent) => void;
  /** Port on 127.0.0.1 (default 0: the system picks a free one). */
  port?: number;
  /** How long a claim on an idempotency key lasts, ms (keyed variants). */
  leaseMs?: number;
  /** How long a completed key is remembered, ms (keyed variants; default 24 h). */
  ttlMs?: number;
  /** The clock, ms (default Date.now; tests inject one). */
  now?: () => number;
  /** Receives one record per request when it ends (the standalone tracker's log). */
  onRequest?: (record: RequestRecord) => void;
  /**
   * Hears each request that held its key longer than the lease (router.ts's LeaseOverrun): a lease
   * shorter than the handler, which the operator should raise.
   */
  onLeaseOverrun?: (overrun: LeaseOverrun) => void;
  /** What a crash fault does. In-process it cannot kill anything, so the default refuses. */
  crash?: (point: CrashPoint, requestNo: number) => void;
  /** What POST /reports does besides storing the report (side-effects.ts; lesson 07). */
  sideEffects?: SideEffects;
  /** How long a client may take to send its request's headers, ms (default 10 s); then 408 and close. */
  headersTimeoutMs?: number;
  /** How long a client may take to send its whole request, ms (default 30 s); then 408 and close. */
  requestTimeoutMs?: number;
  /** How often expired keys are deleted, ms (keyed variants; default 60 s; 0: never by itself). */
  sweepEveryMs?: number;
  /** How many expired keys one sweep transaction deletes at most (default 500). */
  sweepBatch?: number;
  /** Hears each sweep that deleted something (the total and the transactions it took). */
  onSweep?: (swept: Swept) => void;
  /**
   * SQLite: how long a write waits for the file's write lock while another connection (another
   * process) holds it, ms, without stopping the other requests (default 5 s); then 503 with
   * Retry-After.
   */
  lockWaitMs?: number;
  /** How much of a body refused for its size is read and discarded before closing, bytes (default 64 MiB). */
  discardBytes?: number;
  /** How long a body refused for its size is read and discarded before closing, ms (default 30 s). */
  discardMs?: number;
}

/** A running tracker; `S` is its database: the SQLite ReportStore, or a PostgresStore. */
export interface Tracker<S = ReportStore> {
  /** e.g. "http://127.0.0.1:40123" */
  readonly url: string;
  readonly port: number;
  readonly store: S;
  readonly faults: Faults;
  readonly variant: Variant;
  /** How many requests have arrived so far. */
  readonly requests: number;
  /**
   * Deletes the keys whose TTL has run out, in transactions of at most `sweepBatch` keys, yielding
   * to requests between them (the service runs it every `sweepEveryMs`). Naive has no keys: 0.
   */
  sweepExpiredKeys(): Promise<Swept>;
  /** Stops listening, cuts open connections, closes the database. */
  close(): Promise<void>;
}

export const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_LEASE_MS = 5_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_SWEEP_EVERY_MS = 60_000;
export const DEFAULT_SWEEP_BATCH = 500;

/**
 * Starts a tracker on 127.0.0.1 and resolves once it listens: on SQLite (`db`, default
 * ":memory:"), or on PostgreSQL with `postgres: url`.
 */
export function startTracker(options?: TrackerOptions & { postgres?: undefined }): Promise<Tracker>;
export function startTracker(
  options: TrackerOptions & { postgres: string },
): Promise<Tracker<PostgresStore>>;
export function startTracker(
  options: TrackerOptions,
): Promise<Tracker<ReportStore> | Tracker<PostgresStore>>;
export async function startTracker(
  options: TrackerOptions = {},
): Promise<Tracker<ReportStore> | Tracker<PostgresStore>> {
  const variant = variantByName(options.variant ?? "naive");
  if (options.postgres !== undefined) {
    if (options.sideEffects?.inTransaction)
      throw new Error("a side effect inside the report's transaction needs the SQLite store");
    // Loaded only here: a tracker on SQLite (every lesson's) does not load the PostgreSQL client.
    const [{ PostgresStore }, { postgresDatabase }] = await Promise.all([
      import("./postgres-store.ts"),
      import("./postgres-database.ts"),
    ]);
    const store = await PostgresStore.open(options.postgres);
    return serve(postgresDatabase(store), variant, options);
  }
  // The connection never waits for a lock itself (busy_timeout 0): sqliteDatabase waits for it
  // between the other requests.
  const store = new ReportStore(options.db ?? ":memory:", { busyTimeoutMs: 0 });
  return serve(
    sqliteDatabase(store, {
      ...(options.lockWaitMs === undefined ? {} : { lockWaitMs: options.lockWaitMs }),
    }),
    variant,
    options,
  );
}

/**
 * What node:http refuses before any handler runs (a malformed request, a client too slow) gets a
 * problem+json answer, and the connection closes (RFC 9112 §2.2: a server "SHOULD respond with a 400
 * (Bad Request) response and close the connection"). On a connection whose earlier, pipelined
 * requests are still being handled, that answer waits for theirs: answers go out in the order of
 * the requests (RFC 9112 §9.3.2), so a client never pairs the 400 with a POST that was stored. (A
 * request still arriving when the refusal comes, its body cut short, is the one refused: the answer
 * waits only for the requests received whole.)
 */
function pipelineOrder(handle: (req: IncomingMessage, res: ServerResponse) => void): {
  handle(req: IncomingMessage, res: ServerResponse): void;
  clientError(err: NodeJS.ErrnoException, socket: Duplex): void;
} {
  /** Per connection: its requests whose answer has not finished yet. */
  const open = new WeakMap<Duplex, Set<IncomingMessage>>();
  /** Per connection: the refusal waiting for those answers (the parser may report it more than once). */
  const refusals = new WeakMap<Duplex, string | undefined>();
  const waitsFor = (socket: Duplex): boolean =>
    [...(open.get(socket) ?? [])].some((req) => req.complete);
  const refuse = (socket: Duplex, text: string | undefined): void => {
    if (text !== undefined && socket.writable) socket.end(text);
    else socket.destroy();
  };
  return {
    handle(req, res) {
      const socket = req.socket;
      let requests = open.get(socket);
      if (requests === undefined) {
        requests = new Set();
        open.set(socket, requests);
      }
      requests.add(req);
      res.once("close", () => {
        requests.delete(req);
        if (refusals.has(socket) && !waitsFor(socket)) refuse(socket, refusals.get(socket));
      });
      handle(req, res);
    },
    clientError(err, socket) {
      if (refusals.has(socket)) return;
      const text = socket.writable ? rawProblem(err.code) : undefined;
      refusals.set(socket, text);
      if (!waitsFor(socket)) refuse(socket, text);
    },
  };
}

/**
 * A tracker over `db`: the server and its three parts, each a module of its own: the life of one
 * request (request.ts), the routes (router.ts), and the key sweeper (sweeper.ts).
 */
async function serve<S>(
  db: TrackerDatabase<S>,
  variant: Variant,
  options: TrackerOptions,
): Promise<Tracker<S>> {
  const { store } = db;
  const faults = options.faults ?? new Faults();
  // A request's stages are recorded only for a caller who passed its own Faults and may wait on
  // them; for anyone else they would be bookkeeping per request that nobody reads.
  const mark: (requestNo: number, stage: Stage) => void = options.faults
    ? (n, stage) => faults.mark(n, stage)
    : () => {};
  const emit = options.onEvent ?? (() => {});
  const now = options.now ?? Date.now;
  let closing = false;

  // A side effect inside the report's transaction runs in a synchronous store hook, which learns
  // which request it runs for from a scope around each request's handling.
  const inTransaction = options.sideEffects?.inTransaction;
  const scope = inTransaction ? new AsyncLocalStorage<number>() : undefined;
  if (inTransaction && scope && store instanceof ReportStore) {
    store.onInsert((report) =>
      emit({
        actor: "database",
        requestNo: scope.getStore() ?? 0,
        text: inTransaction(report, store),
      }),
    );
  }

  const requests = requestLife({
    faults,
    mark,
    watchStages: options.faults !== undefined,
    emit,
    tracing: options.onEvent !== undefined,
    route: router({
      db,
      variant,
      faults,
      mark,
      emit,
      ...(options.faults
        ? {
            claimed: (requestNo: number, key: string, takenOver: boolean) =>
              options.faults?.claimed(requestNo, key, takenOver),
          }
        : {}),
      crash:
        options.crash ??
        ((point: CrashPoint) => {
          throw new Error(`the crash fault at "${point}" needs the tracker in a child process`);
        }),
      sideEffects: options.sideEffects,
      now,
      leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
      ttlMs: options.ttlMs ?? DEFAULT_TTL_MS,
      ...(options.onLeaseOverrun ? { onLeaseOverrun: options.onLeaseOverrun } : {}),
    }),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
    ...(scope ? { scope } : {}),
    discardLimits: {
      ...(options.discardBytes === undefined ? {} : { bytes: options.discardBytes }),
      ...(options.discardMs === undefined ? {} : { ms: options.discardMs }),
    },
    closing: () => closing,
  });

  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // node:http looks for late clients every connectionsCheckingInterval (30 s by default): a quarter
  // of the shorter limit keeps each limit within 25 % of itself.
  const connectionsCheckingInterval = Math.max(
    10,
    Math.min(30_000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4)),
  );
  // requireHostHeader: false, so that the missing Host is refused by the router in problem+json
  // rather than by node:http with an empty 400.
  const pipeline = pipelineOrder(requests.handle);
  const server: Server = createServer(
    { headersTimeout, requestTimeout, connectionsCheckingInterval, requireHostHeader: false },
    pipeline.handle,
  );
  // `Expect: 100-continue`: the client waits before sending its body. When the headers already say
  // 413, answer that instead of 100 Continue (RFC 9110 §10.1.1), and the body is never sent.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    if (!declaredOver(req, MAX_BODY_BYTES)) res.writeContinue();
    pipeline.handle(req, res);
  });
  server.on("clientError", pipeline.clientError);

  // naive keeps no keys: nothing to sweep.
  const sweeper =
    variant.name === "naive"
      ? undefined
      : startKeySweeper(db, {
          now,
          batch: options.sweepBatch ?? DEFAULT_SWEEP_BATCH,
          everyMs: options.sweepEveryMs ?? DEFAULT_SWEEP_EVERY_MS,
          ...(options.onSweep ? { onSweep: options.onSweep } : {}),
        });

  const { port } = await listenOnLoopback(server, options.port ?? 0);

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    store,
    faults,
    variant,
    get requests() {
      return requests.count;
    },
    sweepExpiredKeys: () => sweeper?.sweep() ?? Promise.resolve({ deleted: 0, batches: 0 }),
    async close() {
      if (closing) return;
      closing = true;
      await sweeper?.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await db.close();
    },
  };
}
