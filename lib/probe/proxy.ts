/**
 * The probe's fault proxy: a loopback port that passes each request on to one service and passes
 * the answer back, except for a request it was told to spoil. For that one it reads the service's
 * whole answer (the work is done), then closes the client's connection without a byte: a lost
 * response, seen from the client exactly as a dropped network path would show it. Told to hold
 * instead, it keeps the answer until the caller says what to do (the crash check restarts the
 * service meanwhile). Any service: it knows nothing of the tracker (lib/chaos/proxy.ts is the chaos
 * run's front door to a cluster of trackers, with request numbering; this one is a plain
 * forwarder).
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import { type Gate, gate } from "../core/gate.ts";
import { listenOnLoopback } from "../core/listen.ts";

/**
 * What the proxy did with a spoiled request: the status it threw away, or none if the service gave
 * none.
 */
export interface Spoiled {
  status: number | undefined;
}

/** A held answer: the service has answered; `drop()` closes the client's connection without it. */
export interface Held extends Spoiled {
  drop(): void;
}

export interface LossyProxy {
  readonly url: string;
  /** The same path and query as `target`, through the proxy. */
  via(target: string): string;
  /** The next request's answer is read, then lost; resolves with what was thrown away. */
  loseNext(): Promise<Spoiled>;
  /** The next request's answer is read and held; resolves once it is held. */
  holdNext(): Promise<Held>;
  close(): Promise<void>;
}

/** RFC 9110 §7.6.1: hop-by-hop fields, about one connection, never passed on. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
]);

type Plan = { kind: "lose"; done: Gate<Spoiled> } | { kind: "hold"; done: Gate<Held> };

/** Starts a proxy on 127.0.0.1 in front of `origin` (e.g. "http://127.0.0.1:3000"). */
export async function startLossyProxy(origin: string): Promise<LossyProxy> {
  const upstream = new URL(origin);
  const plans: Plan[] = [];
  const server = createServer((req, res) => {
    const plan = plans.shift();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => forward(req, res, Buffer.concat(chunks), plan));
  });

  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    plan: Plan | undefined,
  ): void {
    const headers: Record<string, string | string[]> = {};
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      if (HOP_BY_HOP.has(name.toLowerCase()) || name.toLowerCase() === "host") continue;
      const had = headers[name];
      headers[name] =
        had === undefined ? req.rawHeaders[i + 1]! : [...[had].flat(), req.rawHeaders[i + 1]!];
    }
    headers.host = upstream.host;
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers,
        agent: false,
      },
      (answer) => {
        const parts: Buffer[] = [];
        answer.on("data", (c: Buffer) => parts.push(c));
        answer.on("error", () => res.socket?.destroy());
        answer.on("end", () => settle(res, plan, answer, Buffer.concat(parts)));
      },
    );
    // The service died or refused: the client's connection closes too, as it would without the
    // proxy.
    out.on("error", () => {
      res.socket?.destroy();
      if (plan?.kind === "lose") plan.done.open({ status: undefined });
      if (plan?.kind === "hold") plan.done.open({ status: undefined, drop: () => {} });
    });
    out.end(body);
  }

  function settle(
    res: ServerResponse,
    plan: Plan | undefined,
    answer: IncomingMessage,
    body: Buffer,
  ): void {
    if (plan?.kind === "lose") {
      res.socket?.destroy();
      plan.done.open({ status: answer.statusCode });
      return;
    }
    if (plan?.kind === "hold") {
      plan.done.open({ status: answer.statusCode, drop: () => res.socket?.destroy() });
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers["content-length"] = String(body.length);
    res.writeHead(answer.statusCode ?? 502, headers);
    res.end(body);
  }

  const { url } = await listenOnLoopback(server);
  return {
    url,
    via(target) {
      const t = new URL(target);
      return `${url}${t.pathname}${t.search}`;
    },
    loseNext() {
      const done = gate<Spoiled>();
      plans.push({ kind: "lose", done });
      return done.passed;
    },
    holdNext() {
      const done = gate<Held>();
      plans.push({ kind: "hold", done });
      return done.passed;
    },
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}
