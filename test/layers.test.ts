// A stack of retrying services: each hop's count, read from its own server.
import assert from "node:assert/strict";
import { test } from "node:test";
import { httpCall } from "../lib/client/client.ts";
import { type LayerStackOptions, startLayerStack } from "../lib/overload/layers.ts";

async function counts(
  options: LayerStackOptions,
): Promise<{ names: string[]; received: number[]; status: number | string }> {
  const stack = await startLayerStack(options);
  try {
    const o = await httpCall({ method: "POST", url: stack.url, body: {}, timeoutMs: 30_000 });
    return {
      names: stack.hops.map((h) => h.name),
      received: stack.hops.map((h) => h.received),
      status: o.kind === "response" ? o.status : o.kind,
    };
  } finally {
    await stack.close();
  }
}

test("five layers of 3 tries in front of an overloaded database: 1, 3, 9, 27, 81, 243", async () => {
  const r = await counts({ triesPerLayer: [3, 3, 3, 3, 3] });
  assert.deepEqual(r.names, ["layer 1", "layer 2", "layer 3", "layer 4", "layer 5", "database"]);
  assert.deepEqual(r.received, [1, 3, 9, 27, 81, 243]);
  assert.equal(r.status, 503);
});

test("retrying at one point only: the database sees 3", async () => {
  assert.deepEqual((await counts({ triesPerLayer: [3, 1, 1, 1, 1] })).received, [1, 3, 3, 3, 3, 3]);
  assert.deepEqual((await counts({ triesPerLayer: [1, 1, 1, 1, 3] })).received, [1, 1, 1, 1, 1, 3]);
});

test("three retries (four tries) per layer would be 4^5 = 1024", async () => {
  assert.deepEqual(
    (await counts({ triesPerLayer: [4, 4, 4, 4, 4] })).received,
    [1, 4, 16, 64, 256, 1024],
  );
});

test("a healthy database: one request per hop, and the success comes back up", async () => {
  const r = await counts({ triesPerLayer: [3, 3, 3], database: () => ({ status: 201 }) });
  assert.deepEqual(r.received, [1, 1, 1, 1]);
  assert.equal(r.status, 201);
});

test("a layer stops retrying at its first success", async () => {
  const r = await counts({
    triesPerLayer: [3, 3],
    database: (n) => (n <= 2 ? { status: 503 } : { status: 201 }),
  });
  assert.deepEqual(r.received, [1, 1, 3]);
  assert.equal(r.status, 201);
});
