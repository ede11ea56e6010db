// The busy server and the herd of agents over real HTTP (lesson 02's live demo). Which requests
// collide depends on scheduling, so the herd tests check only what cannot vary: everyone is served,
// and the counts add up. The server's rule itself is tested with gates, not timing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { httpCall, type Outcome } from "../lib/client/client.ts";
import { seeded } from "../lib/core/random.ts";
import { type Arrival, startBusyServer } from "../lib/overload/busy-server.ts";
import { liveHerdReading, refusedPerService, runLiveHerd } from "../lib/overload/live-herd.ts";

const status = (o: Outcome): number | string => (o.kind === "response" ? o.status : o.kind);

test("busy server: a request that arrives during another's service gets 503 at once; after it, 200", async () => {
  let finishFirst!: () => void;
  const held = new Promise<void>((resolve) => (finishFirst = resolve));
  const arrived: ((a: Arrival) => void)[] = [];
  const next = () => new Promise<Arrival>((resolve) => arrived.push(resolve));
  const server = await startBusyServer({
    serviceMs: 0,
    serve: (n) => (n === 1 ? held : Promise.resolve()),
    onArrival: (a) => arrived.shift()?.(a),
  });
  try {
    const call = (who: string) =>
      httpCall({
        method: "POST",
        url: `${server.url}/work`,
        body: {},
        headers: { authorization: `Bearer ${who}` },
        timeoutMs: 10_000,
      });
    const firstArrived = next();
    const first = call("a");
    assert.equal((await firstArrived).status, 200);
    const second = await call("b"); // request 1 is held: the server is busy
    assert.equal(status(second), 503);
    finishFirst();
    assert.equal(status(await first), 200);
    assert.equal(status(await call("c")), 200);
    assert.deepEqual(
      server.arrivals.map((a) => [a.n, a.caller, a.status, a.busyWith]),
      [
        [1, "a", 200, undefined],
        [2, "b", 503, 1],
        [3, "c", 200, undefined],
      ],
    );
    assert.deepEqual(refusedPerService(server.arrivals), [1, 0]);
  } finally {
    await server.close();
  }
});

test("refusedPerService: one count per served request, in order; the counts add up to the 503s", () => {
  const a = (n: number, status: 200 | 503, busyWith?: number): Arrival => ({
    n,
    atMs: n,
    caller: "x",
    status,
    ...(busyWith ? { busyWith } : {}),
  });
  const arrivals = [a(1, 200), a(2, 503, 1), a(3, 503, 1), a(4, 200), a(5, 200), a(6, 503, 5)];
  assert.deepEqual(refusedPerService(arrivals), [2, 0, 1]);
});

for (const strategy of ["exponential", "full"] as const) {
  test(`live herd, ${strategy}: every agent is served, and the server's counts add up`, async () => {
    const agents = 6;
    const r = await runLiveHerd({
      strategy,
      agents,
      params: { baseMs: 5, capMs: 80 },
      serviceMs: 8,
      random: seeded(3),
      maxAttempts: 50,
    });
    assert.equal(r.agents.length, agents);
    for (const a of r.agents)
      assert.equal(a.served, true, `${a.name} was not served in ${a.attempts} attempts`);
    const served = r.arrivals.filter((a) => a.status === 200);
    assert.equal(served.length, agents, "exactly one 200 per agent");
    assert.deepEqual(new Set(served.map((a) => a.caller)).size, agents);
    assert.equal(
      r.arrivals.length,
      r.agents.reduce((sum, a) => sum + a.attempts, 0),
      "every attempt reached the server",
    );
    const perService = refusedPerService(r.arrivals);
    assert.equal(perService.length, agents);
    assert.equal(
      perService.reduce((x, y) => x + y, 0),
      r.arrivals.length - agents,
    );
    assert.ok(
      r.arrivals.every((a, i) => i === 0 || a.atMs >= r.arrivals[i - 1]!.atMs),
      "arrivals in time order",
    );
  });
}

test("liveHerdReading says what this run showed, including a run where full jitter was refused as often or more", () => {
  const better = liveHerdReading({ refused: 25, requests: 35 }, { refused: 12, requests: 22 }, 100);
  assert.match(better, /^In this run full jitter was turned away 12 times, exponential 25 times\./);
  assert.doesNotMatch(better, /did not show/);
  for (const [expo, full] of [
    [14, 29],
    [9, 9],
  ] as const) {
    const worse = liveHerdReading(
      { refused: expo, requests: expo + 10 },
      { refused: full, requests: full + 10 },
      100,
    );
    assert.match(
      worse,
      new RegExp(
        `^This run did not show it: full jitter was turned away ${full} times, exponential ${expo} times\\.`,
      ),
      worse,
    );
    assert.match(worse, /the simulator above, averaged over 100 runs a point/);
    assert.doesNotMatch(worse, /mostly finds a retry on its own/);
  }
});
