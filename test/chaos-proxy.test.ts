// The chaos proxy's connections to a tracker process: kept open between requests (keep-alive), one
// connect for many requests, and the hop-by-hop headers (RFC 9110 §7.6.1) left at each hop: the
// client's `Connection: close` does not reach the process, the process's `Keep-Alive` does not reach
// the client. A local server stands in for the process, numbering requests as the tracker does.
// Then its lanes: a request that needs no number goes out without waiting for anyone's arrival, and a
// numbered one still gets exactly the number the process gives it, however many wait beside it.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { test } from "node:test";
import type { Backend, Fleet } from "../lib/chaos/fleet.ts";
import { startProxy, withoutHopByHop } from "../lib/chaos/proxy.ts";
import { httpCall } from "../lib/client/client.ts";
import { Signals } from "../lib/core/gate.ts";
import { listenOnLoopback } from "../lib/core/listen.ts";
import type { ChildTracker } from "../lib/tracker/child.ts";

test("hop-by-hop headers are left out, with those Connection names; the others pass in order", () => {
  const raw = [
    "Host",
    "x",
    "Connection",
    "close, X-Hop",
    "X-Hop",
    "1",
    "Keep-Alive",
    "timeout=5",
    "Idempotency-Key",
    '"k"',
    "Content-Length",
    "2",
  ];
  assert.deepEqual(withoutHopByHop(raw), [
    "Host",
    "x",
    "Idempotency-Key",
    '"k"',
    "Content-Length",
    "2",
  ]);
});

test("the proxy sends a process many requests over one kept connection, without the client's Connection: close", async () => {
  const arrived = new Signals();
  const seen: IncomingMessage[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    seen.push(req);
    arrived.fire(`${seen.length}:arrived`);
    res
      .writeHead(201, { "content-type": "application/json" })
      .end(JSON.stringify({ id: seen.length }));
  });
  server.on("connection", () => (connections += 1));
  const { fleet, exit } = await standIn(server, arrived);
  const proxy = await startProxy(fleet, { accept: () => undefined });
  try {
    for (let i = 1; i <= 3; i++) {
      // httpCall opens a connection per attempt and says Connection: close, as the run's clients do.
      const r = await httpCall({
        method: "POST",
        url: `${proxy.url}/reports`,
        body: { title: `t${i}` },
        timeoutMs: 5_000,
      });
      assert.equal(r.kind === "response" ? r.status : r.kind, 201);
      assert.equal(
        r.kind === "response" ? r.headers["keep-alive"] : "?",
        undefined,
        "the process's Keep-Alive stays between it and the proxy",
      );
    }
    assert.equal(seen.length, 3);
    assert.equal(connections, 1, "three requests, one connection from the proxy");
    assert.ok(
      seen.every((req) => req.headers.connection !== "close"),
      JSON.stringify(seen.map((r) => r.headers.connection)),
    );
  } finally {
    await proxy.close();
    exit();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/**
 * A one-process fleet around `server`: only what the proxy uses of a tracker process (its URL, its
 * exit, its arrivals as `arrived` fires them) and of a fleet. `exit()` ends the stand-in process.
 */
async function standIn(
  server: Server,
  arrived: Signals,
): Promise<{ fleet: Fleet; exit: () => void }> {
  const { port, url } = await listenOnLoopback(server);
  let exit!: () => void;
  const exited = new Promise<{ code: number; signal: null }>(
    (resolve) => (exit = () => resolve({ code: 0, signal: null })),
  );
  const tracker = {
    url,
    port,
    exited,
    reached: (n: number, stage: string) => arrived.when(`${n}:${stage}`),
    hasReached: (n: number, stage: string) => arrived.fired(`${n}:${stage}`),
  } as unknown as ChildTracker;
  const backend: Backend = { index: 0, port, current: tracker, generation: 1 };
  const fleet = {
    backends: [backend],
    isLive: () => true,
    anyLive: async () => {},
    kill: async () => {},
  } as unknown as Fleet;
  return { fleet, exit };
}

/**
 * A stand-in tracker process: numbers requests as they arrive and answers each at once with its number
 * and the request's tag; it tells the proxy of an arrival only when the test says (`tell`), as a
 * child process tells it over its pipe, later than the request itself.
 */
async function numberingProcess() {
  const arrived = new Signals();
  const received = new Signals();
  let count = 0;
  const server = createServer((req, res) => {
    const n = ++count;
    received.fire(String(n));
    if (each) tell(n);
    req.resume();
    res
      .writeHead(201, { "content-type": "application/json" })
      .end(JSON.stringify({ n, tag: req.headers["x-tag"] }));
  });
  const { fleet, exit } = await standIn(server, arrived);
  // Arrivals are told in order, as the child tells them: request n has arrived once n have.
  let told = 0;
  let each = false;
  function tell(upTo: number): void {
    while (told < upTo) arrived.fire(`${++told}:arrived`);
  }
  return {
    fleet,
    tell,
    /** Tells every arrival so far, and each one from now on as it happens. */
    tellEach() {
      each = true;
      tell(count);
    },
    /** How many requests the process has numbered. */
    count: () => count,
    /** Resolves once the process has numbered `n` requests. */
    received: (n: number) => received.when(String(n)),
    async close() {
      exit();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A request through the proxy, tagged; "n" in its answer is the number the process gave it. */
async function tagged(url: string, tag: string): Promise<{ n: number; tag: string }> {
  const r = await httpCall({
    method: "POST",
    url: `${url}/reports`,
    body: { title: tag },
    headers: { "x-tag": tag },
    timeoutMs: 10_000,
  });
  assert.equal(r.kind === "response" ? r.status : r.kind, 201, tag);
  return (r as { body: { n: number; tag: string } }).body;
}

/** Hooks that number the requests whose tag starts with "N" and record the number each was given. */
function numberingHooks() {
  const given = new Map<string, number>();
  const accepted = new Signals();
  let n = 0;
  return {
    given,
    /** Resolves once the proxy has read `count` requests. */
    accepted: (count: number) => accepted.when(String(count)),
    hooks: {
      accept: (exchange: { rawHeaders: string[] }) => {
        accepted.fire(String(++n));
        const at = exchange.rawHeaders.findIndex(
          (h, i) => i % 2 === 0 && h.toLowerCase() === "x-tag",
        );
        return exchange.rawHeaders[at + 1]!;
      },
      numbered: (tag: string) => tag.startsWith("N"),
      arrived: (tag: string, target: { requestNo: number }) =>
        void given.set(tag, target.requestNo),
    },
  };
}

test("a request that needs no number goes out at once; a numbered one waits until those before it have arrived", {
  timeout: 30_000,
}, async () => {
  const child = await numberingProcess();
  const h = numberingHooks();
  const proxy = await startProxy(child.fleet, h.hooks);
  try {
    // The process never says that these arrived: they are answered all the same, without waiting.
    assert.deepEqual(
      await Promise.all([tagged(proxy.url, "u1"), tagged(proxy.url, "u2")]).then((r) =>
        r.map((b) => b.tag).sort(),
      ),
      ["u1", "u2"],
    );
    // A numbered request must be the third to arrive: it waits until the two before it have.
    const numbered = tagged(proxy.url, "N3");
    await h.accepted(3);
    await new Promise((resolve) => setImmediate(resolve)); // the proxy has done all it can without an arrival
    assert.equal(child.count(), 2, "not sent before the requests sent earlier have arrived");
    assert.equal(h.given.size, 0);
    child.tell(2);
    await child.received(3);
    child.tell(3);
    const answer = await numbered;
    assert.equal(h.given.get("N3"), 3);
    assert.equal(answer.n, 3, "the number the process gave it is the one the proxy said");
  } finally {
    await proxy.close();
    await child.close();
  }
});

test("requests waiting while a numbered one is on its way: each numbered one gets the number the process gives it", {
  timeout: 30_000,
}, async () => {
  const child = await numberingProcess();
  const h = numberingHooks();
  const proxy = await startProxy(child.fleet, h.hooks);
  try {
    // N1 is sent and numbered 1 by the process, which does not yet say so: the lane stays held.
    const first = tagged(proxy.url, "N1");
    await child.received(1);
    // Meanwhile numbered and unnumbered requests queue up behind it, in this order.
    const tags = ["u-a", "N-b", "u-c", "N-d", "u-e", "u-f", "N-g", "u-h"];
    const rest: Array<Promise<{ n: number; tag: string }>> = [];
    for (const [i, tag] of tags.entries()) {
      rest.push(tagged(proxy.url, tag));
      await h.accepted(i + 2);
    }
    await new Promise((resolve) => setImmediate(resolve)); // every one of them waits for the lane now
    // From here on every arrival is told as it happens: the lane is let go, and they all wake at once.
    child.tellEach();
    const answers = [await first, ...(await Promise.all(rest))];
    for (const a of answers.filter((a) => a.tag.startsWith("N"))) {
      assert.equal(
        h.given.get(a.tag),
        a.n,
        `${a.tag}: the proxy said ${h.given.get(a.tag)}, the process gave ${a.n}`,
      );
    }
    assert.equal(answers.length, tags.length + 1);
  } finally {
    await proxy.close();
    await child.close();
  }
});
