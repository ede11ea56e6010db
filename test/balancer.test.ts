// The lesson 10 balancer: each request to the next instance in turn, the answer passed back whole,
// the instance's connection closed when the client gives up, a 502 when the instance hangs up.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { createConnection } from "node:net";
import { test } from "node:test";
import { httpCall } from "../lib/client/client.ts";
import { startBalancer } from "../lib/cluster/balancer.ts";
import { gate } from "../lib/core/gate.ts";
import { listenOnLoopback } from "../lib/core/listen.ts";
import { parseRaw, raw } from "./http-helpers.ts";

async function upstream(
  handler: Parameters<typeof createServer>[1],
): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  const { url } = await listenOnLoopback(server);
  return { url, server };
}

test("requests go round robin, 1, 2, 3, 1, and the answers come back whole", async (t) => {
  const ups = await Promise.all(
    [1, 2, 3].map((i) =>
      upstream((req, res) => {
        let body = "";
        req.on("data", (c: Buffer) => (body += c.toString()));
        req.on("end", () =>
          res
            .writeHead(201, { "content-type": "application/json", "x-instance": String(i) })
            .end(
              JSON.stringify({ instance: i, got: body ? JSON.parse(body) : null, path: req.url }),
            ),
        );
      }),
    ),
  );
  const routes: number[] = [];
  const balancer = await startBalancer({
    upstreams: ups.map((u) => u.url),
    onRoute: (r) => routes.push(r.instance),
  });
  t.after(async () => {
    await balancer.close();
    for (const u of ups) u.server.close();
  });
  const seen: unknown[] = [];
  for (let n = 0; n < 4; n++) {
    const o = await httpCall({
      method: "POST",
      url: `${balancer.url}/reports?x=${n}`,
      body: { n },
      timeoutMs: 5_000,
    });
    assert.equal(o.kind, "response");
    if (o.kind !== "response") return;
    assert.equal(o.status, 201);
    seen.push(o.body);
  }
  assert.deepEqual(routes, [1, 2, 3, 1]);
  assert.deepEqual(seen, [
    { instance: 1, got: { n: 0 }, path: "/reports?x=0" },
    { instance: 2, got: { n: 1 }, path: "/reports?x=1" },
    { instance: 3, got: { n: 2 }, path: "/reports?x=2" },
    { instance: 1, got: { n: 3 }, path: "/reports?x=3" },
  ]);
  assert.deepEqual(balancer.sent, [2, 1, 1]);
});

test("a client that gives up closes the instance's connection too; an instance that hangs up is a 502", {
  timeout: 15_000,
}, async (t) => {
  const closed = gate();
  const silent = await upstream((req, res) => {
    req.resume();
    res.on("close", () => closed.open());
  });
  const rude = await upstream((req) => req.socket.destroy());
  const balancer = await startBalancer({ upstreams: [silent.url, rude.url] });
  t.after(async () => {
    await balancer.close();
    silent.server.close();
    rude.server.close();
  });
  const gaveUp = await httpCall({
    method: "POST",
    url: `${balancer.url}/reports`,
    body: {},
    timeoutMs: 100,
  });
  assert.equal(gaveUp.kind, "timeout");
  await closed.passed; // never resolves if the balancer kept the instance's connection open
  const cut = await httpCall({
    method: "POST",
    url: `${balancer.url}/reports`,
    body: {},
    timeoutMs: 5_000,
  });
  assert.equal(cut.kind === "response" && cut.status, 502);
});

test("a target the URL parser refuses is 400 and the balancer goes on; an absolute-form target still goes to the instance, never elsewhere", async (t) => {
  const seen: string[] = [];
  const up = await upstream((req, res) => {
    seen.push(req.url ?? "");
    res.writeHead(200, { "content-type": "text/plain" }).end("instance");
  });
  const balancer = await startBalancer({ upstreams: [up.url] });
  t.after(async () => {
    await balancer.close();
    await new Promise((resolve) => up.server.close(resolve));
  });
  const port = Number(new URL(balancer.url).port);
  for (const target of ["//:99999/", "http://[::1/reports", "http://a%zz/"]) {
    const answer = parseRaw(
      await raw(port, `GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`),
    );
    assert.equal(answer.status, 400, target);
  }
  // An absolute-form target names another host: the balancer forwards its path to the instance.
  // (Written without ending the client's side: the balancer drops a client that hangs up.)
  const other = parseRaw(
    await new Promise<string>((resolve, reject) => {
      const socket = createConnection({ port, host: "127.0.0.1" });
      let out = "";
      socket.on("data", (c) => (out += c.toString()));
      socket.on("close", () => resolve(out));
      socket.on("error", reject);
      socket.write(
        "GET http://example.invalid:9/reports?x=1 HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
      );
    }),
  );
  assert.equal(other.status, 200);
  assert.match(other.body, /instance/);
  assert.deepEqual(seen, ["/reports?x=1"]);
  const o = await httpCall({ method: "GET", url: `${balancer.url}/reports`, timeoutMs: 5_000 });
  assert.equal(o.kind === "response" && o.status, 200);
});
