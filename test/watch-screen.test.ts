// The watch mode's screen with the shipped exercises, their real titles and hints, on terminals of
// 80 columns and 24 or 30 rows: it must fit, or the top (which exercise, the keys) scrolls away. The
// exercises are read as they ship (never the learner's copies in exercises/), and widths are counted
// as a terminal shows them (a Chinese character takes two columns).
import assert from "node:assert/strict";
import { test } from "node:test";
import { setLang } from "../lib/core/i18n.ts";
import { displayWidth } from "../lib/core/text.ts";
import { type Exercise, listLessons } from "../lib/runner/catalog.ts";
import { firstFailure } from "../lib/runner/exercise-run.ts";
import {
  type CheckReport,
  initialState,
  step,
  type WatchEvent,
  type WatchState,
} from "../lib/runner/watch-core.ts";
import { renderScreen } from "../lib/runner/watch-screen.ts";
import { englishRuns } from "./chinese-output.ts";
import { shippedExercises } from "./temp-project.ts";

const EXERCISES = shippedExercises();
/** The first step of an exercise's hint: what the first h shows. */
const hintOf = (e: Exercise): string => e.hintSteps[0]!;
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
      displayWidth(shown) <= columns,
      `${what}: ${JSON.stringify(shown)} is ${displayWidth(shown)} columns wide`,
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
        const at = lines.findIndex((l) =>
          /^ {2}Hint( \(h hides it\)|, step 1 of \d+ \(h: the next step\))$/.test(l),
        );
        assert.ok(at >= 0, `${e.id}: the hint's title:\n${hinted}`);
        assert.ok(
          flat(hintOf(e)).startsWith(lines[at + 1]!.trim()),
          `${e.id}: the hint starts right under its title`,
        );
        // Either the whole hint is there, or the screen says how many lines are left and how to read them.
        const whole = flat(hinted).includes(flat(hintOf(e)));
        const more = lines.find((l) =>
          /^ +… \d+ more lines?: npm run hint \d\d[a-z]( -- --step 1)? prints it whole$/.test(l),
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
  // The exercise whose first hint step is the longest.
  const i = EXERCISES.reduce(
    (best, e, k) => (hintOf(e).length > hintOf(EXERCISES[best]!).length ? k : best),
    0,
  );
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
    for (const line of lines)
      assert.ok(displayWidth(line) <= 40, `${e.id}: ${JSON.stringify(line)}`);
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

/** node:test's TAP for a wrong answer to 02a (`200 * 2 ** attempt`): its first failing test. */
const TAP_02A = `TAP version 13
# Subtest: the page's question: the nominal wait before the 4th retry
not ok 1 - the page's question: the nominal wait before the 4th retry
  ---
  duration_ms: 3.813294
  location: 'exercises/02a-codex-backoff.test.ts:1:546'
  failureType: 'testCodeFailure'
  error: |-
    Expected values to be strictly equal:
    
    3200 !== 1600
    
  code: 'ERR_ASSERTION'
  name: 'AssertionError'
  expected: 1600
  actual: 3200
  operator: 'strictEqual'
  stack: |-
    TestContext.<anonymous> (exercises/02a-codex-backoff.test.ts:19:10)
    Test.runInAsyncScope (node:async_hooks:206:9)
    Test.run (node:internal/test_runner/test:796:25)
  ...
`;

/**
 * 01a passes, the runner names 02a; Enter shows 02a, whose wrong answer fails: the screen at 80x24
 * (and with the hint opened, and in the moment right after 01a's pass).
 */
function wrong02a(exercises: Exercise[], error: string, test: string) {
  const failure = { ...firstFailure(TAP_02A)!, error, test };
  const report: CheckReport = {
    passed: false,
    timedOut: false,
    counts: { tests: 8, pass: 1, fail: 7 },
    firstFailure: failure,
    ms: 1,
  };
  const pass: CheckReport = { passed: true, timedOut: false, ms: 1 };
  let s = run(initialState(exercises), { type: "start" });
  for (const e of exercises) {
    const r = e.id === "01a" ? { ...report, firstFailure: { test: "x", error: "TODO" } } : report;
    s = run(s, { type: "check-finished", id: e.id, run: s.checks[e.id]!.run, report: r });
  }
  s = run(s, { type: "key", key: "enter" });
  s = run(s, { type: "check-finished", id: "01a", run: s.checks["01a"]!.run, report: pass });
  const moment = s;
  s = run(s, { type: "check-finished", id: "02a", run: s.checks["02a"]!.run, report });
  const shown = run(s, { type: "key", key: "enter" });
  return { moment, shown, hinted: run(shown, { type: "key", key: "h" }) };
}

test("80x24: a wrong 02a answer shows the failing test and its values (3200 !== 1600), also with the hint open; 01a's banner is gone", () => {
  const e02a = EXERCISES.find((e) => e.id === "02a")!;
  assert.ok(e02a.goal.length > 300, "02a's goal takes four lines or more at 80 columns");
  const { moment, shown, hinted } = wrong02a(
    EXERCISES,
    firstFailure(TAP_02A)!.error,
    firstFailure(TAP_02A)!.test,
  );
  const ctx = { color: true, width: 80, rows: 24, lessons: LESSONS };
  // The moment after 01a's pass: its banner, and 02a named (not shown yet).
  const passed = renderScreen(moment, ctx).text.split("\n").map(plain);
  assert.ok(passed.length <= 24 && passed.every((l) => displayWidth(l) <= 80), passed.join("\n"));
  assert.ok(passed.some((l) => l.includes("✓ Exercise 01a passes!")));
  assert.ok(passed.some((l) => l.includes("Next: exercise 02a · ")));
  assert.equal(passed.at(-2), "⏎ next exercise · l list · q quit");
  for (const [what, state] of [
    ["02a failing", shown],
    ["02a failing, hint open", hinted],
  ] as const) {
    const lines = assertFits(renderScreen(state, ctx).text, 80, 24, what);
    const text = flat(lines.join("\n"));
    assert.doesNotMatch(text, /01a passes/, `${what}: the previous exercise's banner`);
    assert.match(
      text,
      /First failing test: the page's question: the nominal wait before the 4th retry/,
    );
    assert.ok(
      lines.includes("    actual:   3200"),
      `${what}: the value it got\n${lines.join("\n")}`,
    );
    assert.ok(lines.includes("    expected: 1600"), `${what}: the value it wanted`);
    assert.match(text, /Goal: the course page's exercise/, `${what}: the goal's first line`);
  }
  // The hint's first line shows too, and the goal gave up its lines before the error did.
  const hintLines = assertFits(renderScreen(hinted, ctx).text, 80, 24, "hint");
  assert.ok(hintLines.some((l) => l.startsWith("  Hint")));
  assert.ok(flat(hintLines.join("\n")).includes(flat(e02a.hintSteps[0]!).slice(0, 30)));
});

test("a failure without compared values keeps its error's first line on a short terminal", () => {
  const { shown } = wrong02a(
    EXERCISES,
    "TypeError: Cannot read properties of undefined (reading 'state')\n    at decide (exercises/02a-codex-backoff.ts:30:11)\n    at more\n    at more",
    "a test",
  );
  const noValues = { ...shown, checks: { ...shown.checks } };
  const check = noValues.checks["02a"]!;
  const { actual: _a, expected: _e, ...rest } = check.report!.firstFailure!;
  noValues.checks["02a"] = { ...check, report: { ...check.report!, firstFailure: rest } };
  const hinted = run(noValues, { type: "key", key: "h" });
  const lines = assertFits(
    renderScreen(hinted, { color: false, width: 80, rows: 24, lessons: LESSONS }).text,
    80,
    24,
    "no values",
  );
  assert.ok(
    lines.some((l) => l.includes("TypeError: Cannot read properties of undefined")),
    lines.join("\n"),
  );
});

test("80x24 in Chinese: the runner's own words are Chinese, every line fits by display width, the values show", () => {
  setLang("zh");
  try {
    // 02a as a Chinese learner meets it: its texts in Chinese (the manifest's [exercises.zh]), the
    // test's name and message in Chinese too (the exercise tests' messages).
    const zh = EXERCISES.map((e) =>
      e.id === "02a"
        ? {
            ...e,
            title: "Codex 的退避：200 ms 起，每次翻倍，±10 %",
            goal: "课程页面的练习。Codex 的采样层在模型请求的响应流出错时会把整个请求再发一次（第 03 课），每次重试之前等待 backoff(attempt) = 200 ms × 2^(attempt−1) × uniform[0.9, 1.1)（openai/codex，`codex-rs/core/src/util.rs`）。第 4 次重试之前的名义等待时间（不算抖动）是多少？写出这两个函数，让测试告诉你答案对不对。",
            hintSteps: [
              "先看名义等待：从 200 ms 开始，第一次重试之后每次翻倍。",
              "第 n 次重试等待 200 × 2^(n−1) ms。",
            ],
          }
        : { ...e, title: "一个练习", goal: "目标。", hintSteps: ["提示。"] },
    );
    const { moment, shown, hinted } = wrong02a(
      zh,
      "第 4 次重试之前的名义等待应当是 1600 ms",
      "课程页面的问题：第 4 次重试之前的名义等待",
    );
    const lessons = listLessons(); // their titles in Chinese
    for (const [what, state] of [
      ["moment", moment],
      ["02a failing", shown],
      ["02a failing, hint open", hinted],
    ] as const) {
      const text = renderScreen(state, { color: true, width: 80, rows: 24, lessons }).text;
      const lines = text.split("\n").map(plain);
      for (const line of lines)
        assert.ok(
          displayWidth(line) <= 80,
          `${what}: ${JSON.stringify(line)} is ${displayWidth(line)} columns`,
        );
      assert.ok(lines.length <= 24, `${what}: ${lines.length} rows`);
      assert.deepEqual(
        englishRuns(lines.join("\n")),
        [],
        `${what}: English left:\n${lines.join("\n")}`,
      );
      if (state !== moment) {
        assert.ok(
          lines.includes("    实际：3200"),
          `${what}: the value it got\n${lines.join("\n")}`,
        );
        assert.ok(lines.includes("    期望：1600"), `${what}: the value it wanted`);
        assert.match(flat(text), /第一个失败的测试：课程页面的问题/);
        assert.match(
          lines.at(-2)!,
          /^h 提示 · l 列表 · r 运行第 02 课 · n 下一道 · p 上一道 · ⏎ 检查 · q 退出$/,
        );
      }
    }
    assert.match(
      flat(renderScreen(hinted, { color: false, width: 80, rows: 24, lessons }).text),
      /提示，第 1 步，共 2 步（按 h 看下一步） 先看名义等待/,
    );
  } finally {
    setLang("en");
  }
});

test("in Chinese, a sentence after a full-width stop follows it without a space", () => {
  setLang("zh");
  try {
    const pass: CheckReport = {
      passed: true,
      timedOut: false,
      counts: { tests: 5, pass: 5, fail: 0 },
      ms: 1,
    };
    let s = run(initialState(EXERCISES), { type: "start" });
    for (const e of EXERCISES)
      s = run(s, { type: "check-finished", id: e.id, run: s.checks[e.id]!.run, report: pass });
    // All pass: the finished banner; then 01a checked again and passing, on its own screen.
    s = run(s, { type: "key", key: "n" });
    s = run(s, {
      type: "check-finished",
      id: s.exercises[s.current]!.id,
      run: s.checks[s.exercises[s.current]!.id]!.run,
      report: pass,
    });
    const text = flat(renderScreen(s, { color: true, width: 100, lessons: listLessons() }).text);
    assert.match(
      text,
      /✓ 测试全部通过（共 5 个）。把你的答案和 solutions\/\S+ 对照一下；按 n 继续。/,
    );
  } finally {
    setLang("en");
  }
});
