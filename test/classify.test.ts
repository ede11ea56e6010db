// A tracker event read back into data (lib/matrix/cell-events.ts's classify), two ways: from the
// English sentence the tracker says today, and from the data a tracker gives with its event (`what`
// and its numbers), whatever language the sentence is in. Both give the same step, SQL included, so
// that the demo page and lesson 08's stepper read a Chinese run as they read an English one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { classify } from "../lib/matrix/cell-events.ts";
import type { TrackerEvent } from "../lib/tracker/narrate.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

type Data = { what: string; report?: number; status?: number; fence?: number; was?: number };

// One sentence of each kind, as lib/tracker and lib/protocol say them, with the data it carries.
const CASES: Array<[VariantName, TrackerEvent["actor"], string, Data]> = [
  ["naive", "server", "POST /reports arrived (fault: slow)", { what: "arrived" }],
  ["naive", "server", "dropped before any handler ran: nothing done", { what: "dropped" }],
  ["keyed", "server", "handler started, then stalls (slow)", { what: "stall" }],
  ["keyed", "server", "handler wakes up and carries on", { what: "wake" }],
  ["key-after", "server", "key 6cb0f7c0…bf0a not recorded yet: going ahead", { what: "look-up" }],
  [
    "fenced",
    "database",
    "claim key 6cb0f7c0…bf0a as in_progress, fence 1, lease 400 ms · COMMIT",
    { what: "claim", fence: 1 },
  ],
  [
    "fenced",
    "database",
    "TAKE OVER (lease ran out) key 6cb0f7c0…bf0a as in_progress, fence 2 (was 1), lease 400 ms · COMMIT",
    { what: "take-over", fence: 2, was: 1 },
  ],
  ["naive", "database", "INSERT report 1 · COMMIT", { what: "insert", report: 1 }],
  [
    "fenced",
    "database",
    "INSERT report 2 + key 6cb0f7c0…bf0a completed WHERE fence = 2 · COMMIT",
    { what: "insert", report: 2, fence: 2 },
  ],
  [
    "key-after",
    "database",
    "INSERT key 6cb0f7c0…bf0a with the response · COMMIT (second commit)",
    { what: "record-key" },
  ],
  [
    "fenced",
    "database",
    "INSERT report 2, UPDATE key 6cb0f7c0…bf0a completed WHERE fence = 1: 0 rows · ROLLBACK",
    { what: "rollback", report: 2, fence: 1 },
  ],
  [
    "keyed",
    "server",
    "key 6cb0f7c0…bf0a completed before: replaying the stored 201",
    { what: "replay", status: 201 },
  ],
  [
    "keyed",
    "server",
    "key 6cb0f7c0…bf0a is in progress (lease ends in 400 ms): 409",
    { what: "409", status: 409 },
  ],
  [
    "keyed",
    "server",
    "key 6cb0f7c0…bf0a was used for a different request: 422",
    { what: "422", status: 422 },
  ],
  [
    "fenced",
    "server",
    "fenced out: key 6cb0f7c0…bf0a belongs to fence 2 now",
    { what: "fenced-out", fence: 2 },
  ],
  ["keyed", "server", 'process killed (SIGKILL) at "after-claim"', { what: "crash" }],
  [
    "naive",
    "server",
    "answer (201) lost on the way back: the connection is destroyed",
    { what: "lost", status: 201 },
  ],
  ["naive", "server", "→ 201 (report 1)", { what: "answer", status: 201 }],
  ["naive", "server", "→ 201, but the agent had already hung up", { what: "hung-up", status: 201 }],
];

test("a tracker event gives the same step from its English sentence and from its data in Chinese", () => {
  for (const [variant, actor, text, data] of CASES) {
    const english = classify({ actor, requestNo: 3, text }, variant);
    assert.notEqual(english.what, "other", `the sentence is read: ${text}`);
    const chinese = classify(
      { actor, requestNo: 3, text: "（这一步的中文）", ...data } as TrackerEvent,
      variant,
    );
    assert.deepEqual({ ...chinese, text: "" }, { ...english, text: "" }, text);
    assert.equal(chinese.text, "#3 （这一步的中文）");
  }
});

test("a step the tracker names in data but the matrix does not know stays 'other', its text kept", () => {
  const e = classify(
    { actor: "server", requestNo: 1, text: "报告被替换", what: "replace" } as TrackerEvent,
    "keyed",
  );
  assert.equal(e.what, "other");
  assert.equal(e.text, "#1 报告被替换");
});
