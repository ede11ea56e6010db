/**
 * The chaos run's front door: one port on 127.0.0.1 that passes every request on to one of the
 * cluster's tracker processes, in turn over the live ones (round robin), as a load balancer would,
 * and passes the answer back. A process that dies takes its connections with it: the proxy then
 * closes the client's connection too, so the client sees what it would see without the proxy.
 *
 * Why a proxy: it knows the number each process gives each request. A tracker numbers requests as
 * they arrive (its faults are set by that number), and concurrent requests could arrive in any order;
 * so the proxy sends a process one request at a time and the next only once the process has said
 * that the last one arrived (the child's "arrived" stage, over its event pipe). The number is then
 * certain, and a fault can be set on exactly that request over IPC before it is sent.
 * The wait is per process and lasts only until arrival, not until the answer: requests still run
 * side by side. (If a request is lost on its way without the process dying, which loopback does not
 * do, a watchdog kills that process so that its numbering starts again at 1.)
 *
 * The clients open a connection per attempt, as they would after a timeout; the proxy keeps its own
 * connections to each process open between requests (keep-alive), as a load balancer does, which
 * spares a connect and a close per request on both sides. So it removes the hop-by-hop headers
 * (RFC 9110 §7.6.1: Connection and the fields it names, Keep-Alive) on the way in and out: the
 * client's `Connection: close` is about its own connection to the proxy, not the proxy's to the
 * process. A kept connection idle for a second is closed by the proxy, well before the process
 * would close it (5 s), so that no request is sent on a connection the process is closing.
 */
import { Agent, createServer, request, type ClientRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { pipeline } from "node:stream/promises";
import type { ChildTracker } from "../tracker/child.ts";
import type { Backend, Cluster } from "./cluster.ts";
import { listenOnLoopback } from "../listen.ts";

/** A request as the proxy read it. */
export interface Exchange {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

/** Where a request went: the backend, the process serving it then, and that process's number for it. */
export interface Target {
  backend: Backend;
  tracker: ChildTracker;
  requestNo: number;
}

/** What the run does at each step of an exchange; `S` is what it keeps about one request. */
export interface ProxyHooks<S> {
  /** The request has been read. */
  accept(exchange: Exchange): S;
  /** It is about to go to `target`, where it will get `target.requestNo`: set its fault here. */
  beforeSend?(state: S, target: Target): Promise<void>;
  /** The process has received it. */
  arrived?(state: S, target: Target): void;
  /**
   * It is over: `status` is the answer passed back whole to the client, or undefined when none was
   * (the client gave up, the process died, the answer was lost).
   */
  ended?(state: S, target: Target | undefined, status: number | undefined): void;
}

export interface Proxy {
  readonly url: string;
  /** Processes killed because a request vanished on its way to them (expected: 0). */
  readonly watchdogKills: number;
  close(): Promise<void>;
}

/** How long a request that failed on its way may take to be reported arrived before its process is restarted. */
const WATCHDOG_MS = 5_000;

interface Lane {
  /** The number the last request sent to this process got. */
  last: number;
  /** Settles when the last request sent has arrived (or its process died). */
  tail: Promise<void>;
  /** The proxy's kept connections to this process, gone with it. */
  agent: Agent;
}

/** How long a kept connection to a process may stay idle before the proxy closes it. */
const IDLE_MS = 1_000;

/** Keep-alive connections that the proxy closes after IDLE_MS idle (an active one is left alone). */
class ShortIdleAgent extends Agent {
  // node:http returns whether the socket is kept (docs: agent.keepSocketAlive); @types/node says void.
  override keepSocketAlive(socket: Socket): void {
    const kept = super.keepSocketAlive(socket) as unknown as boolean;
    if (kept) socket.setTimeout(IDLE_MS); // a free socket that times out is destroyed by the agent
    return kept as unknown as void;
  }
}

/** RFC 9110 §7.6.1: the headers that describe one connection, not the message. */
export function withoutHopByHop(raw: readonly string[]): string[] {
  const named = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "upgrade", "trailer"]);
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection") for (const t of raw[i + 1]!.split(",")) named.add(t.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!named.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  return out;
}

export async function startProxy<S>(cluster: Cluster, hooks: ProxyHooks<S>): Promise<Proxy> {
  const lanes = new WeakMap<ChildTracker, Lane>();
  let turn = 0;
  let watchdogKills = 0;

  function laneOf(tracker: ChildTracker): Lane {
    let lane = lanes.get(tracker);
    if (!lane) {
      const agent = new ShortIdleAgent({ keepAlive: true });
      lanes.set(tracker, (lane = { last: 0, tail: Promise.resolve(), agent }));
      void tracker.exited.then(() => agent.destroy());
    }
    return lane;
  }

  /** The next live backend in turn, waiting for one if none is. */
  async function nextLive(): Promise<{ backend: Backend; tracker: ChildTracker }> {
    for (;;) {
      await cluster.anyLive();
      for (let i = 0; i < cluster.backends.length; i++) {
        const backend = cluster.backends[turn++ % cluster.backends.length]!;
        const tracker = backend.current;
        if (tracker && cluster.isLive(tracker)) return { backend, tracker };
      }
    }
  }

  /**
   * Sends the request to a live process and resolves once it has arrived there, with where it went,
   * the upstream request and its answer-to-be; undefined if every process it was sent to died first.
   */
  async function forward(state: S, exchange: Exchange): Promise<{ target: Target; upstream: ClientRequest; answer: Promise<IncomingMessage | Error> } | undefined> {
    for (;;) {
      const { backend, tracker } = await nextLive();
      const lane = laneOf(tracker);
      const before = lane.tail;
      let done!: () => void;
      lane.tail = new Promise<void>((resolve) => (done = resolve));
      try {
        await before;
        if (!cluster.isLive(tracker)) continue; // it died while this request waited its turn
        const target: Target = { backend, tracker, requestNo: ++lane.last };
        await hooks.beforeSend?.(state, target);
        const upstream = request({ host: "127.0.0.1", port: tracker.port, path: exchange.url, method: exchange.method, headers: withoutHopByHop(exchange.rawHeaders), agent: lane.agent });
        const answer = new Promise<IncomingMessage | Error>((resolve) => {
          upstream.once("response", resolve);
          upstream.once("error", resolve);
        });
        upstream.end(exchange.body);
        const stop = watchdog(backend, target, answer);
        const arrived = await tracker.reached(target.requestNo, "arrived").then(
          () => true,
          () => false,
        );
        stop();
        if (!arrived) {
          upstream.destroy();
          return undefined; // the process died with it; the client sees its connection close
        }
        hooks.arrived?.(state, target);
        return { target, upstream, answer };
      } finally {
        done();
      }
    }
  }

  /** Restarts the process if the request failed on its way and never arrives. Returns a cancel. */
  function watchdog(backend: Backend, target: Target, answer: Promise<IncomingMessage | Error>): () => void {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    void answer.then((a) => {
      if (stopped || !(a instanceof Error)) return;
      timer = setTimeout(() => {
        if (backend.current !== target.tracker) return;
        watchdogKills += 1;
        void cluster.kill(backend);
      }, WATCHDOG_MS);
    });
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    try {
      for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
    } catch {
      return; // the client left while sending
    }
    const exchange: Exchange = { method: req.method ?? "GET", url: req.url ?? "/", rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) };
    const state = hooks.accept(exchange);
    // A client that gives up before its request went out does not stop it: it goes out late, as it
    // would from a real client whose request was already on the wire.
    const sent = await forward(state, exchange);
    if (!sent) {
      res.destroy();
      hooks.ended?.(state, undefined, undefined);
      return;
    }
    const { target, upstream, answer } = sent;
    const cut = (): void => {
      if (!res.writableFinished) upstream.destroy();
    };
    if (res.destroyed) cut();
    else res.once("close", cut);
    const upstreamRes = await answer;
    if (upstreamRes instanceof Error || res.destroyed) {
      res.destroy();
      if (!(upstreamRes instanceof Error)) upstreamRes.destroy();
      hooks.ended?.(state, target, undefined);
      return;
    }
    const status = upstreamRes.statusCode ?? 0;
    res.writeHead(status, withoutHopByHop(upstreamRes.rawHeaders));
    try {
      await pipeline(upstreamRes, res);
    } catch {
      res.destroy();
    }
    hooks.ended?.(state, target, res.writableFinished ? status : undefined);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  const { port } = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    get watchdogKills() {
      return watchdogKills;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
