// Lesson 11's machinery, piece by piece: the verdict function, the SQLite persistence layer that
// follows Powertools' DynamoDB conditional put, the fault proxy, and the places in node_modules
// that the explanations name.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, test } from "node:test";
import {
  IdempotencyConfig,
  IdempotencyItemAlreadyExistsError,
} from "@aws-lambda-powertools/idempotency";
import { httpCall } from "../lib/client/client.ts";
import { listenOnLoopback } from "../lib/core/listen.ts";
import { tempFolder } from "../lib/core/scratch.ts";
import { allPlaces } from "../lib/middleware/explain.ts";
import { SqlitePersistenceLayer } from "../lib/middleware/powertools-sqlite.ts";
import { SERVER_NAMES, startCaseServer } from "../lib/middleware/servers.ts";
import { startLossyProxy } from "../lib/probe/proxy.ts";
import { type Attempted, type CaseFacts, judge } from "../lib/probe/verdict.ts";
import { raw } from "./http-helpers.ts";

const scratch = tempFolder("middleware-test-");
after(() => scratch.remove());

const one = [{ caller: "Bearer alice", mayRefuse: false }];
const at = (op: number, seen: Attempted["seen"], body = "", atMs = 0): Attempted => ({
  op,
  seen,
  body,
  atMs,
});
const facts = (f: Partial<CaseFacts>): CaseFacts => ({
  case: "same-key-twice",
  operations: one,
  attempts: [],
  rows: 1,
  ...f,
});

test("judge: one row and a replay is safe; two rows for one operation is a duplicate", () => {
  const replay = [at(0, 201, '{"id":1}'), at(0, 201, '{"id":1}')];
  assert.equal(judge(facts({ attempts: replay })).verdict, "safe");
  assert.deepEqual(
    judge(facts({ attempts: [at(0, 201, '{"id":1}'), at(0, 201, '{"id":2}')], rows: 2 })),
    { verdict: "duplicate", extraRows: 1 },
  );
});

test(
  "judge: another caller's answer is a leak, another operation's answer of the same caller " +
    "an error",
  () => {
    const two = [one[0]!, { caller: "Bearer bob", mayRefuse: false }];
    const same = [at(0, 201, '{"id":1,"t":"a"}'), at(1, 201, '{"t":"a", "id":1}')];
    assert.deepEqual(
      judge(facts({ operations: two, attempts: same })),
      { verdict: "leak", misdirected: { op: 1, from: 0 } },
      "equal bodies, keys in any order",
    );
    const misuse = [one[0]!, { ...one[0]!, mayRefuse: true }];
    assert.equal(judge(facts({ operations: misuse, attempts: same })).verdict, "error");
    assert.equal(
      judge(
        facts({
          operations: misuse,
          attempts: [at(0, 201, '{"id":1}'), at(1, 422, '{"title":"x"}')],
        }),
      ).verdict,
      "safe",
      "a refused misuse is safe",
    );
    assert.equal(
      judge(facts({ operations: two, attempts: [at(0, 201), at(1, 201)] })).verdict,
      "safe",
      "empty bodies prove nothing",
    );
  },
);

test("judge: an operation that never succeeds is stuck, for as long as its refusals lasted", () => {
  const refused = [
    at(0, 500, "", 10),
    at(0, 409, "", 120),
    at(0, 409, "", 330),
    at(0, 409, "", 740),
  ];
  assert.deepEqual(judge(facts({ attempts: refused, rows: 0 })), {
    verdict: "stuck",
    refused: { count: 4, forMs: 730 },
  });
});

test(
  "the SQLite persistence layer refuses a second claim of a key, hands back the record, and " +
    "lets an expired in-progress claim be taken over",
  async () => {
    const layer = new SqlitePersistenceLayer(`${scratch.dir}/powertools.sqlite`);
    layer.configure({ config: new IdempotencyConfig({}) });
    try {
      await layer.saveInProgress({ key: "a" }, 30_000);
      await assert.rejects(layer.saveInProgress({ key: "a" }, 30_000), (err: unknown) => {
        assert.ok(
          err instanceof IdempotencyItemAlreadyExistsError,
          "the conditional put fails as DynamoDB's does",
        );
        assert.equal(
          err.existingRecord?.getStatus(),
          "INPROGRESS",
          "with the record that is there",
        );
        return true;
      });
      // A claim whose in-progress expiry has passed (the invocation's time ran out) is taken over.
      await layer.saveInProgress({ key: "b" }, -1);
      await layer.saveInProgress({ key: "b" }, 30_000);
      await layer.saveSuccess({ key: "b" }, { statusCode: 201 });
      const record = await layer.getRecord({ key: "b" });
      assert.deepEqual(
        [record.getStatus(), record.getResponse()],
        ["COMPLETED", { statusCode: 201 }],
      );
      await assert.rejects(
        layer.saveInProgress({ key: "b" }, 30_000),
        IdempotencyItemAlreadyExistsError,
        "a completed record is not claimed again",
      );
    } finally {
      layer.close();
    }
  },
);

test(
  "the fault proxy loses the answer after the service gave it, holds one on demand, and " +
    "passes the rest",
  async () => {
    let handled = 0;
    const server = createServer((_req, res) => {
      handled++;
      res.end(JSON.stringify({ n: handled }));
    });
    const { url } = await listenOnLoopback(server);
    const proxy = await startLossyProxy(url);
    try {
      const lost = proxy.loseNext();
      const first = await httpCall({
        method: "POST",
        url: proxy.via(`${url}/x`),
        body: {},
        timeoutMs: 5_000,
      });
      assert.equal(first.kind, "error", "the client hears nothing");
      assert.deepEqual(
        await lost,
        { status: 200 },
        "the proxy saw the service's 200 and threw it away",
      );
      assert.equal(handled, 1, "the service did the work");
      const held = proxy.holdNext();
      const second = httpCall({
        method: "POST",
        url: proxy.via(`${url}/x`),
        body: {},
        timeoutMs: 5_000,
      });
      (await held).drop();
      assert.equal((await second).kind, "error", "a held answer, dropped, is lost too");
      const third = await httpCall({ method: "GET", url: proxy.via(`${url}/x`), timeoutMs: 5_000 });
      assert.deepEqual(
        third.kind === "response" ? [third.status, third.body] : third,
        [200, { n: 3 }],
        "the next request passes",
      );
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  },
);

test("every place the lesson's explanations name is found in the installed packages", () => {
  const places = allPlaces();
  assert.ok(places.length >= 20);
  assert.deepEqual(
    places.filter((p) => /not found/.test(p)),
    [],
    "a package upgrade, or a move in lib/, took away code the lesson cites",
  );
  for (const p of places) assert.match(p, /:\d+$/, p);
});

test("a request target the URL parser refuses does not bring any of the lesson's servers down", async () => {
  for (const name of SERVER_NAMES) {
    const server = await startCaseServer(name, `${scratch.dir}/${name}-target.sqlite`);
    try {
      const port = Number(new URL(server.url).port);
      for (const target of ["//:99999/", "http://[::1/reports", "http://a%zz/"]) {
        const text = await raw(
          port,
          `POST ${target} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`,
        );
        assert.match(text, /^HTTP\/1\.1 4\d\d /, `${name} ${target}: ${text.slice(0, 60)}`);
      }
      const list = await httpCall({
        method: "GET",
        url: `${server.url}/reports`,
        timeoutMs: 5_000,
      });
      assert.equal(list.kind, "response", `${name} still serves`);
    } finally {
      await server.close();
    }
  }
});
