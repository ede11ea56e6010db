/**
 * What the middleware servers of lesson 11 share besides the handler: how a server built here is
 * started and stopped on 127.0.0.1, what it is told (its SQLite file, its handler's plan, a way to
 * crash), and the Express error handler the two Express servers end with.
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import { listenOnLoopback } from "../core/listen.ts";
import type { HandlerPlan } from "./handler.ts";
import type { ReportsDb } from "./reports-db.ts";

/** The routes that file a report: the usual one, and a second for the different-path case. */
export const REPORT_ROUTE = "/reports";
export const OTHER_ROUTE = "/triage";

/** Changes a request's headers before the package sees them (exercise 11a plugs in here). */
export type HeaderRewrite = (
  req: IncomingMessage,
) => { status: number; detail: string } | undefined;

export interface ServerSetup {
  db: ReportsDb;
  plan: HandlerPlan;
  /** Kills the process (a server in a child process only). */
  crash?: () => void;
  /** Runs before the package on every POST: may rewrite headers, or refuse the request. */
  rewrite?: HeaderRewrite;
}

export interface Listening {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves `listener` on 127.0.0.1 (`port` 0: any free one). */
export async function serve(listener: RequestListener, port = 0): Promise<Listening> {
  const server: Server = createServer(listener);
  const { url, port: p } = await listenOnLoopback(server, port);
  return {
    url,
    port: p,
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}

/** Who asks: the request's Authorization header as sent, "" for none. */
export function callerOf(req: IncomingMessage): string {
  return req.headers.authorization ?? "";
}

/** A problem+json answer (RFC 9457), written with `res.end`. */
export function endWithProblem(res: ServerResponse, status: number, detail: string): void {
  res.statusCode = status;
  res.setHeader("content-type", "application/problem+json");
  res.end(JSON.stringify({ title: statusTitle(status), status, detail }));
}

function statusTitle(status: number): string {
  return (
    {
      400: "Bad Request",
      409: "Conflict",
      417: "Expectation Failed",
      422: "Unprocessable Content",
    }[status] ?? "Internal Server Error"
  );
}

/**
 * The Express servers' error handler (ours). It picks the status as Express's own default handler
 * does (finalhandler: `err.status`, else `err.statusCode`, else the response's status if it is an
 * error, else 500) and writes with `res.end`, as that handler does, without its log line. A handler
 * that answered with `res.json` instead would go through `res.send`, which both packages watch.
 */
export function expressErrorHandler(
  err: unknown,
  _req: IncomingMessage,
  res: ServerResponse,
  _next: (e?: unknown) => void,
): void {
  if (res.headersSent) {
    res.socket?.destroy();
    return;
  }
  const e = err as { status?: unknown; statusCode?: unknown; message?: unknown };
  const own = [e.status, e.statusCode].find(
    (s): s is number => typeof s === "number" && s >= 400 && s < 600,
  );
  const status = own ?? (res.statusCode >= 400 && res.statusCode < 600 ? res.statusCode : 500);
  endWithProblem(res, status, typeof e.message === "string" ? e.message : "the server failed");
}
