// Tests for exercise 11a. Run them with `npm run check 11a`. First your function alone, then the
// probe's own checks (lib/probe/checks.ts) against express-idempotency with it in front, as lesson
// 11 runs them: the other-caller check must find no leak, the quoted-key check no duplicate.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { tempFolder } from "../lib/core/scratch.ts";
import { runCell } from "../lib/middleware/cells.ts";
import { rewriteWith } from "../lib/middleware/scoping.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { scopedKey } =
  await loadExercise<typeof import("./11a-caller-scoped-keys.ts")>("11a-caller-scoped-keys");

const ALICE = "Bearer alice";
const BOB = "Bearer bob";
const KEY = "8e03978e-40d5-43e8-bc93-6894a57f9324";

/** The key part of an answer, or a failed assertion saying what came instead. */
function keyOf(scoped: ReturnType<typeof scopedKey>, what: string): string {
  assert.ok(
    scoped !== undefined && "key" in scoped,
    `${what}: expected { key }, got ${JSON.stringify(scoped)}`,
  );
  return scoped.key;
}

test("no Idempotency-Key line: undefined, so the package does nothing", () => {
  assert.equal(scopedKey(ALICE, []), undefined, "a request without the header must give undefined");
  assert.equal(
    scopedKey(undefined, []),
    undefined,
    "an anonymous request without the header must give undefined",
  );
});

test("one caller's quoted and bare forms of a key give one key", () => {
  const bare = keyOf(scopedKey(ALICE, [KEY]), "the bare key");
  const quoted = keyOf(scopedKey(ALICE, [`"${KEY}"`]), "the quoted key");
  assert.equal(quoted, bare, `"${KEY}" (quoted) and ${KEY} (bare) must give the same key`);
  assert.equal(
    keyOf(scopedKey(ALICE, [` ${KEY}\t`]), "the key with white space"),
    bare,
    "white space around the value must not change the key",
  );
  assert.equal(
    keyOf(scopedKey(ALICE, [KEY]), "the same input again"),
    bare,
    "the same input must give the same key every time",
  );
});

test("two callers with the same key get two keys; so do two keys of one caller", () => {
  const alice = keyOf(scopedKey(ALICE, [KEY]), "alice's key");
  assert.notEqual(
    keyOf(scopedKey(BOB, [KEY]), "bob's key"),
    alice,
    "bob's key must differ from alice's for the same Idempotency-Key",
  );
  assert.notEqual(
    keyOf(scopedKey(undefined, [KEY]), "the anonymous key"),
    alice,
    "the anonymous caller's key must differ from alice's",
  );
  assert.notEqual(
    keyOf(scopedKey(ALICE, ["another-key"]), "alice's other key"),
    alice,
    "another Idempotency-Key must give another key",
  );
});

test("no two (caller, key) pairs give one key, whatever characters they hold", () => {
  const pairs: Array<[string | undefined, string]> = [
    ["Bearer a:b", "c"],
    ["Bearer a", "b:c"],
    ["Bearer a", ":b:c"],
    [undefined, "k"],
    ["Bearer k", "k"],
  ];
  const keys = pairs.map(([auth, key]) =>
    keyOf(scopedKey(auth, [key]), `caller ${JSON.stringify(auth)} with key ${key}`),
  );
  assert.equal(
    new Set(keys).size,
    pairs.length,
    `these pairs must give distinct keys: ${JSON.stringify(pairs)} gave ${JSON.stringify(keys)}`,
  );
});

test(
  "the key it returns is a valid bare Idempotency-Key: printable ASCII, no space, quote or " +
    "comma, at most 255",
  () => {
    const tricky: Array<[string | undefined, string]> = [
      [ALICE, KEY],
      ["Bearer ünïcödé", "k"],
      [`Bearer ${"x".repeat(300)}`, "k"],
      [ALICE, `"with \\"quotes\\" and, a comma"`],
    ];
    for (const [auth, key] of tricky) {
      const k = keyOf(scopedKey(auth, [key]), `caller ${JSON.stringify(auth)}, key ${key}`);
      assert.match(
        k,
        /^[\x21-\x7e]{1,255}$/,
        `the key for ${JSON.stringify([auth, key])} must be 1-255 printable characters without ` +
          `spaces, got ${JSON.stringify(k)}`,
      );
      assert.doesNotMatch(
        k,
        /[",]/,
        `the key for ${JSON.stringify([auth, key])} must hold no double quote and no comma`,
      );
    }
  },
);

test("a malformed key, or the header twice, is refused with a reason (then 400)", () => {
  const bad: Array<[string, string[]]> = [
    ["two header lines", [KEY, KEY]],
    ["an empty key", [""]],
    ["a quoted key without its closing quote", ['"abc']],
    ["a bare key with a comma", ["a,b"]],
    ["a key of 256 characters", ["k".repeat(256)]],
  ];
  for (const [what, values] of bad) {
    const scoped = scopedKey(ALICE, values);
    assert.ok(
      scoped !== undefined && "error" in scoped,
      `${what} must give { error }, got ${JSON.stringify(scoped)}`,
    );
    assert.ok(scoped.error.length > 0, `${what}: the error must say what is wrong`);
  }
});

const scratch = tempFolder("exercise-11a-");
after(() => scratch.remove());
const cells = { scratch: (name: string) => `${scratch.dir}/${name}`, seed: 11 };

test(
  "the probe's other-caller check against express-idempotency: without your function it " +
    "leaks, with it each caller gets its own answer",
  async () => {
    const bare = await runCell("express-idempotency", "other-caller", cells);
    assert.ok(bare.ran, "the other-caller check must run against the lesson's server");
    assert.equal(
      bare.judged.verdict,
      "leak",
      "the check must find the leak in the package as installed (else it proves nothing)",
    );
    const scoped = await runCell("express-idempotency", "other-caller", {
      ...cells,
      rewrite: rewriteWith(scopedKey),
    });
    assert.ok(scoped.ran, "the other-caller check must run with your function in front");
    assert.equal(
      scoped.judged.verdict,
      "safe",
      `with your function in front, the second caller must get its own answer; the check saw ` +
        `${JSON.stringify(scoped.facts)}`,
    );
    assert.equal(scoped.facts.rows, 2, "two callers, two reports: one row each");
  },
);

test(
  "the probe's quoted-key check against express-idempotency: with your function the two " +
    "forms are one key",
  async () => {
    const scoped = await runCell("express-idempotency", "quoted-key", {
      ...cells,
      rewrite: rewriteWith(scopedKey),
    });
    assert.ok(scoped.ran, "the quoted-key check must run with your function in front");
    assert.equal(
      scoped.judged.verdict,
      "safe",
      `"k" then k must store one report; the check saw ${JSON.stringify(scoped.facts)}`,
    );
    assert.equal(scoped.facts.rows, 1, "one key in two forms is one operation: one row");
  },
);
