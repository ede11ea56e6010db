// Tests for exercise 04b. Run them with `npm run check 04b`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { parseIdempotencyKey, MAX_KEY_CHARS } =
  await loadExercise<typeof import("./04b-parse-key.ts")>("04b-parse-key");

const uuid = "8e03978e-40d5-43e8-bc93-6894a57f9324";

function accepts(values: string[], key: string, form: "sf-string" | "token"): void {
  const r = parseIdempotencyKey(values);
  assert.deepEqual(
    r.ok ? { key: r.key, form: r.form } : r,
    { key, form },
    `parseIdempotencyKey(${JSON.stringify(values)})`,
  );
}

function refuses(values: string[], problem: string): void {
  const r = parseIdempotencyKey(values);
  assert.equal(
    r.ok ? `accepted as ${JSON.stringify(r.key)}` : r.problem,
    problem,
    `parseIdempotencyKey(${JSON.stringify(values)})`,
  );
  if (!r.ok) assert.ok(r.detail.length > 0, "say what is wrong in detail");
}

test("the draft's form: a quoted sf-string (RFC 9651 §3.3.3)", () => {
  accepts([`"${uuid}"`], uuid, "sf-string");
  accepts(['"with a space, and a comma"'], "with a space, and a comma", "sf-string");
  accepts(['"x"'], "x", "sf-string");
});

test("Stripe's form: the bare value", () => {
  accepts([uuid], uuid, "token");
  accepts(["order_1:retry/7"], "order_1:retry/7", "token");
  accepts(["a\\b"], "a\\b", "token");
});

test('escapes: \\" and \\\\ stand for " and \\', () => {
  accepts(['"say \\"hi\\""'], 'say "hi"', "sf-string");
  accepts(['"back\\\\slash"'], "back\\slash", "sf-string");
  accepts(['"\\\\\\""'], '\\"', "sf-string");
});

test("white space around the value is not part of it", () => {
  accepts([`  "${uuid}"\t`], uuid, "sf-string");
  accepts([` ${uuid} `], uuid, "token");
});

test("no header: missing; two header lines: duplicated", () => {
  refuses([], "missing");
  refuses([uuid, uuid], "duplicated");
  refuses([`"${uuid}"`, uuid], "duplicated");
  refuses(["", ""], "duplicated");
});

test("an empty key, in either form", () => {
  refuses([""], "empty");
  refuses(['""'], "empty");
  refuses(["   "], "empty");
});

test(`at most ${MAX_KEY_CHARS} characters, counted after unescaping`, () => {
  assert.equal(MAX_KEY_CHARS, 255);
  accepts(["k".repeat(255)], "k".repeat(255), "token");
  accepts([`"${"k".repeat(255)}"`], "k".repeat(255), "sf-string");
  accepts([`"${'\\"'.repeat(255)}"`], '"'.repeat(255), "sf-string");
  refuses(["k".repeat(256)], "too-long");
  refuses([`"${"k".repeat(256)}"`], "too-long");
  refuses([`"${'\\"'.repeat(256)}"`], "too-long");
});

test("printable ASCII only (0x20-0x7E)", () => {
  refuses(['"clé"'], "not-printable");
  refuses(["clé"], "not-printable");
  refuses(['"tab\there"'], "not-printable");
  refuses(["nul\u0000"], "not-printable");
  refuses(['"del\u007f"'], "not-printable");
  refuses(["emoji-🔑"], "not-printable");
});

test("what cannot be parsed", () => {
  refuses([`"${uuid}`], "unparseable"); // no closing quote
  refuses(['"bad \\x escape"'], "unparseable"); // a backslash may only escape " or \
  refuses(['"ends in a backslash\\'], "unparseable");
  refuses(['"abc"def'], "unparseable"); // something after the closing quote
  refuses(['"abc";p=1'], "unparseable"); // parameters: this tracker defines none
  refuses(["two words"], "unparseable"); // a bare key has no space
  refuses(['half"quoted'], "unparseable");
  refuses(["a,b"], "unparseable"); // could be two header lines joined by a proxy
});
