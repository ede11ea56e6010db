// What lesson 10 says happened among its instances is read from what they told: from the data a
// tracker event carries beside its sentence where it has some (so a translated sentence reads the
// same), else from the English words; and which instance replayed or met a held key, from the
// attempts and the balancer's routes.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Attempt } from "../lib/client/client.ts";
import {
  claimsIn,
  fenceGap,
  filingsIn,
  paused,
  sharedKeys,
} from "../lib/cluster/instance-story.ts";
import type { InstanceEvent } from "../lib/cluster/trackers.ts";

type Told = InstanceEvent & {
  what?: string;
  report?: number;
  fence?: number;
  was?: number;
  status?: number;
};

const db = (instance: number, text: string, data: Partial<Told> = {}): Told => ({
  actor: "database",
  requestNo: 1,
  instance,
  text,
  ...data,
});

const answer = (status: number, replayed = false): Attempt =>
  ({
    outcome: {
      kind: "response",
      status,
      headers: replayed ? { "idempotent-replayed": "true" } : {},
      body: {},
    },
  }) as unknown as Attempt;
const timeout = { outcome: { kind: "timeout", limitMs: 600 } } as unknown as Attempt;

/** Lesson 10's 4b as the instances tell it in English: a claim, a take-over, a filing, a rollback. */
const english: Told[] = [
  db(
    1,
    "INSERT key k … ON CONFLICT DO NOTHING RETURNING fence: claimed as in_progress, fence 1, lease 900 ms · COMMIT",
  ),
  db(
    3,
    "UPDATE key k … WHERE lease_until <= now: TAKEN OVER (lease ran out), fence 4 (was 1), lease 900 ms · COMMIT",
  ),
  db(3, "BEGIN · INSERT report 1 + UPDATE key k completed WHERE fence = 4 · COMMIT"),
  db(
    1,
    "BEGIN · INSERT report 2, UPDATE key k completed WHERE fence = 1: 0 rows · ROLLBACK (report 2 undone)",
  ),
];

/** The same run told in another language, its meaning carried as data beside the words. */
const translated: Told[] = [
  db(1, "占键：in_progress，fence 1", { what: "claim", fence: 1 }),
  db(3, "接管：fence 4（原来是 1）", { what: "take-over", fence: 4, was: 1 }),
  db(3, "写入报告 1，提交", { what: "insert", report: 1, fence: 4 }),
  db(1, "写入报告 2，回滚", { what: "rollback", report: 2, fence: 1 }),
  db(2, "与报告无关的一句话", { what: "409", status: 409 }),
];

test("the claims and filings of a run are the same read from the English words or from the data", () => {
  for (const events of [english, translated]) {
    assert.deepEqual(claimsIn(events), [
      { instance: 1, requestNo: 1, fence: 1 },
      { instance: 3, requestNo: 1, fence: 4, takenFrom: 1 },
    ]);
    assert.deepEqual(filingsIn(events), [
      { instance: 3, requestNo: 1, report: 1, committed: true },
      { instance: 1, requestNo: 1, report: 2, committed: false },
    ]);
  }
});

test("4b's sentences come from the run: the take-over, the woken holder's rollback, the fence gap", () => {
  // Attempt 1 (instance 1) timed out, attempt 2 (instance 2) got 409, attempt 3 (instance 3) filed.
  const run = {
    attempts: [timeout, answer(409), answer(201)],
    routes: [1, 2, 3],
    events: translated,
    heldFence: 4,
  };
  assert.equal(
    paused(run),
    "instance 3 took the key over and filed report 1; instance 1 woke with fence 1 while the key held fence 4: its UPDATE changed 0 rows, its transaction rolled back, report 2 included",
  );
  assert.match(
    fenceGap(run),
    /^Fence 4, not 2: .* so the claims of instances 2 and 3 that met instance 1's row used up 2 and 3 before instance 3's take-over drew 4\./,
  );
});

test("section 2's replay is said of the instance the replayed attempt went to", () => {
  const run = {
    attempts: [timeout, answer(201, true)],
    routes: [1, 2],
    events: [db(1, "x", { what: "insert", report: 1 })],
  };
  assert.equal(
    sharedKeys(run),
    "instance 1 filed report 1 and lost its answer; instance 2, which did none of the work, replayed the stored 201 from the shared key table",
  );
});
