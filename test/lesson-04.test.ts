// Lesson 04, run once: it prints what it measured, each case's report count read from its closing
// table, and names its sources. The same seed's second run, and the runs at 80 and 120 columns, are in
// test/full/.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { runLesson, testRunsCleanly } from "./lesson-run.ts";
import { tableRow } from "./run-helpers.ts";

const LESSON = "lessons/04-idempotency-keys.ts";
const ran = await runLesson([LESSON, "--seed", "1"]);

testRunsCleanly("lesson 04", ran);

test("lesson 04 measures every case: red on naive, fresh-key and key-after, green on keyed with one key", () => {
  const reports = (label: string) => tableRow(ran.stdout, label)?.[1];
  assert.equal(reports("lost response, naive + blind-retry"), "2");
  assert.equal(reports("lost response, keyed + fresh-key"), "2");
  assert.equal(reports("lost response, keyed + same-key"), "1");
  assert.equal(reports("one key at once, key-after"), "2");
  assert.equal(reports("one key at once, keyed"), "1");
  assert.equal(reports("same key, other report"), "1 (other → 422)");
  assert.equal(reports("stored error replayed"), "0");
  assert.equal(reports("killed between commits, key-after"), "2");
  assert.equal(reports("killed between commits, keyed"), "1");
  assert.equal(reports("same key after the TTL"), "2");
  assert.equal(reports("Codex: new request id, same key"), "1");
  // The second answers were replays, said so by the header.
  assert.match(ran.stdout, /the second answer carries Idempotent-Replayed: true/);
  assert.match(ran.stdout, /409 \(Retry-After: 1 s, retry-after-ms: \d+\), then a replay/);
  assert.match(ran.stdout, /422 for the other report; 409 for the same report/);
  assert.match(ran.stdout, /500 twice, the second with Idempotent-Replayed: true/);
  assert.match(ran.stdout, /process killed \(SIGKILL\) at "between-commits"/);
  assert.match(ran.stdout, /at 0 h: 201, at 23 h: 201 replayed, at 25 h: 201/);
  // The header forms: both forms one key, every malformed one a 400.
  assert.deepEqual(tableRow(ran.stdout, "draft: sf-string")?.[2], "201");
  assert.deepEqual(tableRow(ran.stdout, "Stripe: bare")?.[2], "201 (replay)");
  for (const bad of [
    "missing",
    "empty",
    "256 characters",
    "not printable ASCII",
    "no closing quote",
    "bare with a space",
    "two header lines",
  ]) {
    assert.equal(tableRow(ran.stdout, bad)?.[2], "400", bad);
  }
});

test("lesson 04 names its sources where it prints them, and 3a says what its 409 was for", () => {
  const text = ran.stdout.replace(/\s+/g, " ");
  assert.match(
    text,
    /read first \(anthropic-sdk-python's _parse_retry_after_header in _base_client\.py; retryRequest in the client\.ts of the Anthropic and OpenAI TypeScript SDKs\)/,
  );
  assert.match(
    text,
    /a JSON-RPC-style message with its own id \(codex-rs\/app-server-protocol\/src\/jsonrpc_lite\.rs\)/,
  );
  assert.match(
    text,
    /422 for the other report; 409 for the same report, its JSON fields in another order, while the first still ran/,
  );
  assert.doesNotMatch(text, /in another key order/);
});

test("lesson 04 shows no fence before lesson 05 teaches it, and says what Codex's button resets", () => {
  // The server's and the database's lines name a lease, never a fence.
  const events = ran.stdout.split("\n").filter((l) => /^\s+\d+ ms {2}(server|database) /.test(l));
  assert.ok(events.some((l) => /lease \d+ ms/.test(l)));
  assert.deepEqual(
    events.filter((l) => /fence/i.test(l)),
    [],
  );
  const text = ran.stdout.replace(/\s+/g, " ");
  assert.match(text, /Codex's TUI can spend one of your rate-limit reset credits/);
  // The draft's words are quoted from -06, and the lesson says why, having named -07 the latest.
  assert.match(
    text,
    /-07, the latest version, .* The words quoted here are those of -06 \(2025-02\), the last version whose full text this workbook checked/,
  );
});

test("lesson 04's tables are indented like every other table, at 100 columns too", () => {
  // The kept output is the lesson at 100 columns (test/full/ holds it equal to a fresh run).
  const kept = readFileSync("lessons/output/04-idempotency-keys.en.txt", "utf8");
  const lines = [...ran.stdout.split("\n"), ...kept.split("\n")];
  for (const heading of ["case", "form", "request id"]) {
    const rows = lines.filter((l) => l.trimStart().startsWith(`${heading} `) && l.includes("│"));
    assert.ok(rows.length > 0, heading);
    for (const row of rows) assert.match(row, /^ {2}\S/, row);
  }
});
