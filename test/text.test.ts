// Output fits the terminal (lib/core/text.ts): widths count columns as a terminal shows them (Chinese
// takes two, colour codes none), the helpers wrap between words (and between Chinese characters, never
// before a closing mark), and a lesson's --help fits in 80 columns. Widths here are counted by the tests'
// own rule (`columns` in test/lesson-run.ts), not by the module under test. Every lesson, piped with
// $COLUMNS at 80 and at 120, printing no line wider than that, is in test/full/lessons-width.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { styleText } from "node:util";
import stringWidth from "string-width";
import {
  displayWidth,
  padEnd,
  padStart,
  stripAnsi,
  terminalWidth,
  truncate,
  widestWord,
  wrap,
  wrapHanging,
  wrapKeepingSpaces,
} from "../lib/core/text.ts";
import { Trace } from "../lib/core/trace.ts";
import { table } from "../lib/herd/charts.ts";
import { columns, withoutColour } from "./lesson-run.ts";
import { runTs } from "./run-helpers.ts";

test("the width: the terminal's columns, else $COLUMNS, else 100, never below 40", () => {
  assert.equal(terminalWidth({ isTTY: true, columns: 132 }, { COLUMNS: "80" }), 132);
  assert.equal(terminalWidth({ isTTY: false }, { COLUMNS: "80" }), 80);
  assert.equal(terminalWidth({ isTTY: false }, {}), 100);
  assert.equal(terminalWidth({ isTTY: false }, { COLUMNS: "wide" }), 100);
  assert.equal(terminalWidth({ isTTY: false }, { COLUMNS: "12" }), 40);
});

test("prose is reflowed: pre-wrapped lines are joined, then wrapped between words", () => {
  const text = `The agent files one bug report and waits 150 ms. When no answer comes, it only knows
    "no answer". It cannot see the server.`;
  const lines = wrap(text, 30);
  assert.ok(
    lines.every((l) => l.length <= 30),
    lines.join("|"),
  );
  assert.equal(lines.join(" "), text.replace(/\s+/g, " "));
  // No word is split: every line starts and ends at a word of the text.
  const words = new Set(text.split(/\s+/));
  for (const l of lines)
    for (const w of l.split(" ")) assert.ok(words.has(w), `"${w}" is not a word of the text`);
});

test("a word longer than the line is the only thing ever broken", () => {
  const url = "https://www.rfc-editor.org/rfc/rfc9110.html#section-9.2.2";
  const lines = wrap(`see ${url} now`, 20);
  assert.ok(
    lines.every((l) => l.length <= 20),
    lines.join("|"),
  );
  assert.equal(lines[0], "see");
  assert.equal(lines.join("").replace(/ /g, ""), `see${url}now`);
  // A URL breaks after a slash where one fits.
  assert.deepEqual(lines.slice(1, 3), ["https://", "www.rfc-editor.org/"]);
});

test("a path wider than the line breaks after a slash, its file name kept whole", () => {
  const path = "solutions/04a-lost-response-test.test.ts";
  assert.deepEqual(wrap(`compare with ${path}`, 32), [
    "compare with",
    "solutions/",
    "04a-lost-response-test.test.ts",
  ]);
  assert.deepEqual(wrapKeepingSpaces(`  see:${path}`, 34), [
    "  see:solutions/",
    "    04a-lost-response-test.test.ts",
  ]);
  // Without a slash that fits, the break stays at the edge.
  assert.deepEqual(wrap("abcdefghij/k", 8), ["abcdefgh", "ij/k"]);
});

test("a colour that spans a break is closed and reopened, so each line stands alone", () => {
  const red = "\u001b[31m";
  const reset = "\u001b[39m";
  const lines = wrap(`${red}one two three four${reset} five`, 9);
  assert.deepEqual(lines.map(stripAnsi), ["one two", "three", "four five"]);
  assert.ok(lines[0]!.startsWith(red) && lines[0]!.endsWith("\u001b[0m"));
  assert.ok(lines[1]!.startsWith(red));
  assert.ok(displayWidth(lines[2]!) === 9);
});

test("a trace line too wide wraps under its own indent", () => {
  const lines = wrapKeepingSpaces(`    ${"word ".repeat(30).trim()}`, 40);
  assert.ok(lines.length > 1);
  assert.ok(lines.every((l) => l.length <= 40));
  assert.ok(lines[0]!.startsWith("    word") && lines[1]!.startsWith("      word"));
});

test("a trace fits its events, its 'knows' lines and its tables to its width", () => {
  const out: string[] = [];
  const trace = new Trace({
    color: false,
    step: false,
    width: 60,
    write: (l) => out.push(...l.split("\n")),
  });
  trace.event(
    "server",
    `#1 ${"a long event about what the server did and why it matters ".repeat(3)}`,
  );
  trace.knows(
    "no answer after 150 ms",
    "the first request was still running; it finished after the retry, and then more",
  );
  trace.table(
    ["case", "what the server did", "reports"],
    [["truth 1", "x ".repeat(60).trim(), "1"]],
  );
  assert.ok(
    out.every((l) => columns(l) <= 60),
    out.filter((l) => columns(l) > 60).join("\n"),
  );
  // Continuation lines of an event sit under its text, after the time and the actor.
  assert.match(out[1]!, /^ {20}\S/);
  // The table's row starts with every cell's first line; the count is on it.
  const row = out.find((l) => l.includes("truth 1"))!;
  assert.match(row, /│\s+1\s*$/);
});

test("--help fits too: its options wrap under themselves", async () => {
  const help = await runTs(["lessons/09-your-http-client.ts", "--help"], {
    env: { COLUMNS: "80" },
  });
  assert.equal(help.code, 0, help.stderr);
  const lines = help.stdout.split("\n");
  assert.deepEqual(
    lines.filter((l) => columns(l) > 80),
    [],
  );
  // --only's list of libraries continues under its text, not at the left edge.
  const only = lines.findIndex((l) => l.startsWith("  --only"));
  assert.match(lines[only + 1]!, /^ {27}\S/);
});

test("a narrowed table keeps its row labels and its words whole when it can", () => {
  const table = (width: number): string[] => {
    const out: string[] = [];
    const trace = new Trace({
      color: false,
      step: false,
      width,
      write: (l) => out.push(...l.split("\n")),
    });
    trace.table(header, rows);
    return out;
  };
  const header = [
    "library",
    "own Idempotency-Key (POST, answer lost)",
    "headers that change on a retry",
    "default timeout",
  ];
  const rows = [
    [
      "exponential-backoff",
      "none",
      "x-stainless-retry-count: 0,1,2",
      "5 min for headers (undici Agent)",
    ],
    ["fetch", "none", "– (no retry)", "none (every timeout undefined)"],
  ];
  const words = new Set([...header, ...rows.flat()].flatMap((c) => c.split(/\s+/)));
  // At 80 columns every word fits in its column: none is broken.
  const at80 = table(80);
  assert.ok(
    at80.every((l) => columns(l) <= 80),
    at80.join("\n"),
  );
  for (const l of at80.filter((l) => !l.includes("─")))
    for (const cell of l.split("│"))
      for (const w of cell.trim().split(/\s+/).filter(Boolean))
        assert.ok(words.has(w), `"${w}" is a broken word:\n${at80.join("\n")}`);
  // At 60 some words must break, but the row labels stay whole.
  const at60 = table(60);
  assert.ok(
    at60.every((l) => columns(l) <= 60),
    at60.join("\n"),
  );
  assert.ok(
    at60.some((l) => /^\s*exponential-backoff\s+│/.test(l)),
    at60.join("\n"),
  );
});

// ## Chinese, and Chinese beside English

const red = (s: string): string => styleText("red", s, { validateStream: false });
const RED = "\u001b[31m";
/** Marks that must not start a line, and marks that must not end one. */
const CLOSING = [..."，。、：；？！）」』”…"];
const OPENING = [..."（「『“"];
const ZH =
  "超时不等于失败：请求可能没到，可能到了、做完了、响应在路上丢了，也可能还在做（慢）。盲目重试会造成重复副作用；" +
  "用幂等键（Idempotency-Key）标识一次逻辑操作，同键重放存储的结果。重试 3 次之后，agent 仍然只知道“没有回答”。";

test("display width: a Chinese character or a full-width mark takes two columns; colour codes and combining marks none", () => {
  const samples = [
    ZH,
    "重试 3 次",
    `重试 ${red("3 次")} 之后`,
    "（注意）「键」，。：；？！",
    "cafe\u0301 and nai\u0308ve",
    "✓ ✗ ⧗ ▶ · … ═ █ ▁",
  ];
  for (const s of samples) assert.equal(displayWidth(s), columns(s), s);
  assert.equal(displayWidth("重试 3 次"), 9);
  assert.equal(stripAnsi(`重试 ${red("3 次")}`), "重试 3 次");
  // An emoji is two columns, however many code points it is made of (a skin tone, a family joined by
  // zero-width joiners, a flag of two regional indicators).
  for (const emoji of ["✅", "👍🏽", "👨‍👩‍👧", "🇨🇳"]) assert.equal(displayWidth(emoji), 2, emoji);
});

test("a character's width is string-width's, for every character of the Basic Multilingual Plane", () => {
  // lib/core/text.ts asks string-width only for clusters (an accent, an emoji sequence); a character
  // on its own it looks up itself, by the same rule and table. Both must agree everywhere.
  const differ: string[] = [];
  for (let cp = 0; cp <= 0xffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCharCode(cp);
    if (displayWidth(ch) !== stringWidth(ch))
      differ.push(`U+${cp.toString(16)}: ${displayWidth(ch)} vs ${stringWidth(ch)}`);
  }
  assert.deepEqual(differ.slice(0, 10), [], `${differ.length} characters differ`);
  for (const s of [ZH, "cafe\u0301 na\u0308ive", "✅ 👍🏽 👨‍👩‍👧 🇨🇳 ⚠️", `重试 ${red("3 次")}`])
    assert.equal(displayWidth(s), stringWidth(s), s);
});

test("Chinese wraps between characters by display width, never before a closing mark nor after an opening one", () => {
  for (const width of [12, 13, 17, 20, 31, 40, 58, 80]) {
    const lines = wrap(ZH, width);
    const why = `at ${width}:\n${lines.join("\n")}`;
    assert.ok(lines.length > 1, why);
    assert.deepEqual(
      lines.filter((l) => columns(l) > width),
      [],
      why,
    );
    // Nothing lost or added but the spaces where lines break.
    assert.equal(lines.join("").replace(/ /g, ""), ZH.replace(/ /g, ""), why);
    for (const l of lines) {
      assert.ok(!CLOSING.includes([...l][0]!), `a line starts with a closing mark ${why}`);
      assert.ok(!OPENING.includes([...l].at(-1)!), `a line ends with an opening mark ${why}`);
    }
    // English words are whole where the line is wide enough for them (with the brackets that hold on to
    // them: 19 columns).
    if (width >= 19)
      assert.ok(
        lines.some((l) => l.includes("Idempotency-Key")),
        why,
      );
    assert.ok(
      lines.some((l) => l.includes("agent")),
      why,
    );
  }
  // Read once by a person: lines are filled, a mark stays with the character before it, and
  // "（Idempotency-Key）" (19 columns, no break allowed inside) takes a line of its own.
  assert.deepEqual(wrap(ZH, 20), [
    "超时不等于失败：请求",
    "可能没到，可能到了、",
    "做完了、响应在路上丢",
    "了，也可能还在做",
    "（慢）。盲目重试会造",
    "成重复副作用；用幂等",
    "键",
    "（Idempotency-Key）",
    "标识一次逻辑操作，同",
    "键重放存储的结果。重",
    "试 3 次之后，agent",
    "仍然只知道“没有回",
    "答”。",
  ]);
});

test("a line break in the source between two Chinese characters joins them; beside English it is a space", () => {
  assert.deepEqual(wrap("请求可能没到，\n    可能到了。", 80), ["请求可能没到，可能到了。"]);
  assert.deepEqual(wrap("重试\n    3 次之后，agent\n    仍然不知道", 80), [
    "重试 3 次之后，agent 仍然不知道",
  ]);
});

test("a colour that spans breaks in Chinese is closed at each line's end and opened again on the next", () => {
  const lines = wrap(`重试 ${red("超时不等于失败，请求可能已经到了，做完了")} 之后`, 12);
  assert.deepEqual(lines.map(withoutColour), [
    "重试 超时不",
    "等于失败，请",
    "求可能已经到",
    "了，做完了",
    "之后",
  ]);
  assert.ok(lines[0]!.endsWith("\u001b[0m"));
  for (const l of lines.slice(1, -2))
    assert.ok(l.startsWith(RED) && l.endsWith("\u001b[0m"), JSON.stringify(l));
  assert.ok(
    lines.at(-2)!.startsWith(RED) && lines.at(-2)!.endsWith("\u001b[39m"),
    JSON.stringify(lines.at(-2)),
  );
  assert.equal(lines.at(-1), "之后");
  assert.deepEqual(
    lines.filter((l) => columns(l) > 12),
    [],
  );
});

test("a hanging wrap and a pre-formatted line in Chinese keep their columns", () => {
  const hung = wrapHanging("  提示：", ZH, 40);
  assert.deepEqual(
    hung.filter((l) => columns(l) > 40),
    [],
    hung.join("\n"),
  );
  assert.ok(
    hung.slice(1).every((l) => l.startsWith(" ".repeat(8)) && !l.startsWith(" ".repeat(9))),
    hung.join("\n"),
  );
  // A trace line: its inner runs of spaces stay, its continuation lines hang under it.
  const event = `    12 ms  server    #1 ${ZH}`;
  const fitted = wrapKeepingSpaces(event, 40);
  assert.deepEqual(
    fitted.filter((l) => columns(l) > 40),
    [],
    fitted.join("\n"),
  );
  assert.ok(fitted[0]!.startsWith("    12 ms  server    #1 超时"), fitted.join("\n"));
  for (const l of fitted.slice(1)) {
    assert.match(l, /^ {6}\S/);
    assert.ok(
      !CLOSING.includes(l.trim()[0]!),
      `a line starts with a closing mark:\n${fitted.join("\n")}`,
    );
  }
  assert.equal(fitted.join("").replace(/ /g, ""), event.replace(/ /g, ""));
});

test("a Chinese line cut to a width never splits a character; colour stays closed", () => {
  for (const width of [9, 10, 11, 12]) {
    const cut = truncate(red(ZH), width);
    assert.ok(columns(cut) <= width && columns(cut) >= width - 1, `${width}: ${cut}`);
    assert.ok(cut.endsWith("…\u001b[0m"), JSON.stringify(cut));
  }
  assert.equal(truncate("重试 3 次", 9), "重试 3 次");
  // "次" would take the eighth and ninth columns, the "…" the ninth.
  assert.equal(truncate("重试 3 次之后", 9), "重试 3 …");
  assert.equal(truncate("重试次数", 6), "重试…");
});

test("padding by display width: Chinese cells line up with English ones", () => {
  assert.equal(padEnd("重试", 6), "重试  ");
  assert.equal(padStart("重试", 6), "  重试");
  assert.equal(padEnd(red("重试"), 6), `${red("重试")}  `);
  assert.equal(padEnd("重试次数", 6), "重试次数");
  assert.equal(widestWord("重试 3 次，agent"), 5);
  assert.equal(widestWord("次，再"), 4);
});

test("a trace's table with Chinese cells stays aligned, also when its cells wrap", () => {
  const header = ["策略", "请求数", "说明"];
  const rows = [
    ["无抖动", "55", "所有 agent 同时重试，请求挤在同一个时刻"],
    ["Full Jitter", "39", "等待时间在 0 和封顶指数值之间均匀抽取，请求分散开"],
    ["decorrelated", "41", "下一次等待取决于上一次（base 到 3 倍之间）"],
  ];
  for (const width of [100, 60, 44]) {
    const out: string[] = [];
    const trace = new Trace({
      color: true,
      step: false,
      width,
      write: (l) => out.push(...l.split("\n")),
    });
    trace.table(header, rows);
    const why = out.map(withoutColour).join("\n");
    assert.deepEqual(
      out.filter((l) => columns(l) > width),
      [],
      why,
    );
    // Every row's separators at the same columns as the header's (counted by the tests' own rule).
    const bars = (l: string): number[] => {
      const plain = withoutColour(l);
      return [...plain.matchAll(/[│┼]/g)].map((m) => columns(plain.slice(0, m.index)));
    };
    const at = bars(out[0]!);
    assert.equal(at.length, 2, why);
    for (const l of out) assert.deepEqual(bars(l), at, `${width}: ${why}`);
    // Each cell reads whole, top to bottom.
    const third = out.slice(2).map((l) => withoutColour(l).split("│")[2]!.trim());
    assert.equal(
      third.join("").replace(/ /g, ""),
      rows
        .map((r) => r[2])
        .join("")
        .replace(/ /g, ""),
      why,
    );
  }
});

test("a Chinese trace fits its width, colour on: title, section, prose, events, what the agent knows", () => {
  for (const width of [40, 60, 80]) {
    const out: string[] = [];
    const trace = new Trace({
      color: true,
      step: false,
      width,
      write: (l) => out.push(...l.split("\n")),
    });
    trace.title("第 1 课：超时的三种真相（请求没到、响应丢了、还在做）");
    trace.section("情况 2：到了，做完了，响应在路上丢了");
    trace.prose(ZH);
    trace.event("server", `#1 ${ZH}`, "bad");
    trace.knows("150 ms 内没有回答", ZH, "agent 知道：");
    trace.line(`  ${trace.style("bold", "数据库里的报告：2")}  ${ZH}`);
    assert.ok(
      out.some((l) => l.includes("\u001b[")),
      "the trace had colour",
    );
    assert.deepEqual(
      out.filter((l) => columns(l) > width),
      [],
      `at ${width}:\n${out.map(withoutColour).join("\n")}`,
    );
    for (const l of out.map(withoutColour))
      assert.ok(
        !CLOSING.includes(l.trim()[0] ?? ""),
        `a line starts with a closing mark at ${width}:\n${out.map(withoutColour).join("\n")}`,
      );
  }
});

test("the herd's text table lines up Chinese headers and cells by display width", () => {
  const lines = table(
    ["策略", "写入次数", "完成时间"],
    [
      ["无抖动", "2,431", "2,029 ms"],
      ["Full Jitter", "796", "4,909 ms"],
    ],
  ).split("\n");
  const ends = lines.map((l) => columns(l.trimEnd()));
  // Numbers are right-aligned: every line (the rule too) ends at the same column.
  assert.deepEqual(new Set(ends).size, 1, lines.join("\n"));
});
