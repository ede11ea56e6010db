// Keys are scoped to the caller, over real HTTP, for every variant that reads them: caller B reusing
// caller A's key gets an execution of its own, never A's stored answer, never A's 422, and never a 409
// because A's request with that key is still running. And the tracker listens on 127.0.0.1 only.
import assert from "node:assert/strict";
import { createConnection } from "node:net";
import { networkInterfaces } from "node:os";
import { test } from "node:test";
import { Faults } from "../lib/tracker/faults.ts";
import type { VariantName } from "../lib/tracker/variant.ts";
import { post, type Response, withTracker } from "./http-helpers.ts";

const KEY = "8e03978e-40d5-43e8-bc93-6894a57f9324";
const report = { title: "Login button does nothing", module: "auth" };
const as = (caller: string | undefined): Record<string, string> => ({
  "idempotency-key": KEY,
  ...(caller ? { authorization: `Bearer ${caller}` } : {}),
});
const idOf = (r: Response): number => (r.body as { id: number }).id;
const KEYED: VariantName[] = ["key-after", "keyed", "fenced"];

for (const variant of KEYED) {
  test(`${variant}: another caller's key is another key: its own execution, never the first caller's answer or 422`, () =>
    withTracker({ variant }, async (t) => {
      const alice = await post(t, report, as("alice"));
      const bob = await post(t, report, as("bob"));
      const anonymous = await post(t, { title: "something else" }, as(undefined));
      assert.deepEqual([alice.status, bob.status, anonymous.status], [201, 201, 201]);
      assert.equal(
        bob.headers["idempotent-replayed"],
        undefined,
        "bob's answer is not a replay of alice's",
      );
      assert.equal(
        new Set([idOf(alice), idOf(bob), idOf(anonymous)]).size,
        3,
        "three executions, three reports",
      );
      assert.equal(t.store.countReports(), 3);
      // Each caller's key replays that caller's own answer.
      for (const [caller, first] of [
        ["alice", alice],
        ["bob", bob],
      ] as const) {
        const again = await post(t, report, as(caller));
        assert.equal(again.headers["idempotent-replayed"], "true");
        assert.deepEqual(again.body, first.body, `${caller} sees their own report`);
      }
      // Under alice's key bob's other request is bob's business: a new execution for a new caller.
      const carol = await post(t, { title: "Carol's bug" }, as("carol"));
      assert.equal(carol.status, 201, "not 422: the key's first use was someone else's");
      assert.equal(t.store.countReports(), 4);
    }));
}

for (const variant of ["keyed", "fenced"] as const) {
  test(`${variant}: while alice's request holds her key, bob's request with the same key runs at once (no 409)`, async () => {
    const faults = new Faults({ 1: "slow" });
    await withTracker({ variant, faults, now: () => 0 }, async (t) => {
      const alice = post(t, report, as("alice"));
      await faults.reached(1, "held");
      const aliceBusy = await post(t, report, as("alice"));
      assert.equal(aliceBusy.status, 409, "alice's own retry waits for her first request");
      const bob = await post(t, report, as("bob"));
      assert.equal(bob.status, 201, "bob's request is not alice's: no 409");
      const anonymous = await post(t, report, as(undefined));
      assert.equal(anonymous.status, 201);
      assert.equal(t.store.countReports(), 2, "alice's report is not in yet");
      faults.release(1);
      const aliceDone = await alice;
      assert.equal(aliceDone.status, 201);
      assert.equal(t.store.countReports(), 3);
      assert.deepEqual(
        (await post(t, report, as("alice"))).body,
        aliceDone.body,
        "alice replays her own report",
      );
      assert.deepEqual(
        (await post(t, report, as("bob"))).body,
        bob.body,
        "bob replays his own report",
      );
    });
  });
}

/** Whether a TCP connection to host:port is accepted. */
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

test("the tracker listens on 127.0.0.1 only: not on the machine's other addresses, not on ::1", () =>
  withTracker({}, async (t) => {
    assert.equal(await connects("127.0.0.1", t.port), true);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && !a.internal && !a.address.startsWith("fe80"))
      .map((a) => a!.address);
    for (const address of ["::1", ...others])
      assert.equal(await connects(address, t.port), false, `reachable on ${address}`);
  }));
