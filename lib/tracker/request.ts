/**
 * The life of one request at the tracker: numbered as it arrives, told to the trace, dropped or
 * routed (router.ts), its refusal turned into a problem answer, its answer lost or sent, and, when
 * the service keeps a log, one record when it ends. The faults that act on the wire (drop-request,
 * lose-response) act here; those that act inside the handler, in the router.
 */
import type { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import { currentLang, t } from "../core/i18n.ts";
import {
  type Answer,
  answerFromError,
  detailLanguage,
  HttpError,
  inClientLanguage,
  problem,
  send,
} from "../protocol/http.ts";
import { keyHeaderValues } from "../protocol/idempotency-key.ts";
import { isOversized, lingerBeforeClose } from "../protocol/oversized.ts";
import { DatabaseUnavailable } from "./database.ts";
import type { FaultName, Faults, Stage } from "./faults.ts";
import type { TrackerEvent } from "./narrate.ts";
import type { RoutedRequest } from "./router.ts";
import { NoReportIdLeft } from "./store.ts";

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

export interface RequestLifeOptions {
  faults: Faults;
  /** Records that a request reached a stage (a no-op when nobody waits on the stages). */
  mark: (requestNo: number, stage: Stage) => void;
  /** Whether anyone waits on the stages: then a request is also marked "finished" when its connection closes. */
  watchStages: boolean;
  emit: (event: TrackerEvent) => void;
  /** Whether anyone hears the events: without a listener the per-request texts are not even built. */
  tracing: boolean;
  route: (request: RoutedRequest) => Promise<Answer>;
  /** Receives one record per request when it ends (the standalone tracker's log). */
  onRequest?: (record: RequestRecord) => void;
  /** Runs each request's handling in this scope, with its number (a store hook that runs synchronously reads it). */
  scope?: AsyncLocalStorage<number>;
  /** How much of a body refused for its size is read and discarded before closing. */
  discardLimits: { bytes?: number; ms?: number };
  /** True once the service is closing: a request cut off then is nobody's error. */
  closing: () => boolean;
}

/** Requests as node:http hands them over: `handle` takes each; `count` says how many have arrived. */
export interface RequestLife {
  handle(req: IncomingMessage, res: ServerResponse): void;
  readonly count: number;
}

export function requestLife(options: RequestLifeOptions): RequestLife {
  const { faults, mark, emit, tracing, route, scope } = options;
  let requests = 0;

  function arrive(req: IncomingMessage, res: ServerResponse): void {
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
    // The scope costs a context switch per request: only a store hook that needs it gets one.
    (scope
      ? scope.run(requestNo, () => live(requestNo, req, res))
      : live(requestNo, req, res)
    ).catch((err: unknown) => {
      if (options.closing()) return;
      emit({
        actor: "server",
        requestNo,
        what: "failed",
        text: t("internal error: {message}", {
          message: err instanceof Error ? err.message : String(err),
        }),
        mark: "bad",
      });
      if (!res.headersSent && !res.destroyed)
        send(res, problem(500, "Internal Server Error", "the server failed"));
    });
  }

  async function live(requestNo: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fault: FaultName = faults.faultFor(requestNo);
    let target: { path: string; search: string } | HttpError;
    try {
      target = splitTarget(req.url ?? "/");
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      target = err;
    }
    const { path, search } =
      target instanceof HttpError ? { path: req.url ?? "/", search: "" } : target;
    const method = req.method ?? "GET";
    mark(requestNo, "arrived");
    if (options.watchStages) res.on("close", () => mark(requestNo, "finished"));
    if (tracing)
      emit({
        actor: "server",
        requestNo,
        what: "arrived",
        text:
          fault === "none"
            ? t("{request} arrived", { request: `${method} ${path}${search}` })
            : t("{request} arrived (fault: {fault})", {
                request: `${method} ${path}${search}`,
                fault,
              }),
      });

    if (fault === "drop-request") {
      // The request vanishes: no handler runs and the client hears nothing until it gives up.
      req.resume();
      mark(requestNo, "dropped");
      emit({
        actor: "server",
        requestNo,
        what: "dropped",
        text: t("dropped before any handler ran: nothing done, nothing said"),
        mark: "warn",
      });
      await silenceUntilClientLeaves(res);
      return;
    }

    let answer: Answer;
    try {
      if (target instanceof HttpError) throw target;
      answer = await route({ requestNo, fault, method, path, search, req });
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
      emit({
        actor: "server",
        requestNo,
        what: "lost",
        status: answer.status,
        text: t("answer ({status}) lost on the way back: not one byte reaches the agent", {
          status: answer.status,
        }),
        mark: "warn",
      });
      await silenceUntilClientLeaves(res);
      return;
    }
    if (res.destroyed) {
      emit({
        actor: "server",
        requestNo,
        what: "hung-up",
        status: answer.status,
        text: t("→ {status}, but the agent had already hung up", { status: answer.status }),
        mark: "warn",
      });
      return;
    }
    // The event goes out before the answer, so that a parent reading a child tracker's events hears
    // of the answer no later than its client does.
    if (tracing)
      emit({
        actor: "server",
        requestNo,
        what: "answer",
        status: answer.status,
        text: t("→ {status} {description}", {
          status: answer.status,
          description: describe(answer),
        }),
        mark: answer.status < 400 ? "ok" : "bad",
      });
    // A body refused for its size may still be arriving: read and discard it before closing.
    if (isOversized(req)) lingerBeforeClose(req, options.discardLimits);
    send(res, inClientLanguage(answer, detailLanguage(req.headers)));
    if (answer.headers?.["idempotent-replayed"] === "true") replays.add(res);
    mark(requestNo, "answered");
  }

  return {
    handle: arrive,
    get count() {
      return requests;
    },
  };
}

/**
 * The path and the query (with its "?") of a request target. A plain origin-form target is split
 * as it stands; anything else (percent-escapes, dot segments, an absolute form) goes through the
 * URL parser, which normalises it; a target it cannot parse (`//:99999/`, `http://[::1/reports`,
 * `http://a%zz/`) is the client's error: a 400 thrown.
 */
export function splitTarget(target: string): { path: string; search: string } {
  if (
    /^\/[A-Za-z0-9_\-/]*(?:\?[^#%]*)?$/.test(target) &&
    !target.includes("//") &&
    !/\/\.{1,2}(?:\/|\?|$)/.test(target)
  ) {
    const q = target.indexOf("?");
    return q < 0
      ? { path: target, search: "" }
      : { path: target.slice(0, q), search: q === target.length - 1 ? "" : target.slice(q) };
  }
  let url: URL;
  try {
    url = new URL(target, "http://tracker.invalid");
  } catch {
    throw new HttpError(400, "Bad Request", "the request target is not a valid URL");
  }
  return { path: url.pathname, search: url.search };
}

/**
 * The answer to a request refused on the way, by the HTTP edge (an HttpError: 400, 404, 413, …) or by
 * the store (NoReportIdLeft: 507; DatabaseUnavailable: 503 with Retry-After); undefined for anything
 * else, which is the server's own failure.
 */
function answerFromRefusal(err: unknown): Answer | undefined {
  if (err instanceof HttpError) return answerFromError(err);
  if (err instanceof NoReportIdLeft) return problem(507, "Insufficient Storage", err.message);
  if (err instanceof DatabaseUnavailable) {
    const ms = Math.max(1, Math.ceil(err.retryAfterMs));
    return problem(503, "Service Unavailable", `${err.message}; send the request again`, {
      "retry-after": String(Math.ceil(ms / 1000)),
      "retry-after-ms": String(ms),
    });
  }
  return undefined;
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

/**
 * An answer in a few words, for the trace: "(report 3)", "(2 reports)", "(the detail, a replay)". A
 * problem's detail is English unless its client asked for Chinese (inClientLanguage); the trace
 * tells it in the reader's language where the server said it so (Answer.said). A stored detail,
 * replayed, is shown when it is in the reader's language; otherwise the line before says what it means.
 */
function describe(answer: Answer): string {
  const body = answer.body as { id?: unknown; title?: unknown; detail?: unknown } | unknown[];
  const replayed = answer.headers?.["idempotent-replayed"] === "true";
  if (Array.isArray(body))
    return t("({n, plural, one {# report} other {# reports}})", { n: body.length });
  if (body && typeof body.id === "number")
    return replayed
      ? t("(report {id}, a replay)", { id: String(body.id) })
      : t("(report {id})", { id: String(body.id) });
  if (body && typeof body.detail === "string") {
    // A stored detail replayed is in the reader's language if it was stored in it (a Chinese client's).
    const inReadersLanguage =
      currentLang() === "en" || answer.headers?.["content-language"] === "zh-CN";
    const detail = answer.said ?? (inReadersLanguage ? body.detail : undefined);
    if (detail === undefined) return replayed ? t("(a replay)") : "";
    return replayed ? t("({detail}, a replay)", { detail }) : t("({detail})", { detail });
  }
  return "";
}
