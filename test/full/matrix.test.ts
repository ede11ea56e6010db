// The fault matrix through lib (lib/matrix/matrix.ts): every variant × fault cell run live, each count
// as the variant is known to behave, the fenced row all ones, and no tracker process left behind.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { liveChildren } from "../../lib/core/child-pipe.ts";
import { Trace } from "../../lib/core/trace.ts";
import {
  MATRIX_FAULTS,
  type MatrixFault,
  matrixVariants,
  policyFor,
  runCell,
  runCells,
} from "../../lib/matrix/matrix.ts";
import type { VariantName } from "../../lib/tracker/variant.ts";

const dir = mkdtempSync(join(tmpdir(), "matrix-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let runs = 0;
const options = () => {
  const prefix = `${++runs}-`;
  // Twice the lesson's timeout and lease, in the lesson's proportion: on a loaded machine an attempt that
  // no fault holds must still be answered within the agent's timeout, or a cell counts one attempt more.
  return { dbPath: (name: string) => join(dir, prefix + name), timeoutMs: 300, leaseMs: 800 };
};

// What each variant is known to do (lessons 01, 04 and 05 show each case on its own). A number is the
// reports one logical call leaves; "never" is a fault whose moment the variant does not have.
const KNOWN: Record<VariantName, Record<MatrixFault, number | "never">> = {
  naive: {
    "lose-response": 2,
    slow: 2,
    concurrent: 2,
    "crash-between-commits": 2,
    "crash-after-claim": "never",
    "pause-past-lease": 2,
  },
  "key-after": {
    "lose-response": 1,
    slow: 2,
    concurrent: 2,
    "crash-between-commits": 2,
    "crash-after-claim": "never",
    "pause-past-lease": 2,
  },
  keyed: {
    "lose-response": 1,
    slow: 1,
    concurrent: 1,
    "crash-between-commits": 1,
    "crash-after-claim": 1,
    "pause-past-lease": 2,
  },
  fenced: {
    "lose-response": 1,
    slow: 1,
    concurrent: 1,
    "crash-between-commits": 1,
    "crash-after-claim": 1,
    "pause-past-lease": 1,
  },
};

test("every variant × fault cell leaves the count its variant is known for; the fenced row is all ones", async () => {
  const variants = matrixVariants();
  assert.deepEqual(variants, ["naive", "key-after", "keyed", "fenced"]);
  const cells = variants.flatMap((variant) => MATRIX_FAULTS.map((fault) => ({ variant, fault })));
  const results = await runCells(cells, options(), 4);
  for (const r of results) {
    const known = KNOWN[r.variant][r.fault as MatrixFault];
    const where = `${r.variant} × ${r.fault}: ${JSON.stringify(r.calls)}`;
    assert.equal(r.policy, policyFor(r.variant));
    assert.equal(r.expected, 1);
    if (known === "never") {
      assert.equal(r.fired, false, where);
      assert.equal(r.reports, 1, where);
    } else {
      assert.equal(r.fired, true, `${where}: the fault fired`);
      assert.equal(r.reports, known, where);
      assert.equal(r.verdict, known === 1 ? "ok" : "duplicate", where);
    }
  }
  assert.deepEqual(
    results.filter((r) => r.variant === "fenced").map((r) => r.reports),
    [1, 1, 1, 1, 1, 1],
  );
  assert.equal(liveChildren(), 0, "every tracker process is gone");
});

test("the cells are what they say: the agent's attempts per cell", async () => {
  const attempts = async (variant: VariantName, fault: MatrixFault) =>
    (await runCell(variant, fault, options())).calls;
  assert.deepEqual(await attempts("naive", "lose-response"), [["timeout", "201"]]);
  assert.deepEqual(await attempts("keyed", "slow"), [["timeout", "409", "201 replayed"]]);
  assert.deepEqual(await attempts("keyed", "concurrent"), [["201"], ["409", "201 replayed"]]);
  assert.deepEqual(await attempts("key-after", "crash-between-commits"), [["error", "201"]]);
  assert.deepEqual(await attempts("fenced", "crash-after-claim"), [["error", "409", "201"]]);
  assert.deepEqual(await attempts("fenced", "pause-past-lease"), [["timeout", "409", "201"]]);
  assert.equal(liveChildren(), 0);
});

test("a cell's trace: kept in the result, or written to the trace given, under its heading", async () => {
  const kept = await runCell("fenced", "pause-past-lease", options());
  assert.ok(kept.events.some((l) => /TAKE OVER/.test(l)));
  assert.ok(
    kept.events.some((l) => /ROLLBACK/.test(l)),
    "the stale holder rolled back",
  );
  const lines: string[] = [];
  const given = await runCell("naive", "lose-response", {
    ...options(),
    trace: new Trace({ color: false, step: false, write: (l) => lines.push(l) }),
  });
  assert.deepEqual(given.events, []);
  assert.ok(lines.includes("naive × lose-response (the agent: blind-retry)"));
  assert.ok(lines.some((l) => /answer \(201\) lost on the way back/.test(l)));
});

test("the same seed gives the same cell trace, times aside", async () => {
  const strip = (lines: string[]) => lines.map((l) => l.replace(/^\s*\d+ ms/, ""));
  const [a, b] = await Promise.all([
    runCell("keyed", "crash-after-claim", { ...options(), seed: 7 }),
    runCell("keyed", "crash-after-claim", { ...options(), seed: 7 }),
  ]);
  assert.deepEqual(strip(a.events), strip(b.events));
});
