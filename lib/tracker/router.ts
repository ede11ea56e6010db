/**
 * The tracker's routes: which request goes where, and what each route does, down to its answer.
 * POST /reports hands the parsed report to the variant (variants/), with the faults that act inside
 * the handler (a held work, an injected failure, a crash point) and the side effects; GET and PUT go
 * to the database. The life of the request around this (numbering, the faults on the wire,
 * answering) is request.ts's.
 *
 *   POST /reports          file a report (what the variant decides)          → 201 + Location
 *   GET  /reports          a page of reports; `?title=` by normalised title  → 200
 *   GET  /reports/<id>     one report                                        → 200 or 404
 *   PUT  /reports/<id>     create or replace the report with this id         → 201 or 200
 */
import type { IncomingMessage } from "node:http";
import { currentLang, type Lang, t, tIn } from "../core/i18n.ts";
import { callerOf } from "../protocol/caller.ts";
import { type Answer, HttpError, hostFieldProblem, readBody } from "../protocol/http.ts";
import { keyHeaderValues, parseIdempotencyKey } from "../protocol/idempotency-key.ts";
import type { TrackerDatabase } from "./database.ts";
import type { FaultName, Faults, Stage, Wake } from "./faults.ts";
import type { TrackerEvent } from "./narrate.ts";
import { parseReport } from "./report-body.ts";
import type { SideEffectCall, SideEffects } from "./side-effects.ts";
import { MAX_REPORT_ID, type Report } from "./store.ts";
import type { CrashPoint, CreateContext, Variant } from "./variant.ts";

/** The most reports GET /reports returns at once (and its default). */
export const MAX_PAGE = 100;

/** What the routes work with: the tracker's database and variant, its faults, clock and settings. */
export interface RouterOptions {
  db: TrackerDatabase;
  variant: Variant;
  faults: Faults;
  /** Records that a request reached a stage (a no-op when nobody waits on the stages). */
  mark: (requestNo: number, stage: Stage) => void;
  emit: (event: TrackerEvent) => void;
  /**
   * Tells the faults that a request claimed a key (`caller` and key, joined), taking it over if
   * `takenOver` (for pause-past-lease); absent: nobody asks.
   */
  claimed?: (requestNo: number, key: string, takenOver: boolean) => void;
  /** What a crash fault does at its point. */
  crash: (point: CrashPoint, requestNo: number) => void;
  sideEffects: SideEffects | undefined;
  now: () => number;
  leaseMs: number;
  ttlMs: number;
  /** Hears each request that held its key longer than the lease (see LeaseOverrun). */
  onLeaseOverrun?: (overrun: LeaseOverrun) => void;
}

/**
 * A request that held its key for longer than the lease, from its claim to the end of its handler.
 * Meanwhile another request with the key may have taken it over, and that one, if its work takes as
 * long, loses it the same way: a key whose work always outlasts the lease is taken over again and
 * again and never completes (safe with `fenced`, but every client retrying it gets 409 until it gives
 * up). The handler's time is not known before it runs (its work, a slow downstream, a loaded machine),
 * so no configuration check can refuse this; the service says it when it happens: to the operator
 * (`onLeaseOverrun`: the standalone tracker prints it), and in every 409 for a minute after.
 */
export interface LeaseOverrun {
  requestNo: number;
  /** From the claim to the end of the handler, ms on the service's clock. */
  heldMs: number;
  leaseMs: number;
}

/** How long after a lease overrun the 409s mention it, ms on the service's clock. */
const OVERRUN_NOTE_MS = 60_000;

/** What those 409s add to their detail, in `lang`. */
function overrunNote(
  lang: Lang,
  values: { n: number; request: string; held: string; lease: string },
): string {
  return tIn(
    lang,
    "Note: on this tracker {n, plural, one {a request has} other {# requests have}} held a key longer than the lease (the last, request {request}, {held} ms on a lease of {lease} ms); a key whose work takes longer than the lease is taken over again and again and may never complete: the lease must be longer than the slowest handler",
    values,
  );
}

/** One request, as the router gets it: its number and fault, and its method and target, split. */
export interface RoutedRequest {
  requestNo: number;
  fault: FaultName;
  method: string;
  /** "/reports/7" */
  path: string;
  /** The query with its "?", or "". */
  search: string;
  req: IncomingMessage;
}

/** The router: a request's answer, or a refusal thrown (an HttpError, or the store's NoReportIdLeft). */
export function router(options: RouterOptions): (request: RoutedRequest) => Promise<Answer> {
  const { db, variant, faults, mark, emit, crash, sideEffects } = options;
  /** The overruns of the lease so far, and the last one, with when it ended. */
  let overruns = 0;
  let lastOverrun: (LeaseOverrun & { at: number }) | undefined;

  /** POST /reports goes straight to its handler (its answer is the handler's promise); the rest below. */
  function route(request: RoutedRequest): Promise<Answer> {
    return request.method === "POST" &&
      request.path === "/reports" &&
      hostFieldProblem(request.req) === undefined
      ? postReport(request)
      : routeOther(request);
  }

  async function routeOther({
    requestNo,
    fault,
    method,
    path,
    search,
    req,
  }: RoutedRequest): Promise<Answer> {
    // RFC 9112 §3.2: no Host on HTTP/1.1, two Host lines or one that is not a host: 400.
    const badHost = hostFieldProblem(req);
    if (badHost !== undefined)
      throw new HttpError(400, "Bad Request", badHost, { connection: "close" });
    if (path === "/reports") {
      if (method === "GET" || method === "HEAD") return listPage(new URLSearchParams(search));
      throw new HttpError(405, "Method Not Allowed", `${method} is not allowed on /reports`, {
        allow: "GET, HEAD, POST",
      });
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
        emit({
          actor: "database",
          requestNo,
          what: result.created ? "insert" : "replace",
          report: id,
          text: result.created
            ? t("INSERT report {id} · COMMIT", { id: String(id) })
            : t("REPLACE report {id} · COMMIT", { id: String(id) }),
        });
        mark(requestNo, "committed");
        return {
          status: result.created ? 201 : 200,
          body: result.report,
          headers: { location: `/reports/${id}` },
        };
      }
      throw new HttpError(405, "Method Not Allowed", `${method} is not allowed on /reports/${id}`, {
        allow: "GET, HEAD, PUT",
      });
    }
    throw new HttpError(404, "Not Found", `no route for ${path} (try /reports)`);
  }

  /** POST /reports: the report parsed, then what the variant does with it, with the side effects around it. */
  async function postReport({
    requestNo,
    fault,
    method,
    path,
    req,
  }: RoutedRequest): Promise<Answer> {
    const rawBody = await readBody(req);
    const report = parseReport(req.headers["content-type"], rawBody);
    /** When this request claimed its key, on the service's clock (keyed variants). */
    let claimedAt: number | undefined;
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
      leaseMs: options.leaseMs,
      ttlMs: options.ttlMs,
      now: options.now,
      work: async () => {
        if (fault === "slow" || fault === "pause-past-lease") {
          emit({
            actor: "server",
            requestNo,
            what: "stall",
            text: t("handler started, then stalls (fault: {fault})", { fault }),
            mark: "warn",
          });
          const wake = await faults.hold(requestNo);
          emit({
            actor: "server",
            requestNo,
            what: wake === "fail" ? "failed" : "wake",
            text: wakeText(wake),
            ...(wake === "released" ? {} : { mark: "warn" as const }),
          });
          if (wake === "fail")
            throw saying(
              "the work failed after the pause (injected)",
              t("the work failed after the pause (injected)"),
            );
        }
        if (fault === "internal-error") {
          emit({
            actor: "server",
            requestNo,
            what: "failed",
            text: t("the handler's work fails (fault: internal-error)"),
            mark: "bad",
          });
          throw saying(
            "the work failed (injected fault: internal-error)",
            t("the work failed (injected fault: internal-error)"),
          );
        }
        if (call && sideEffects?.beforeCommit) await sideEffects.beforeCommit(call);
        ctx.crashPoint("before-commit");
      },
      claimed: (key, takenOver) => {
        claimedAt = options.now();
        options.claimed?.(requestNo, `${ctx.caller}\n${key}`, takenOver);
      },
      crashPoint: (point) => {
        if (fault === `crash-${point}`) {
          emit({
            actor: "server",
            requestNo,
            what: "crash",
            text: t('process killed (SIGKILL) at "{point}"', { point }),
            mark: "bad",
          });
          crash(point, requestNo);
        }
      },
      database: (said, committed = false) => {
        emit({ actor: "database", requestNo, ...said });
        if (committed) mark(requestNo, "committed");
      },
      server: (said) => emit({ actor: "server", requestNo, ...said }),
    };
    let answer: Answer;
    try {
      answer = await variant.create(ctx);
    } catch (err) {
      throw withOverrunNote(err);
    } finally {
      if (claimedAt !== undefined) heldTheKey(requestNo, options.now() - claimedAt);
    }
    if (
      call &&
      sideEffects?.afterCommit &&
      answer.status === 201 &&
      answer.headers?.["idempotent-replayed"] !== "true"
    ) {
      await sideEffects.afterCommit(answer.body as Report, call);
    }
    return answer;
  }

  /** Notes a request that held its key past the lease (LeaseOverrun). */
  function heldTheKey(requestNo: number, heldMs: number): void {
    if (heldMs <= options.leaseMs) return;
    overruns++;
    lastOverrun = { requestNo, heldMs, leaseMs: options.leaseMs, at: options.now() };
    options.onLeaseOverrun?.({ requestNo, heldMs, leaseMs: options.leaseMs });
  }

  /** A 409 with, for a minute after a lease overrun, a sentence saying so (LeaseOverrun). */
  function withOverrunNote(err: unknown): unknown {
    if (
      !(err instanceof HttpError) ||
      err.status !== 409 ||
      lastOverrun === undefined ||
      options.now() - lastOverrun.at > OVERRUN_NOTE_MS
    )
      return err;
    const { requestNo, heldMs, leaseMs } = lastOverrun;
    const values = {
      n: overruns,
      request: String(requestNo),
      held: String(Math.round(heldMs)),
      lease: String(leaseMs),
    };
    const noted = new HttpError(
      err.status,
      err.title,
      `${err.message}. ${overrunNote("en", values)}`,
      err.headers,
    );
    // The trace's sentence, and a Chinese client's detail (inClientLanguage), in the reader's language.
    if (err.said !== undefined)
      noted.said = t("{said}. {note}", {
        said: err.said,
        note: overrunNote(currentLang(), values),
      });
    return noted;
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
    const next = new URLSearchParams({
      ...(title === undefined ? {} : { title }),
      limit: String(limit),
      after: String(rows[limit - 1]!.id),
    });
    return { status: 200, body: rows, headers: { link: `</reports?${next}>; rel="next"` } };
  }

  return route;
}

/** A whole-number query parameter from `min` to `max`, `fallback` when absent; otherwise 400. */
function wholeParam(
  query: URLSearchParams,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  const values = query.getAll(name);
  if (values.length === 0) return fallback;
  const n = values.length === 1 && /^[0-9]{1,16}$/.test(values[0]!) ? Number(values[0]) : NaN;
  if (!(n >= min && n <= max))
    throw new HttpError(
      400,
      "Bad Request",
      `?${name}= takes one whole number from ${min} to ${max}`,
    );
  return n;
}

/** A report id from a route: the same range on every route, 1 to MAX_REPORT_ID. */
function parseId(text: string): number {
  const id = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : NaN;
  if (!(id <= MAX_REPORT_ID))
    throw new HttpError(
      404,
      "Not Found",
      `"${text}" is not a report id (a whole number from 1 to ${MAX_REPORT_ID})`,
    );
  return id;
}

/** An error whose message goes into an answer (English, an API) and `said` into the trace. */
function saying(message: string, said: string): Error & { said: string } {
  return Object.assign(new Error(message), { said });
}

/** What the trace says when a held handler goes on. */
function wakeText(wake: Wake): string {
  switch (wake) {
    case "released":
      return t("handler wakes up and carries on");
    case "taken-over":
      return t("handler wakes up and carries on, unaware that its key was taken over meanwhile");
    case "fail":
      return t("handler wakes up, and its work fails");
  }
}

/** The request's Idempotency-Key for a side effect's use, or undefined when absent or malformed. */
function requestKeyIfAny(rawHeaders: string[]): string | undefined {
  const values = keyHeaderValues(rawHeaders);
  if (values.length === 0) return undefined;
  const parsed = parseIdempotencyKey(values);
  return parsed.ok ? parsed.key : undefined;
}
