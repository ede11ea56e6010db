// The chaos run's progress display (lib/chaos/progress.ts): what one line says, a redrawn line on a
// terminal, plain lines (a tenth of the run at a time) when piped; and the tally reads a stream.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChaosProgress, progressLine, progressPrinter } from "../lib/chaos/progress.ts";
import { planChaos } from "../lib/chaos/schedule.ts";
import { SeenTitles } from "../lib/chaos/seen.ts";
import { tally } from "../lib/chaos/tally.ts";

const at = (done: number, more: Partial<ChaosProgress> = {}): ChaosProgress => ({
  variant: "fenced",
  done,
  ops: 10_000,
  duplicates: 0,
  kills: 3,
  elapsedMs: 40_000,
  phase: "main",
  ...more,
});

test("a progress line: done of all, duplicates, kills, elapsed, and the rest estimated from the pace so far", () => {
  assert.equal(
    progressLine(at(4_000)),
    "fenced: 4,000/10,000 operations (40 %), 0 duplicates, 3 kills, 40 s, about 1 min 00 s left",
  );
  assert.equal(
    progressLine(at(0)),
    "fenced: 0/10,000 operations (0 %), 0 duplicates, 3 kills, 40 s, estimating",
  );
  assert.equal(
    progressLine(at(10_000, { duplicates: 1, kills: 1, phase: "settling", elapsedMs: 125_000 })),
    "fenced: 10,000/10,000 operations (100 %), settling, 1 duplicate, 1 kill, 2 min 05 s, done",
  );
});

test("on a terminal: one line, redrawn in place, cleared at the end", () => {
  let out = "";
  const p = progressPrinter({ write: (t: string) => (out += t) }, true);
  p.update(at(100));
  p.update(at(200));
  p.end();
  assert.equal(
    out.split("\r").length - 1,
    3,
    "each update and the end start with a carriage return",
  );
  assert.ok(!out.includes("\n"), "no new line: the same line is redrawn");
  assert.ok(out.endsWith("\r\x1b[K"));
});

test("on a narrow terminal the redrawn line is cut to fit: a line that wraps cannot be redrawn with a carriage return", () => {
  let out = "";
  const p = progressPrinter({ write: (t: string) => (out += t), columns: 60 }, true);
  p.update(at(4_000));
  p.update(at(5_000));
  const drawn = out
    .split("\r")
    .filter((s) => s !== "")
    .map((s) => s.replace("\x1b[K", ""));
  assert.equal(drawn.length, 2);
  for (const line of drawn)
    assert.ok(
      line.length <= 59,
      `${line.length} columns on a 60-column terminal: ${JSON.stringify(line)}`,
    );
  assert.match(drawn[1]!, /^fenced: 5,000\/10,000 ops \(50 %\), 0 dup, /);
  assert.ok(drawn[1]!.endsWith("…"), "a cut line says so");
  // An 80-column terminal: a shorter form that keeps every figure, the estimate too.
  out = "";
  const eighty = progressPrinter({ write: (t: string) => (out += t), columns: 80 }, true);
  eighty.update(at(4_000, { duplicates: 2 }));
  const line = out.replace(/^\r/, "").replace(/\x1b\[K$/, "");
  assert.ok(line.length <= 79, `${line.length} columns: ${line}`);
  assert.equal(
    line,
    "fenced: 4,000/10,000 ops (40 %), 2 dup, 3 kills, 40 s, about 1 min 00 s left",
  );
  // Wide enough: the whole line.
  out = "";
  const wide = progressPrinter({ write: (t: string) => (out += t), columns: 200 }, true);
  wide.update(at(4_000));
  assert.equal(out, `\r${progressLine(at(4_000))}\x1b[K`);
});

test("piped: plain lines, one per tenth of the run, no control characters", () => {
  let out = "";
  const p = progressPrinter({ write: (t: string) => (out += t) }, false);
  for (let done = 0; done <= 10_000; done += 250) p.update(at(done));
  p.end();
  const lines = out.trimEnd().split("\n");
  assert.equal(lines.length, 11, "0 %, 10 %, …, 100 %");
  assert.ok(!/[\r\x1b]/.test(out));
  assert.match(lines.at(-1)!, /10,000\/10,000 operations \(100 %\)/);
});

test("piped, a slow run: a plain line at least every half minute within one tenth", () => {
  let out = "";
  const p = progressPrinter({ write: (t: string) => (out += t) }, false);
  for (let s = 0; s <= 120; s += 5) p.update(at(10, { elapsedMs: s * 1000 }));
  assert.deepEqual(
    out
      .trimEnd()
      .split("\n")
      .map((l) => /, (\d+ s|\d+ min \d+ s),/.exec(l)?.[1]),
    ["0 s", "30 s", "1 min 00 s", "1 min 30 s", "2 min 00 s"],
  );
});

test("the tally reads its rows as a stream, once", () => {
  function* rows(): Generator<{ id: number; title: string }> {
    yield { id: 1, title: "a" };
    yield { id: 2, title: "b" };
    yield { id: 3, title: "a" };
    yield { id: 4, title: "stray" };
  }
  const t = tally(
    [
      { index: 1, title: "a", acked: 1 },
      { index: 2, title: "b", acked: 2 },
    ],
    rows(),
  );
  assert.deepEqual([t.stored, t.duplicates, t.strays, t.lost], [4, 1, 1, 0]);
});

test("duplicates so far: a title stored twice is one duplicate, and what is kept does not grow with the rows read", () => {
  const plan = planChaos({ seed: 3, ops: 20_000, agents: 50 });
  const seen = new SeenTitles(plan.ops.length, (i) => plan.ops[i - 1]!.report.title);
  for (const op of plan.ops) seen.add(op.report.title);
  assert.equal(seen.duplicates, 0);
  assert.equal(seen.heldTitles, 0, "20 000 operations' titles read, none held as text");
  seen.add(plan.ops[16]!.report.title);
  seen.add(plan.ops[16]!.report.title);
  assert.equal(seen.duplicates, 2, "op 17 stored three times: two duplicates");
  // A title that names an operation's number without being its title is a stray, counted by its text.
  seen.add("Undo does nothing (chaos op 17)");
  seen.add("Undo does nothing (chaos op 17)");
  seen.add("no operation's title");
  assert.deepEqual([seen.duplicates, seen.heldTitles], [3, 2]);
});
