// Output fits the terminal: the helpers behind it wrap between words, and a lesson's --help fits in 80
// columns. Every lesson, piped with $COLUMNS at 80 and at 120, printing no line wider than that, is in
// test/full/lessons-width.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Trace } from "../lib/core/trace.ts";
import { fitLine, stripAnsi, terminalWidth, visibleWidth, wrapText } from "../lib/core/width.ts";
import { columns } from "./lesson-run.ts";
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
  const lines = wrapText(text, 30);
  assert.ok(lines.every((l) => l.length <= 30), lines.join("|"));
  assert.equal(lines.join(" "), text.replace(/\s+/g, " "));
  // No word is split: every line starts and ends at a word of the text.
  const words = new Set(text.split(/\s+/));
  for (const l of lines) for (const w of l.split(" ")) assert.ok(words.has(w), `"${w}" is not a word of the text`);
});

test("a word longer than the line is the only thing ever broken", () => {
  const url = "https://www.rfc-editor.org/rfc/rfc9110.html#section-9.2.2";
  const lines = wrapText(`see ${url} now`, 20);
  assert.ok(lines.every((l) => l.length <= 20), lines.join("|"));
  assert.equal(lines[0], "see");
  assert.equal(lines.join(""), `see${url}now`);
});

test("a colour that spans a break is closed and reopened, so each line stands alone", () => {
  const red = "\u001b[31m";
  const reset = "\u001b[39m";
  const lines = wrapText(`${red}one two three four${reset} five`, 9);
  assert.deepEqual(lines.map(stripAnsi), ["one two", "three", "four five"]);
  assert.ok(lines[0]!.startsWith(red) && lines[0]!.endsWith("\u001b[0m"));
  assert.ok(lines[1]!.startsWith(red));
  assert.ok(visibleWidth(lines[2]!) === 9);
});

test("a trace line too wide wraps under its own indent", () => {
  const lines = fitLine(`    ${"word ".repeat(30).trim()}`, 40);
  assert.ok(lines.length > 1);
  assert.ok(lines.every((l) => l.length <= 40));
  assert.ok(lines[0]!.startsWith("    word") && lines[1]!.startsWith("      word"));
});

test("a trace fits its events, its 'knows' lines and its tables to its width", () => {
  const out: string[] = [];
  const trace = new Trace({ color: false, step: false, width: 60, write: (l) => out.push(...l.split("\n")) });
  trace.event("server", "#1 " + "a long event about what the server did and why it matters ".repeat(3));
  trace.knows("no answer after 150 ms", "the first request was still running; it finished after the retry, and then more");
  trace.table(["case", "what the server did", "reports"], [["truth 1", "x ".repeat(60).trim(), "1"]]);
  assert.ok(out.every((l) => columns(l) <= 60), out.filter((l) => columns(l) > 60).join("\n"));
  // Continuation lines of an event sit under its text, after the time and the actor.
  assert.match(out[1]!, /^ {20}\S/);
  // The table's row starts with every cell's first line; the count is on it.
  const row = out.find((l) => l.includes("truth 1"))!;
  assert.match(row, /│\s+1\s*$/);
});

test("--help fits too: its options wrap under themselves", async () => {
  const help = await runTs(["lessons/09-your-http-client.ts", "--help"], { env: { COLUMNS: "80" } });
  assert.equal(help.code, 0, help.stderr);
  const lines = help.stdout.split("\n");
  assert.deepEqual(lines.filter((l) => columns(l) > 80), []);
  // --only's list of libraries continues under its text, not at the left edge.
  const only = lines.findIndex((l) => l.startsWith("  --only"));
  assert.match(lines[only + 1]!, /^ {27}\S/);
});

test("a narrowed table keeps its row labels and its words whole when it can", () => {
  const table = (width: number): string[] => {
    const out: string[] = [];
    const trace = new Trace({ color: false, step: false, width, write: (l) => out.push(...l.split("\n")) });
    trace.table(header, rows);
    return out;
  };
  const header = ["library", "own Idempotency-Key (POST, answer lost)", "headers that change on a retry", "default timeout"];
  const rows = [
    ["exponential-backoff", "none", "x-stainless-retry-count: 0,1,2", "5 min for headers (undici Agent)"],
    ["fetch", "none", "– (no retry)", "none (every timeout undefined)"],
  ];
  const words = new Set([...header, ...rows.flat()].flatMap((c) => c.split(/\s+/)));
  // At 80 columns every word fits in its column: none is broken.
  const at80 = table(80);
  assert.ok(at80.every((l) => columns(l) <= 80), at80.join("\n"));
  for (const l of at80.filter((l) => !l.includes("─")))
    for (const cell of l.split("│")) for (const w of cell.trim().split(/\s+/).filter(Boolean)) assert.ok(words.has(w), `"${w}" is a broken word:\n${at80.join("\n")}`);
  // At 60 some words must break, but the row labels stay whole.
  const at60 = table(60);
  assert.ok(at60.every((l) => columns(l) <= 60), at60.join("\n"));
  assert.ok(at60.some((l) => /^\s*exponential-backoff\s+│/.test(l)), at60.join("\n"));
});
