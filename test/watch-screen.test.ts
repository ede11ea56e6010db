// The watch mode's screen with the shipped exercises, their real titles and hints, on terminals of
// 80 columns and 24 or 30 rows: it must fit, or the top (which exercise, the keys) scrolls away.
import assert from "node:assert/strict";
import { test } from "node:test";
import { listLessons } from "../lib/runner/catalog.ts";
import {
  type CheckReport,
  initialState,
  step,
  type WatchEvent,
  type WatchState,
} from "../lib/runner/watch-core.ts";
import { renderScreen } from "../lib/runner/watch-screen.ts";
import { shippedExercises } from "./temp-project.ts";

const EXERCISES = shippedExercises();
/** An exercise's whole hint, every step. */
const hintOf = (e: (typeof EXERCISES)[number]): string => e.hintSteps.join("\n\n");
const LESSONS = listLessons();
const SIZES = [
  { columns: 80, rows: 30 },
  { columns: 80, rows: 24 },
] as const;

/** A failure as a learner's assertion gives it: a message and a diff of a dozen lines or more. */
const FAIL: CheckReport = {
  passed: false,
  timedOut: false,
  counts: { tests: 6, pass: 2, fail: 4 },
  firstFailure: {
    test: "a lost response: the retry with the same key gets the first answer, and the work is done once",
    error: [
      "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:",
      "+ actual - expected",
      "",
      "  {",
      "+   attempts: 2,",
      "-   attempts: 1,",
      "    key: 'report-7f3a',",
      "+   outcome: 'created twice',",
      "-   outcome: 'created',",
      "    status: 201",
      "  }",
      "",
      "    at TestContext.<anonymous> (exercises/04a-lost-response-test.test.ts:41:10)",
      "    at Test.runInAsyncScope (node:async_hooks:214:14)",
      "    at Test.run (node:internal/test_runner/test:1047:25)",
    ].join("\n"),
  },
  ms: 1,
};

function run(state: WatchState, ...events: WatchEvent[]): WatchState {
  for (const e of events) state = step(state, e).state;
  return state;
}

/** Every exercise checked and failing; the one at `index` on screen. */
function failingAt(index: number): WatchState {
  let s = run(initialState(EXERCISES), { type: "start" });
  for (const e of EXERCISES)
    s = run(s, { type: "check-finished", id: e.id, run: s.checks[e.id]!.run, report: FAIL });
  for (let i = 0; i < index; i++) s = run(s, { type: "key", key: "n" });
  const id = EXERCISES[index]!.id;
  return run(s, { type: "check-finished", id, run: s.checks[id]!.run, report: FAIL });
}

const plain = (line: string): string => line.replace(/\x1b\[[0-9;]*m/g, "");
const flat = (text: string): string => plain(text).replace(/\s+/g, " ");

/** Asserts the screen fits: no line wider than the columns, no more lines than the rows, top and keys kept. */
function assertFits(text: string, columns: number, rows: number, what: string): string[] {
  const lines = text.split("\n");
  for (const line of lines) {
    const shown = plain(line);
    assert.ok(
      [...shown].length <= columns,
      `${what}: ${JSON.stringify(shown)} is ${[...shown].length} columns wide`,
    );
  }
  // The text ends with a newline, so the cursor sits on one more row: that row counts too.
  assert.ok(
    lines.length <= rows,
    `${what}: ${lines.length} rows on a terminal of ${rows}:\n${plain(text)}`,
  );
  assert.match(
    plain(lines[0]!),
    /^retry-workbook .* exercises pass/,
    `${what}: the header is the first line`,
  );
  assert.match(
    plain(lines.at(-2)!),
    /^h hint · l (list|back) · r run lesson \d+ · n next · p previous · ⏎ check · q quit$/,
    `${what}: the key line is the last`,
  );
  return lines.map(plain);
}

for (const { columns, rows } of SIZES) {
  for (const color of [false, true]) {
    test(`${columns}x${rows}${color ? ", colour" : ""}: each shipped exercise, failing, with and without its hint, fits the terminal`, () => {
      EXERCISES.forEach((e, i) => {
        const s = failingAt(i);
        const ctx = { color, width: columns, rows, lessons: LESSONS };
        const bare = assertFits(renderScreen(s, ctx).text, columns, rows, `${e.id} without hint`);
        assert.ok(
          bare.some((l) => l.startsWith(`Exercise ${e.id} · `)),
          `${e.id}: which exercise this is`,
        );
        assert.ok(
          flat(bare.join("\n")).includes(
            `Exercise ${e.id} · ${e.title} (${i + 1} of ${EXERCISES.length})`,
          ),
          `${e.id}: its title whole`,
        );
        assert.ok(
          bare.some((l) => l.includes(`Edit ${e.file}`)),
          `${e.id}: the file to edit`,
        );
        assert.ok(
          bare.some((l) => l.startsWith("✗ Not yet")),
          `${e.id}: the verdict`,
        );

        const hinted = renderScreen(run(s, { type: "key", key: "h" }), ctx).text;
        const lines = assertFits(hinted, columns, rows, `${e.id} with its hint`);
        assert.ok(
          lines.some((l) => l.startsWith(`Exercise ${e.id} · `)),
          `${e.id}: which exercise this is, with the hint`,
        );
        const at = lines.findIndex((l) => l.startsWith("  Hint (h hides it)"));
        assert.ok(at >= 0, `${e.id}: the hint's title`);
        assert.ok(
          flat(hintOf(e)).startsWith(lines[at + 1]!.trim()),
          `${e.id}: the hint starts right under its title`,
        );
        // Either the whole hint is there, or the screen says how many lines are left and how to read them.
        const whole = flat(hinted).includes(flat(hintOf(e)));
        const more = lines.find((l) =>
          /^ +… \d+ more lines?: npm run hint \d\d[a-z] prints it whole$/.test(l),
        );
        assert.ok(
          whole !== (more !== undefined),
          `${e.id}: the hint is whole, or says how to read it whole:\n${hinted}`,
        );
        if (more) assert.match(more, new RegExp(`npm run hint ${e.id} `));
      });
    });

    test(`${columns}x${rows}${color ? ", colour" : ""}: the list shows every title whole and fits the terminal`, () => {
      for (const index of [0, EXERCISES.length - 1]) {
        const s = run(failingAt(index), { type: "key", key: "l" });
        const text = renderScreen(s, { color, width: columns, rows, lessons: LESSONS }).text;
        const lines = assertFits(text, columns, rows, `the list, at ${EXERCISES[index]!.id}`);
        assert.ok(!lines.some((l) => /…$/.test(l)), `no row cut:\n${lines.join("\n")}`);
        const shown = flat(text);
        for (const e of EXERCISES)
          assert.ok(
            shown.includes(`${e.id} ${e.title}`),
            `${e.id}'s title whole: ${e.title}\n${lines.join("\n")}`,
          );
        assert.ok(
          lines.some((l) => l.includes(`▶ ✗ ${EXERCISES[index]!.id}  `)),
          "the current exercise is marked",
        );
      }
    });
  }
}

test("a short terminal shows the current exercise in the list, with the count of those left out", () => {
  const s = run(failingAt(EXERCISES.length - 1), { type: "key", key: "l" });
  const text = renderScreen(s, { color: false, width: 80, rows: 12, lessons: LESSONS }).text;
  const lines = assertFits(text, 80, 12, "the list at 12 rows");
  const last = EXERCISES.at(-1)!;
  assert.ok(
    lines.some((l) => l.includes(`▶ ✗ ${last.id}  `)),
    text,
  );
  const above = lines.find((l) => /… \d+ more above/.test(l));
  assert.ok(above, text);
  const listed = lines.filter((l) => / \d\d[a-z] {2}/.test(l)).length;
  assert.equal(
    Number(/(\d+) more above/.exec(above)![1]) + listed,
    EXERCISES.length,
    "the rows shown and the count add up",
  );
});

test("without a height (a pipe, a log), nothing is shortened but the error past its usual limit, which says so", () => {
  const i = EXERCISES.findIndex((e) => hintOf(e).length > 1000);
  assert.ok(i >= 0, "a long hint among the shipped ones");
  const text = renderScreen(run(failingAt(i), { type: "key", key: "h" }), {
    color: false,
    width: 80,
    lessons: LESSONS,
  }).text;
  assert.ok(flat(text).includes(flat(hintOf(EXERCISES[i]!))));
  assert.ok(flat(text).includes("status: 201"), "the error's lines up to the usual limit");
  assert.doesNotMatch(flat(text), /Test\.runInAsyncScope/, "not past it");
  assert.equal([...text.matchAll(/more lines?/g)].length, 1, text);
  assert.match(
    text,
    new RegExp(`\n +… \\d+ more lines: npm run check ${EXERCISES[i]!.id} shows the whole error\n`),
  );
});

test("a tiny terminal (40x10): the header, the exercise and the keys still show, the rest is counted", () => {
  EXERCISES.forEach((e, i) => {
    const text = renderScreen(run(failingAt(i), { type: "key", key: "h" }), {
      color: true,
      width: 40,
      rows: 10,
      lessons: LESSONS,
    }).text;
    const lines = text.split("\n").map(plain);
    assert.ok(lines.length <= 10, `${e.id}: ${lines.length} rows:\n${lines.join("\n")}`);
    for (const line of lines) assert.ok([...line].length <= 40, `${e.id}: ${JSON.stringify(line)}`);
    assert.match(lines[0]!, /^retry-workbook /);
    assert.equal(
      lines[2],
      `Exercise ${e.id} · ${e.title}`.slice(0, lines[2]!.length),
      `${e.id}: which exercise, right under the header`,
    );
    assert.match(lines.at(-2)!, /^h hint · l list · /, `${e.id}: the keys, last`);
    assert.ok(
      lines.some((l) => /^ +… \d+ more lines?/.test(l)),
      `${e.id}: a marker says lines were left out:\n${lines.join("\n")}`,
    );
  });
});
