/**
 * The chaos run's front door: one port on 127.0.0.1 that passes every request on to one of the
 * fleet's tracker processes, in turn over the live ones (round robin), as a load balancer would,
 * and passes the answer back. A process that dies takes its connections with it: the proxy then
 * closes the client's connection too, so the client sees what it would see without the proxy.
 *
 * Why a proxy: it knows the number each process gives each request that needs one. A tracker
 * numbers requests as they arrive (its faults are set by that number), and concurrent requests could
 * arrive in any order; so before a request whose number matters (one the run strikes with a fault),
 * the proxy stops sending to that process, waits until every request sent there so far has arrived
 * (the child tells each arrival, the "arrived" stage, over its event pipe), and sends it alone. Its
 * number is then certain (one more than the requests sent before it), and its fault is set on exactly
 * that request over IPC; the process gets its next request once it has said that this one arrived.
 * Every other request goes out at once, without waiting its turn: its number is not needed, only
 * counted. The waits last only until arrival, not until the answer: requests still run side by side.
 * (If a request is lost on its way without the process dying, which loopback does not do, the count
 * would never be reached: a watchdog then kills that process, so that its numbering starts again at 1.)
 *
 * The clients open a connection per attempt, as they would after a timeout; the proxy keeps its own
 * connections to each process open between requests (keep-alive), as a load balancer does, which
 * spares a connect and a close per request on both sides. So it removes the hop-by-hop headers
 * (RFC 9110 §7.6.1: Connection and the fields it names, Keep-Alive) on the way in and out: the
 * client's `Connection: close` is about its own connection to the proxy, not the proxy's to the
 * process. A kept connection idle for a second is closed by the proxy, well before the process
 * would close it (5 s), so that no request is sent on a connection the process is closing.
 */
import {
  Agent,
  type ClientRequest,
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Socket } from "node:net";
import { pipeline } from "node:stream/promises";
import { listenOnLoopback } from "../core/listen.ts";
import type { ChildTracker } from "../tracker/child.ts";
import type { Backend, Fleet } from "./fleet.ts";

/** A request as the proxy read it. */
export interface Exchange {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

/** Where a numbered request went: the backend, the process serving it then, and that process's number for it. */
export interface Target {
  backend: Backend;
  tracker: ChildTracker;
  requestNo: number;
}

/** What the run does at each step of an exchange; `S` is what it keeps about one request. */
export interface ProxyHooks<S> {
  /** The request has been read. */
  accept(exchange: Exchange): S;
  /**
   * Whether the run needs to know the request's number in the process that serves it (to set a fault
   * on it). Only such a request waits for its turn and gets the hooks below with a target; default:
   * every request.
   */
  numbered?(state: S): boolean;
  /** A numbered request is about to go to `target`, where it will get `target.requestNo`: set its fault here. */
  beforeSend?(state: S, target: Target): Promise<void>;
  /** The process has received a numbered request. */
  arrived?(state: S, target: Target): void;
  /**
   * It is over: `status` is the answer passed back whole to the client, or undefined when none was
   * (the client gave up, the process died, the answer was lost). `target` is where a numbered request
   * went; undefined for one that was not numbered or never went anywhere.
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
  /** How many requests were sent to this process: the next one to arrive after them all gets this number plus one. */
  sent: number;
  /** A numbered request is on its way: nothing else is sent until it has arrived (or its process died). */
  held: boolean;
  /** Requests waiting for the lane to be free again. */
  waiting: Array<() => void>;
  /** Requests not numbered that failed on their way while the process lived: one may never have arrived. */
  failures: number;
  /** Told of each such failure while a numbered request waits for every request before it to arrive. */
  onFailure: (() => void) | undefined;
  /** The proxy's kept connections to this process, gone with it. */
  agent: Agent;
}

/** How long a kept connection to a process may stay idle before the proxy closes it. */
const IDLE_MS = 1_000;

/** Keep-alive connections that the proxy closes after IDLE_MS idle (an active one is left alone). */
class ShortIdleAgent extends Agent {
  // node:http returns whether the socket is kept (docs: agent.keepSocketAlive); @types/node says void.
  override keepSocketAlive(socket: Socket): boolean {
    const kept = super.keepSocketAlive(socket) as unknown as boolean;
    if (kept) socket.setTimeout(IDLE_MS); // a free socket that times out is destroyed by the agent
    return kept;
  }
}

/** RFC 9110 §7.6.1: the headers that describe one connection, not the message. */
export function withoutHopByHop(raw: readonly string[]): string[] {
  const named = new Set([
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "upgrade",
    "trailer",
  ]);
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection")
      for (const t of raw[i + 1]!.split(",")) named.add(t.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2)
    if (!named.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  return out;
}

export async function startProxy<S>(fleet: Fleet, hooks: ProxyHooks<S>): Promise<Proxy> {
  const lanes = new WeakMap<ChildTracker, Lane>();
  let turn = 0;
  let watchdogKills = 0;

  function laneOf(tracker: ChildTracker): Lane {
    let lane = lanes.get(tracker);
    if (!lane) {
      const agent = new ShortIdleAgent({ keepAlive: true });
      lane = { sent: 0, held: false, waiting: [], failures: 0, onFailure: undefined, agent };
      lanes.set(tracker, lane);
      void tracker.exited.then(() => agent.destroy());
    }
    return lane;
  }

  /** The next live backend in turn, waiting for one if none is. */
  async function nextLive(): Promise<{ backend: Backend; tracker: ChildTracker }> {
    for (;;) {
      await fleet.anyLive();
      for (let i = 0; i < fleet.backends.length; i++) {
        const backend = fleet.backends[turn++ % fleet.backends.length]!;
        const tracker = backend.current;
        if (tracker && fleet.isLive(tracker)) return { backend, tracker };
      }
    }
  }

  /**
   * Resolves when the lane is let go. The caller looks again (`while (lane.held) await …`) and acts
   * in the same turn: between a look and an act, no other request may take the lane.
   */
  function letGoOf(lane: Lane): Promise<void> {
    return new Promise<void>((resolve) => lane.waiting.push(resolve));
  }

  function letGo(lane: Lane): void {
    lane.held = false;
    const waiting = lane.waiting;
    lane.waiting = [];
    for (const w of waiting) w();
  }

  /** Sends the request upstream over the lane's kept connections; the answer-to-be never rejects. */
  function send(
    tracker: ChildTracker,
    lane: Lane,
    exchange: Exchange,
  ): { upstream: ClientRequest; answer: Promise<IncomingMessage | Error> } {
    lane.sent += 1;
    const upstream = request({
      host: "127.0.0.1",
      port: tracker.port,
      path: exchange.url,
      method: exchange.method,
      headers: withoutHopByHop(exchange.rawHeaders),
      agent: lane.agent,
    });
    const answer = new Promise<IncomingMessage | Error>((resolve) => {
      upstream.once("response", resolve);
      upstream.once("error", resolve);
    });
    upstream.end(exchange.body);
    return { upstream, answer };
  }

  /**
   * Resolves true once every request sent to this process so far has arrived there, false if it died
   * first. A request not numbered that failed on its way may never arrive: once one has, the process
   * is killed if the count is still short WATCHDOG_MS later.
   */
  async function allArrived(backend: Backend, tracker: ChildTracker, lane: Lane): Promise<boolean> {
    if (lane.sent === 0 || tracker.hasReached(lane.sent, "arrived")) return true;
    let timer: NodeJS.Timeout | undefined;
    const watch = (): void => {
      timer ??= setTimeout(() => {
        if (backend.current !== tracker) return;
        watchdogKills += 1;
        void fleet.kill(backend);
      }, WATCHDOG_MS);
    };
    if (lane.failures > 0) watch();
    lane.onFailure = watch;
    try {
      return await tracker.reached(lane.sent, "arrived").then(
        () => true,
        () => false,
      );
    } finally {
      lane.onFailure = undefined;
      clearTimeout(timer);
      // Every request sent has arrived (or the process is gone): no failure before now lost one.
      lane.failures = 0;
    }
  }

  /**
   * Sends the request to a live process: a numbered one alone, resolving once it has arrived there,
   * with where it went; any other at once. Resolves with the upstream request and its answer-to-be,
   * or undefined if every process a numbered request was sent to died before it arrived.
   */
  async function forward(
    state: S,
    exchange: Exchange,
  ): Promise<
    | {
        target: Target | undefined;
        upstream: ClientRequest;
        answer: Promise<IncomingMessage | Error>;
      }
    | undefined
  > {
    const numbered = hooks.numbered?.(state) ?? true;
    for (;;) {
      const { backend, tracker } = await nextLive();
      const lane = laneOf(tracker);
      while (lane.held) await letGoOf(lane);
      // From here to sending (or holding the lane), no await: the lane is free in this very turn.
      if (!fleet.isLive(tracker)) continue; // it died while this request waited its turn
      if (!numbered) {
        const sent = send(tracker, lane, exchange);
        void sent.answer.then((a) => {
          if (a instanceof Error && fleet.isLive(tracker)) {
            lane.failures += 1;
            lane.onFailure?.();
          }
        });
        return { target: undefined, ...sent };
      }
      lane.held = true;
      try {
        // The lane is held: the next request to arrive after those already sent is this one.
        const target: Target = { backend, tracker, requestNo: lane.sent + 1 };
        const [before] = await Promise.all([
          allArrived(backend, tracker, lane),
          hooks.beforeSend?.(state, target),
        ]);
        if (!before || !fleet.isLive(tracker)) continue; // it died: this request never left
        const { upstream, answer } = send(tracker, lane, exchange);
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
        letGo(lane);
      }
    }
  }

  /** Restarts the process if the request failed on its way and never arrives. Returns a cancel. */
  function watchdog(
    backend: Backend,
    target: Target,
    answer: Promise<IncomingMessage | Error>,
  ): () => void {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    void answer.then((a) => {
      if (stopped || !(a instanceof Error)) return;
      timer = setTimeout(() => {
        if (backend.current !== target.tracker) return;
        watchdogKills += 1;
        void fleet.kill(backend);
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
    const exchange: Exchange = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      rawHeaders: req.rawHeaders,
      body: Buffer.concat(chunks),
    };
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
    // A client that gives up cuts a numbered request at once (a held handler then hears it leave);
    // any other is cut once its answer comes, when it has surely arrived, so that every request
    // sent is counted by the process before the proxy forgets it.
    if (target) {
      const cut = (): void => {
        if (!res.writableFinished) upstream.destroy();
      };
      if (res.destroyed) cut();
      else res.once("close", cut);
    }
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
