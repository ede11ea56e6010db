// The chaos agents' pace (lib/chaos/pace.ts): how many operations they have in flight at once, from one
// per agent up to --in-flight each, raised a little by each fast answer, cut by a fifth by a slow one
// or a timeout (once per timeout at most). Times are given, not read from a clock.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Pace } from "../lib/chaos/pace.ts";

test("the pace starts at one operation per agent, rises with fast answers up to its most, and falls by a fifth on a slow one", () => {
  const pace = new Pace({ least: 10, most: 30, timeoutMs: 400 });
  assert.equal(pace.limit, 10);
  for (let i = 0; i < 50; i++) pace.heard(100, i); // within a quarter of the timeout: fast
  assert.equal(pace.limit, 15);
  for (let i = 0; i < 500; i++) pace.heard(5, 100 + i);
  assert.equal(pace.limit, 30, "never above the most");
  pace.heard(150, 1_000); // between a quarter and a half: no change
  assert.equal(pace.limit, 30);
  pace.heard(250, 1_000); // over half the timeout: slow
  assert.equal(pace.limit, 24);
  pace.heard(undefined, 1_200); // a timeout within the same timeout's span: no second cut
  assert.equal(pace.limit, 24);
  pace.heard(undefined, 1_400); // one timeout later: cut again
  assert.equal(pace.limit, 19);
  for (let t = 1_800; t < 10_000; t += 400) pace.heard(undefined, t);
  assert.equal(pace.limit, 10, "never below one per agent");
});

test("an agent with nothing in flight always starts one; beyond that, operations wait for room under the limit", async () => {
  let now = 0;
  const clock = (): number => now;
  const pace = new Pace({ least: 2, most: 4, timeoutMs: 400 });
  await pace.enter(0, clock);
  await pace.enter(1, clock);
  assert.equal(pace.active, 2);
  // Agent 0 wants a second one: the limit (2) is reached, so it waits.
  let second = false;
  const waiting = pace.enter(0, clock).then(() => (second = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(second, false);
  // Agent 1 is done with its one: there is room, and agent 0's second one starts.
  now = 100;
  pace.leave(1, now);
  await waiting;
  assert.equal(second, true);
  assert.equal(pace.active, 2);
  // Agent 1, with nothing in flight, starts at once although the limit is reached.
  await pace.enter(1, clock);
  assert.equal(pace.active, 3);
  now = 200;
  // In flight: 2 from 0 to 100, then 3 (one left, two came): a mean of 2.5 by 200.
  assert.equal(pace.mean(now), 2.5);
  // A fast answer raises the limit by a tenth only: still 2, so agent 0 waits for a third.
  pace.heard(10, now);
  let third = false;
  const waitingThird = pace.enter(0, clock).then(() => (third = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(third, false);
  for (let i = 0; i < 20; i++) pace.heard(10, now); // the limit rises to 4: room, and it starts
  await waitingThird;
  assert.equal(pace.active, 4);
});
