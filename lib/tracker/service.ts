/**
 * The bug tracker service: `node:http` in front of `node:sqlite` (or of PostgreSQL, with the
 * `postgres` option: postgres-store.ts), with a chosen variant for POST /reports and server-side
 * faults by request number.
 *
 *   POST /reports          file a report (what the variant decides)          → 201 + Location
 *   GET  /reports          list reports; `?title=` finds by normalised title → 200
 *   GET  /reports/<id>     one report                                        → 200 or 404
 *   PUT  /reports/<id>     create or replace the report with this id         → 201 or 200
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Faults, type FaultName, type Stage, type Wake } from "./faults.ts";
import { declaredOver, isOversized, lingerBeforeClose } from "../protocol/oversized.ts";
import { HttpError, MAX_BODY_BYTES, answerFromError, problem, rawProblem, readBody, send, type Answer } from "../protocol/http.ts";
import { parseReport } from "./report-body.ts";
import { callerOf } from "../protocol/caller.ts";
import { keyHeaderValues, parseIdempotencyKey } from "../protocol/idempotency-key.ts";
import type { SideEffectCall, SideEffects } from "./side-effects.ts";
import type { TrackerDatabase } from "./database.ts";
import type { PostgresStore } from "./postgres-store.ts";
import { sqliteDatabase } from "./sqlite-database.ts";
import { MAX_REPORT_ID, NoReportIdLeft, ReportStore, type NewReport, type Report } from "./store.ts";
import type { CrashPoint, CreateContext, Variant, VariantName } from "./variant.ts";
import { variantByName } from "./variants/index.ts";
import { listenOnLoopback } from "../core/listen.ts";

/** One line of the server's story, for the trace. */
export interface TrackerEvent {
  actor: "server" | "database";
  requestNo: number;
  text: string;
  mark?: "ok" | "bad" | "warn";
}

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
  /** How much of a body refused for its size is read and discarded before closing, bytes (default 64 MiB). */
  discardBytes?: number;
  /** How long a body refused for its size is read and discarded before closing, ms (default 30 s). */
  discardMs?: number;
}

/** What one sweep of expired keys did. */
export interface Swept {
  deleted: number;
  batches: number;
}

/** How one request ended, for a one-line log. */
export interface RequestRecord {
  requestNo: number;
  method: string;
  /** The request target, e.g. "/reports?title=x". */
  target: string;
  /** The status sent, or undefined when no answer left (a dropped or lost one, a hang-up). */
  status: number | undefined;
  fault: FaultName;
  /** The Idempotency-Key header as sent (repeated lines joined), if any. */
  key: string | undefined;
  /** The answer was a replay of a stored response. */
  replayed: boolean;
  ms: number;
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
export function startTracker(options: TrackerOptions & { postgres: string }): Promise<Tracker<PostgresStore>>;
export function startTracker(options: TrackerOptions): Promise<Tracker<ReportStore> | Tracker<PostgresStore>>;
export async function startTracker(options: TrackerOptions = {}): Promise<Tracker<ReportStore> | Tracker<PostgresStore>> {
  const variant = variantByName(options.variant ?? "naive");
  if (options.postgres !== undefined) {
    if (options.sideEffects?.inTransaction) throw new Error("a side effect inside the report's transaction needs the SQLite store");
    // Loaded only here: a tracker on SQLite (every lesson's) does not load the PostgreSQL client.
    const [{ PostgresStore }, { postgresDatabase }] = await Promise.all([import("./postgres-store.ts"), import("./postgres-database.ts")]);
    const store = await PostgresStore.open(options.postgres);
    return serve(postgresDatabase(store), variant, options);
  }
  return serve(sqliteDatabase(new ReportStore(options.db ?? ":memory:")), variant, options);
}

async function serve<S>(db: TrackerDatabase<S>, variant: Variant, options: TrackerOptions): Promise<Tracker<S>> {
  const { store } = db;
  const faults = options.faults ?? new Faults();
  // A request's stages are recorded only for a caller who passed its own Faults and may wait on
  // them; for anyone else they would be bookkeeping per request that nobody reads.
  const mark: (requestNo: number, stage: Stage) => void = options.faults ? (n, stage) => faults.mark(n, stage) : () => {};
  const emit = options.onEvent ?? (() => {});
  // Whether anyone hears the events: without a listener the per-request texts are not even built.
  const tracing = options.onEvent !== undefined;
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  const crash =
    options.crash ??
    ((point: CrashPoint) => {
      throw new Error(`the crash fault at "${point}" needs the tracker in a child process`);
    });
  let requests = 0;
  let closing = false;
  // Which request a synchronous store hook runs for: each request's handling runs in its own scope.
  const scope = new AsyncLocalStorage<number>();
  const sideEffects = options.sideEffects;
  const inTransaction = sideEffects?.inTransaction;
  if (inTransaction && store instanceof ReportStore) {
    store.onInsert((report) => emit({ actor: "database", requestNo: scope.getStore() ?? 0, text: inTransaction(report, store) }));
  }

  const discardLimits = {
    ...(options.discardBytes === undefined ? {} : { bytes: options.discardBytes }),
    ...(options.discardMs === undefined ? {} : { ms: options.discardMs }),
  };
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // node:http looks for late clients every connectionsCheckingInterval (30 s by default): a quarter
  // of the shorter limit keeps each limit within 25 % of itself.
  const connectionsCheckingInterval = Math.max(10, Math.min(30_000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4)));
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const requestNo = ++requests;
    const started = performance.now();
    if (options.onRequest) {
      const onRequest = options.onRequest;
      const keyValues = keyHeaderValues(req.rawHeaders);
      res.on("close", () =>
        onRequest({
          requestNo,
          method: req.method ?? "GET",
          target: req.url ?? "/",
          status: res.headersSent ? res.statusCode : undefined,
          fault: faults.faultFor(requestNo),
          key: keyValues.length > 0 ? keyValues.join(", ") : undefined,
          replayed: replays.has(res),
          ms: performance.now() - started,
        }),
      );
    }
    // The scope costs a context switch per request: only the in-transaction hook reads it.
    (inTransaction ? scope.run(requestNo, () => handle(requestNo, req, res)) : handle(requestNo, req, res)).catch((err: unknown) => {
      if (closing) return;
      emit({ actor: "server", requestNo, text: `internal error: ${err instanceof Error ? err.message : err}`, mark: "bad" });
      if (!res.headersSent && !res.destroyed) send(res, problem(500, "Internal Server Error", "the server failed"));
    });
  };
  // requireHostHeader: false, so that the missing Host is refused by route() in problem+json
  // rather than by node:http with an empty 400.
  const server: Server = createServer({ headersTimeout, requestTimeout, connectionsCheckingInterval, requireHostHeader: false }, onRequest);
  // `Expect: 100-continue`: the client waits before sending its body. When the headers already say
  // 413, answer that instead of 100 Continue (RFC 9110 §10.1.1), and the body is never sent.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    if (!declaredOver(req, MAX_BODY_BYTES)) res.writeContinue();
    onRequest(req, res);
  });
  // What node:http refuses before any handler runs (a malformed request, a client too slow): a
  // problem+json answer if the connection still takes one, then the connection is closed.
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    if (socket.writable) socket.end(rawProblem(err.code));
    else socket.destroy();
  });

  async function handle(requestNo: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fault: FaultName = faults.faultFor(requestNo);
    const { path, search } = splitTarget(req.url ?? "/");
    const method = req.method ?? "GET";
    mark(requestNo, "arrived");
    if (options.faults) res.on("close", () => mark(requestNo, "finished"));
    if (tracing) emit({ actor: "server", requestNo, text: `${method} ${path}${search} arrived${fault === "none" ? "" : ` (fault: ${fault})`}` });

    if (fault === "drop-request") {
      // The request vanishes: no handler runs and the client hears nothing until it gives up.
      req.resume();
      mark(requestNo, "dropped");
      emit({ actor: "server", requestNo, text: "dropped before any handler ran: nothing done, nothing said", mark: "warn" });
      await silenceUntilClientLeaves(res);
      return;
    }

    let answer: Answer;
    try {
      answer = await route(requestNo, fault, method, path, search, req);
    } catch (err) {
      const refused = answerFromRefusal(err);
      if (refused === undefined) throw err;
      answer = refused;
    } finally {
      mark(requestNo, "handled");
    }

    if (fault === "lose-response") {
      // Whatever was done stays done; the answer is thrown away before its first byte.
      mark(requestNo, "lost");
      emit({ actor: "server", requestNo, text: `answer (${answer.status}) lost on the way back: not one byte reaches the agent`, mark: "warn" });
      await silenceUntilClientLeaves(res);
      return;
    }
    if (res.destroyed) {
      emit({ actor: "server", requestNo, text: `→ ${answer.status}, but the agent had already hung up`, mark: "warn" });
      return;
    }
    // The event goes out before the answer, so that a parent reading a child tracker's events hears
    // of the answer no later than its client does.
    if (tracing) emit({ actor: "server", requestNo, text: `→ ${answer.status} ${describe(answer)}`, mark: answer.status < 400 ? "ok" : "bad" });
    // A body refused for its size may still be arriving: read and discard it before closing.
    if (isOversized(req)) lingerBeforeClose(req, discardLimits);
    send(res, answer);
    if (answer.headers?.["idempotent-replayed"] === "true") replays.add(res);
    mark(requestNo, "answered");
  }

  async function route(requestNo: number, fault: FaultName, method: string, path: string, search: string, req: IncomingMessage): Promise<Answer> {
    // RFC 9110 §7.2: "A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1
    // request message that lacks a Host header field".
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      throw new HttpError(400, "Bad Request", "an HTTP/1.1 request needs a Host header", { connection: "close" });
    }
    if (path === "/reports") {
      if (method === "POST") {
        const rawBody = await readBody(req);
        const report = parseReport(req.headers["content-type"], rawBody);
        const call: SideEffectCall | undefined = sideEffects && {
          requestNo,
          report,
          caller: callerOf(req),
          key: requestKeyIfAny(req.rawHeaders),
          say: (text, mark) => emit({ actor: "server", requestNo, text, ...(mark ? { mark } : {}) }),
        };
        const ctx: CreateContext = {
          requestNo,
          report,
          rawBody,
          method,
          path,
          headers: req.headers,
          rawHeaders: req.rawHeaders,
          caller: callerOf(req),
          db,
          leaseMs,
          ttlMs,
          now,
          work: async () => {
            if (fault === "slow" || fault === "pause-past-lease") {
              emit({ actor: "server", requestNo, text: `handler started, then stalls (fault: ${fault})`, mark: "warn" });
              const wake = await faults.hold(requestNo);
              emit({ actor: "server", requestNo, text: WAKE_TEXT[wake], ...(wake === "released" ? {} : { mark: "warn" as const }) });
              if (wake === "fail") throw new Error("the work failed after the pause (injected)");
            }
            if (fault === "internal-error") {
              emit({ actor: "server", requestNo, text: "the handler's work fails (fault: internal-error)", mark: "bad" });
              throw new Error("the work failed (injected fault: internal-error)");
            }
            if (call && sideEffects?.beforeCommit) await sideEffects.beforeCommit(call);
            ctx.crashPoint("before-commit");
          },
          claimed: (fence, takenFrom) => options.faults?.claimed(requestNo, fence, takenFrom),
          crashPoint: (point) => {
            if (fault === `crash-${point}`) {
              emit({ actor: "server", requestNo, text: `process killed (SIGKILL) at "${point}"`, mark: "bad" });
              crash(point, requestNo);
            }
          },
          database: (text, committed = false) => {
            emit({ actor: "database", requestNo, text });
            if (committed) mark(requestNo, "committed");
          },
          server: (text, mark) => emit({ actor: "server", requestNo, text, ...(mark ? { mark } : {}) }),
        };
        const answer = await variant.create(ctx);
        if (call && sideEffects?.afterCommit && answer.status === 201 && answer.headers?.["idempotent-replayed"] !== "true") {
          await sideEffects.afterCommit(answer.body as Report, call);
        }
        return answer;
      }
      if (method === "GET" || method === "HEAD") return listPage(new URLSearchParams(search));
      throw new HttpError(405, "Method Not Allowed", `${method} is not allowed on /reports`, { allow: "GET, HEAD, POST" });
    }
    const m = /^\/reports\/([^/]+)$/.exec(path);
    if (m) {
      const id = parseId(m[1]!);
      if (method === "GET" || method === "HEAD") {
        const report = await db.getReport(id);
        if (!report) throw new HttpError(404, "Not Found", `there is no report ${id}`);
        return { status: 200, body: report };
      }
      if (method === "PUT") {
        const report = parseReport(req.headers["content-type"], await readBody(req));
        if (fault === "slow" || fault === "pause-past-lease") await faults.hold(requestNo);
        const result = await db.putReport(id, report);
        emit({ actor: "database", requestNo, text: `${result.created ? "INSERT" : "REPLACE"} report ${id} · COMMIT` });
        mark(requestNo, "committed");
        return { status: result.created ? 201 : 200, body: result.report, headers: { location: `/reports/${id}` } };
      }
      throw new HttpError(405, "Method Not Allowed", `${method} is not allowed on /reports/${id}`, { allow: "GET, HEAD, PUT" });
    }
    throw new HttpError(404, "Not Found", `no route for ${path} (try /reports)`);
  }

  /**
   * GET /reports: one page, oldest first, at most `limit` reports (default and most: 100) with an
   * id above `after`; when there may be more, a `Link: <…>; rel="next"` header (RFC 8288) names the
   * next page. Oldest first, so that reports filed while a client pages through come at the end,
   * never between pages.
   */
  async function listPage(query: URLSearchParams): Promise<Answer> {
    const title = query.get("title") ?? undefined;
    const limit = wholeParam(query, "limit", 1, MAX_PAGE, MAX_PAGE);
    const after = wholeParam(query, "after", 0, MAX_REPORT_ID, 0);
    const rows = await db.page(after, limit + 1, title);
    if (rows.length <= limit) return { status: 200, body: rows };
    rows.length = limit;
    const next = new URLSearchParams({ ...(title === undefined ? {} : { title }), limit: String(limit), after: String(rows[limit - 1]!.id) });
    return { status: 200, body: rows, headers: { link: `</reports?${next}>; rel="next"` } };
  }

  // Expired keys are forgotten by the decision at once, and deleted here, off the request path: a
  // timer, small transactions, and a turn of the event loop for the requests between two of them.
  const sweepBatch = Math.max(1, options.sweepBatch ?? DEFAULT_SWEEP_BATCH);
  let sweeping: Promise<Swept> | undefined;
  const sweepOnce = async (): Promise<Swept> => {
    const swept: Swept = { deleted: 0, batches: 0 };
    while (!closing) {
      const n = await db.deleteExpired(now(), sweepBatch);
      swept.deleted += n;
      swept.batches++;
      if (n < sweepBatch) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (swept.deleted > 0) options.onSweep?.(swept);
    return swept;
  };
  /** One sweep at a time: a call while one runs gets that one. */
  const sweepExpiredKeys = (): Promise<Swept> => {
    if (variant.name === "naive") return Promise.resolve({ deleted: 0, batches: 0 });
    sweeping ??= sweepOnce().finally(() => (sweeping = undefined));
    return sweeping;
  };
  const sweepEveryMs = options.sweepEveryMs ?? DEFAULT_SWEEP_EVERY_MS;
  const sweeper =
    sweepEveryMs > 0 && variant.name !== "naive"
      ? setInterval(() => void sweepExpiredKeys().catch(() => {}), sweepEveryMs).unref()
      : undefined;

  const { port } = await listenOnLoopback(server, options.port ?? 0);

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    store,
    faults,
    variant,
    get requests() {
      return requests;
    },
    sweepExpiredKeys,
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(sweeper);
      await sweeping?.catch(() => {});
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await db.close();
    },
  };
}

/** The most reports GET /reports returns at once (and its default). */
export const MAX_PAGE = 100;

/** A whole-number query parameter from `min` to `max`, `fallback` when absent; otherwise 400. */
function wholeParam(query: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const values = query.getAll(name);
  if (values.length === 0) return fallback;
  const n = values.length === 1 && /^[0-9]{1,16}$/.test(values[0]!) ? Number(values[0]) : NaN;
  if (!(n >= min && n <= max)) throw new HttpError(400, "Bad Request", `?${name}= takes one whole number from ${min} to ${max}`);
  return n;
}

/**
 * The path and the query (with its "?") of a request target. A plain origin-form target is split
 * as it stands; anything else (percent-escapes, dot segments, an absolute form) goes through the
 * URL parser, which normalises it.
 */
export function splitTarget(target: string): { path: string; search: string } {
  if (/^\/[A-Za-z0-9_\-/]*(?:\?[^#%]*)?$/.test(target) && !target.includes("//") && !/\/\.{1,2}(?:\/|\?|$)/.test(target)) {
    const q = target.indexOf("?");
    return q < 0 ? { path: target, search: "" } : { path: target.slice(0, q), search: q === target.length - 1 ? "" : target.slice(q) };
  }
  const url = new URL(target, "http://tracker.invalid");
  return { path: url.pathname, search: url.search };
}

/**
 * The answer to a request refused on the way, by the HTTP edge (an HttpError: 400, 404, 413, …) or by
 * the store (NoReportIdLeft: 507); undefined for anything else, which is the server's own failure.
 */
function answerFromRefusal(err: unknown): Answer | undefined {
  if (err instanceof HttpError) return answerFromError(err);
  if (err instanceof NoReportIdLeft) return problem(507, "Insufficient Storage", err.message);
  return undefined;
}

/** What the trace says when a held handler goes on. */
const WAKE_TEXT: Record<Wake, string> = {
  released: "handler wakes up and carries on",
  "taken-over": "handler wakes up and carries on, unaware that its key was taken over meanwhile",
  fail: "handler wakes up, and its work fails",
};

/** The request's Idempotency-Key for a side effect's use, or undefined when absent or malformed. */
function requestKeyIfAny(rawHeaders: string[]): string | undefined {
  const values = keyHeaderValues(rawHeaders);
  if (values.length === 0) return undefined;
  const parsed = parseIdempotencyKey(values);
  return parsed.ok ? parsed.key : undefined;
}

/** The answers that were replays of a stored response (for RequestRecord.replayed). */
const replays = new WeakSet<ServerResponse>();

/** Holds a request open, saying nothing, until the client hangs up; then drops the connection. */
function silenceUntilClientLeaves(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.once("close", () => {
      res.socket?.destroy();
      resolve();
    });
  });
}

/** A report id from a route: the same range on every route, 1 to MAX_REPORT_ID. */
function parseId(text: string): number {
  const id = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : NaN;
  if (!(id <= MAX_REPORT_ID)) throw new HttpError(404, "Not Found", `"${text}" is not a report id (a whole number from 1 to ${MAX_REPORT_ID})`);
  return id;
}

function describe(answer: Answer): string {
  const body = answer.body as { id?: unknown; title?: unknown; detail?: unknown } | unknown[];
  const replayed = answer.headers?.["idempotent-replayed"] === "true" ? ", a replay" : "";
  if (Array.isArray(body)) return `(${body.length} report${body.length === 1 ? "" : "s"})`;
  if (body && typeof body.id === "number") return `(report ${body.id}${replayed})`;
  if (body && typeof body.detail === "string") return `(${body.detail}${replayed})`;
  return "";
}
