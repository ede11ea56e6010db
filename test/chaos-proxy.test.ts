// The chaos proxy's connections to a tracker process: kept open between requests (keep-alive), one
// connect for many requests, and the hop-by-hop headers (RFC 9110 §7.6.1) left at each hop: the
// client's `Connection: close` does not reach the process, the process's `Keep-Alive` does not reach
// the client. A local server stands in for the process, numbering requests as the tracker does.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import { test } from "node:test";
import type { Backend, Cluster } from "../lib/chaos/cluster.ts";
import { startProxy, withoutHopByHop } from "../lib/chaos/proxy.ts";
import { httpCall } from "../lib/client.ts";
import { Signals } from "../lib/gate.ts";
import { listenOnLoopback } from "../lib/listen.ts";
import type { ChildTracker } from "../lib/tracker/child.ts";

test("hop-by-hop headers are left out, with those Connection names; the others pass in order", () => {
  const raw = ["Host", "x", "Connection", "close, X-Hop", "X-Hop", "1", "Keep-Alive", "timeout=5", "Idempotency-Key", '"k"', "Content-Length", "2"];
  assert.deepEqual(withoutHopByHop(raw), ["Host", "x", "Idempotency-Key", '"k"', "Content-Length", "2"]);
});

test("the proxy sends a process many requests over one kept connection, without the client's Connection: close", async () => {
  const arrived = new Signals();
  const seen: IncomingMessage[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    seen.push(req);
    arrived.fire(`${seen.length}:arrived`);
    res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ id: seen.length }));
  });
  server.on("connection", () => (connections += 1));
  const { port, url } = await listenOnLoopback(server);
  let exit!: () => void;
  const exited = new Promise<{ code: number; signal: null }>((resolve) => (exit = () => resolve({ code: 0, signal: null })));
  // Only what the proxy uses of a tracker process and a cluster.
  const tracker = { url, port, exited, reached: (n: number, stage: string) => arrived.when(`${n}:${stage}`) } as unknown as ChildTracker;
  const backend: Backend = { index: 0, port, current: tracker, generation: 1 };
  const cluster = { backends: [backend], isLive: () => true, anyLive: async () => {}, kill: async () => {} } as unknown as Cluster;
  const proxy = await startProxy(cluster, { accept: () => undefined });
  try {
    for (let i = 1; i <= 3; i++) {
      // httpCall opens a connection per attempt and says Connection: close, as the run's clients do.
      const r = await httpCall({ method: "POST", url: `${proxy.url}/reports`, body: { title: `t${i}` }, timeoutMs: 5_000 });
      assert.equal(r.kind === "response" ? r.status : r.kind, 201);
      assert.equal(r.kind === "response" ? r.headers["keep-alive"] : "?", undefined, "the process's Keep-Alive stays between it and the proxy");
    }
    assert.equal(seen.length, 3);
    assert.equal(connections, 1, "three requests, one connection from the proxy");
    assert.ok(seen.every((req) => req.headers.connection !== "close"), JSON.stringify(seen.map((r) => r.headers.connection)));
  } finally {
    await proxy.close();
    exit();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
