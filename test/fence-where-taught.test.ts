// A variant shows only what it has (issue "The exercises as a learner meets them", point 6): key-after
// keeps neither a lease nor a fence, keyed a lease and no fence, fenced both. Its rows, its trace (the
// words and the data), the SQL the demo shows for its steps and the demo's key-row columns say no
// more than that. (Lesson 04's own trace: test/lesson-04.test.ts.)
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { createStepDemo } from "../lib/demos/step/demo.ts";
import { StepSessions } from "../lib/demos/step/sessions.ts";
import { keyColumns, stepText } from "../lib/demos/step/text.ts";
import { type CellEvent, type CellFault, runCell } from "../lib/matrix/matrix.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

const dir = mkdtempSync(join(tmpdir(), "fence-where-taught-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function cellEvents(variant: VariantName, fault: CellFault): Promise<CellEvent[]> {
  const events: CellEvent[] = [];
  await runCell(variant, fault, {
    dbPath: (name) => join(dir, name),
    policy: "same-key",
    timeoutMs: 300,
    leaseMs: 800,
    onEvent: (e) => events.push(e),
  });
  return events;
}

/** Everything a learner is shown of a step: the trace line, the demo's sentence, its SQL. */
const shown = (e: CellEvent): string =>
  [e.text, stepText(e, "en"), stepText(e, "zh"), ...(e.sql ?? [])].join("\n");

test("key-after's cells show neither a fence nor a lease: not in the trace, the data, the SQL or the sentences", async () => {
  for (const fault of ["concurrent", "lose-response"] as const) {
    const events = await cellEvents("key-after", fault);
    assert.ok(events.some((e) => e.what === "record-key"));
    for (const e of events) {
      assert.equal(e.fence, undefined, e.text);
      assert.doesNotMatch(shown(e), /fence|lease/i, e.text);
    }
  }
});

test("keyed's cells show a lease and never a fence", async () => {
  const events = await cellEvents("keyed", "pause-past-lease");
  assert.deepEqual(
    events.filter((e) => e.what === "claim" || e.what === "take-over").map((e) => e.what),
    ["claim", "take-over"],
  );
  assert.ok(events.some((e) => /lease/.test(e.text)));
  for (const e of events) {
    assert.equal(e.fence, undefined, e.text);
    assert.equal(e.was, undefined, e.text);
    assert.doesNotMatch(shown(e), /fence/i, e.text);
  }
});

test("fenced's cells still show their fence: the claim's token, the take-over's, the condition", async () => {
  const events = await cellEvents("fenced", "pause-past-lease");
  const claim = events.find((e) => e.what === "claim");
  const over = events.find((e) => e.what === "take-over");
  assert.equal(claim?.fence, 1);
  assert.deepEqual([over?.fence, over?.was], [2, 1]);
  assert.match(stepText(over!, "en"), /TAKE OVER, fence 2 \(was 1\)/);
  assert.ok(claim?.sql?.some((s) => /fence_counter/.test(s)));
  assert.ok(events.some((e) => e.what === "rollback" && e.fence === 1));
});

test("the demo's key row has a lease column and a fence column only for a variant that has them", () => {
  assert.deepEqual(keyColumns("key-after"), ["key", "state", "answer"]);
  assert.deepEqual(keyColumns("keyed"), ["key", "state", "lease", "answer"]);
  assert.deepEqual(keyColumns("fenced"), ["key", "state", "fence", "lease", "answer"]);
});

test("the demo page's key-row heading for a cell names only those columns", async () => {
  const instance = await createStepDemo({ sessions: new StepSessions() }).start({
    origin: "http://demo.invalid",
  });
  const page = instance.routes.find((r) => r.method === "GET" && r.path === "/step")!;
  const heading = async (variant: VariantName): Promise<string[]> => {
    let html = "";
    const res = { writeHead: () => res, end: (text: string) => (html = text) };
    const url = new URL(`http://demo.invalid/step?variant=${variant}&fault=none`);
    await page.handle({} as IncomingMessage, res as unknown as ServerResponse, {
      url,
      lang: "en",
      params: [],
      origin: url.origin,
    });
    const table = /<table id="key-rows"><thead><tr>(.*?)<\/tr>/.exec(html)?.[1] ?? "";
    return [...table.matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((m) => m[1]!);
  };
  try {
    assert.deepEqual(await heading("key-after"), ["key", "state", "stored answer"]);
    assert.deepEqual(await heading("keyed"), ["key", "state", "lease until (ms)", "stored answer"]);
    assert.deepEqual(await heading("fenced"), [
      "key",
      "state",
      "fence",
      "lease until (ms)",
      "stored answer",
    ]);
  } finally {
    await instance.close?.();
  }
});
