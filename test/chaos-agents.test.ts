// The chaos run's agents (lib/chaos/agents.ts): each agent files its own operations in their order,
// `inFlight` at a time, the next one as soon as one is answered; the run hears of each operation before
// its first request leaves, and of its outcome once it is over. A local server stands in for the proxy
// and answers only when the test says, so what is in flight at each moment is known, not guessed.
import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import { test } from "node:test";
import { type FromAgents, runAgents } from "../lib/chaos/agents.ts";
import { type ChaosPlanOptions, planOp } from "../lib/chaos/schedule.ts";
import { Signals } from "../lib/core/gate.ts";
import { listenOnLoopback } from "../lib/core/listen.ts";

test("an agent files its operations in their order, three at a time, the next as soon as one is answered", async () => {
  // One agent, six operations, no faults.
  const plan: ChaosPlanOptions = { seed: 5, ops: 6, agents: 1, rate: 0 };
  const heldAnswers = new Map<number, ServerResponse>();
  const arrivals: Array<{ op: number; inFlight: number[] }> = [];
  const arrived = new Signals();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const { title } = JSON.parse(Buffer.concat(chunks).toString()) as { title: string };
      const op = Number(/\(chaos op (\d+)\)/.exec(title)![1]);
      arrivals.push({ op, inFlight: [...heldAnswers.keys()].sort((a, b) => a - b) });
      heldAnswers.set(op, res);
      arrived.fire(String(arrivals.length));
    });
  });
  const { url } = await listenOnLoopback(server);
  const answer = (op: number): void => {
    const res = heldAnswers.get(op)!;
    heldAnswers.delete(op);
    res
      .writeHead(201, { "content-type": "application/json" })
      .end(JSON.stringify({ id: 100 + op }));
  };
  const told: FromAgents[] = [];
  let settle!: () => void;
  const settling = new Promise<void>((resolve) => (settle = resolve));
  try {
    const agents = runAgents(
      // The pace starts at its most; every answer here is fast beside a 30 s timeout, so it stays there.
      { url, plan, inFlight: 3, paceFrom: 3, timeoutMs: 30_000, leaseMs: 700 },
      {
        tell: (m) => {
          told.push(m);
          if (m.type === "main-phase-over") settle();
        },
        opened: async () => {},
        settle: () => settling,
      },
    );
    await arrived.when("3");
    assert.deepEqual(arrivals, [
      { op: 1, inFlight: [] },
      { op: 2, inFlight: [1] },
      { op: 3, inFlight: [1, 2] },
    ]);
    answer(2); // the middle one: its slot takes the next operation, 4
    await arrived.when("4");
    assert.deepEqual(arrivals[3], { op: 4, inFlight: [1, 3] });
    answer(1);
    await arrived.when("5");
    answer(3);
    answer(4);
    await arrived.when("6");
    answer(5);
    answer(6);
    await agents;
    assert.deepEqual(
      arrivals.map((a) => a.op),
      [1, 2, 3, 4, 5, 6],
    );
    assert.ok(
      arrivals.every((a) => a.inFlight.length < 3),
      "never more than three at once",
    );
    // The run heard of each operation before its request left, and of each answer, then the end.
    const opens = told.filter((m) => m.type === "open").map((m) => m.index);
    assert.deepEqual(opens, [1, 2, 3, 4, 5, 6]);
    const done = told.filter((m) => m.type === "done");
    assert.deepEqual(
      done
        .map((m) => [m.index, m.acked, m.settled, m.log])
        .sort((a, b) => Number(a[0]) - Number(b[0])),
      [1, 2, 3, 4, 5, 6].map((i) => [i, 100 + i, false, undefined]),
    );
    assert.deepEqual(told.at(-2), { type: "main-phase-over" });
    const finished = told.at(-1);
    assert.ok(
      finished?.type === "finished" && finished.attempts === 6 && finished.gaveUp === 0,
      JSON.stringify(finished),
    );
    assert.ok(
      finished.inFlightMean > 1 && finished.inFlightMean <= 3,
      `mean in flight ${finished.inFlightMean}`,
    );
    // What the agent sent is the plan's: its key and caller.
    assert.equal(planOp(plan, 4).caller, "agent-1");
  } finally {
    for (const res of heldAnswers.values()) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("no request of an operation leaves before the run has said that it knows the operation", async () => {
  const plan: ChaosPlanOptions = { seed: 6, ops: 2, agents: 2, rate: 0 };
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on("end", () =>
      res
        .writeHead(201, { "content-type": "application/json" })
        .end(JSON.stringify({ id: requests })),
    );
  });
  const { url } = await listenOnLoopback(server);
  const opened = new Signals();
  const asked = new Signals();
  let settle!: () => void;
  const settling = new Promise<void>((resolve) => (settle = resolve));
  try {
    const agents = runAgents(
      { url, plan, inFlight: 1, timeoutMs: 30_000, leaseMs: 700 },
      {
        tell: (m) => {
          if (m.type === "open") asked.fire(String(m.index));
          if (m.type === "main-phase-over") settle();
        },
        opened: (index) => opened.when(String(index)),
        settle: () => settling,
      },
    );
    await asked.when("1");
    await asked.when("2");
    // Both agents wait for the run; a round trip to the server shows that nothing was sent meanwhile.
    await fetch(`${url}/probe`, { method: "POST", body: "{}" }).then((r) => r.text());
    assert.equal(requests, 1, "only the probe reached the server");
    opened.fire("2");
    opened.fire("1");
    await agents;
    assert.equal(requests, 3);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
