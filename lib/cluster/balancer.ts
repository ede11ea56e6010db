/**
 * A small round-robin load balancer on 127.0.0.1: one port in front of several tracker instances,
 * each request passed on whole to the next instance in turn (1, 2, 3, 1, …) and its answer passed
 * back. It is the part of a real deployment that makes "the retry landed on another machine" the
 * normal case: nothing ties a client's second attempt to the instance that served its first.
 *
 * It holds no state about requests beyond the turn counter, and it does what a proxy does when
 * either side goes away: a client that gives up (its timeout) closes its connection, and the
 * balancer then closes the connection to the instance; an instance that answers nothing keeps the
 * client waiting until the client gives up. (The chaos run's proxy, lib/chaos/proxy.ts, does more:
 * it numbers requests per process and restarts dead ones; a lesson needs only the turn.)
 */
import {
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";
import { listenOnLoopback } from "../core/listen.ts";
import { targetPath } from "../protocol/http.ts";

export interface Balancer {
  readonly url: string;
  /** How many requests each instance was sent, by position (0 for instance 1). */
  readonly sent: readonly number[];
  close(): Promise<void>;
}

export interface BalancerOptions {
  /** The instances' base URLs, e.g. "http://127.0.0.1:40123", in the order of their turns. */
  upstreams: readonly string[];
  /** Hears which instance (1-based) each request goes to. */
  onRoute?: (route: { n: number; instance: number; method: string; path: string }) => void;
}

/** Starts the balancer on a free port of 127.0.0.1. */
export async function startBalancer(options: BalancerOptions): Promise<Balancer> {
  if (options.upstreams.length === 0) throw new Error("a balancer needs at least one upstream");
  const sent = options.upstreams.map(() => 0);
  let turn = 0;
  let n = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // The instance is always this balancer's: an absolute-form target gives its path alone, and a
    // target that is no URL goes nowhere.
    const target = targetPath(req.url);
    if (target === undefined) {
      res
        .writeHead(400, { "content-type": "text/plain", connection: "close" })
        .end("the request target is not a valid URL\n");
      return;
    }
    const index = turn;
    turn = (turn + 1) % options.upstreams.length;
    sent[index]! += 1;
    options.onRoute?.({
      n: ++n,
      instance: index + 1,
      method: req.method ?? "GET",
      path: req.url ?? "/",
    });
    const upstream = request(
      new URL(`${target.path}${target.search}`, options.upstreams[index]),
      { method: req.method, headers: req.headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    // The instance went away without an answer: say so once, if the client is still there.
    upstream.on("error", () => {
      if (!res.headersSent && !res.destroyed)
        res
          .writeHead(502, { "content-type": "text/plain" })
          .end("the instance closed the connection\n");
      else res.destroy();
    });
    // The client gave up (or is done): the instance's connection goes too.
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  const { url } = await listenOnLoopback(server);
  return {
    url,
    sent,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
