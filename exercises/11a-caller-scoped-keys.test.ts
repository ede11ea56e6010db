// Tests for exercise 11a. Run them with `npm run check 11a`. First your function alone, then the
// probe's own checks (lib/probe/checks.ts) against express-idempotency with it in front, as lesson
// 11 runs them: the other-caller check must find no leak, the quoted-key check no duplicate.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { t } from "../lib/core/i18n.ts";
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
    t("{what} must give an object with a key, and gave {scoped}", {
      what,
      scoped: JSON.stringify(scoped),
    }),
  );
  return scoped.key;
}

test(t("no Idempotency-Key line: undefined, so the package does nothing"), () => {
  assert.equal(
    scopedKey(ALICE, []),
    undefined,
    t("a request without the header must give undefined: the package then does nothing, as before"),
  );
  assert.equal(
    scopedKey(undefined, []),
    undefined,
    t("an anonymous request without the header must give undefined"),
  );
});

test(t("one caller's quoted and bare forms of a key give one key"), () => {
  const bare = keyOf(scopedKey(ALICE, [KEY]), t("the bare key"));
  const quoted = keyOf(scopedKey(ALICE, [`"${KEY}"`]), t("the quoted key"));
  assert.equal(
    quoted,
    bare,
    t(
      "the quoted and the bare form of one key must give the same key: the client meant one operation",
    ),
  );
  assert.equal(
    keyOf(scopedKey(ALICE, [` ${KEY}\t`]), t("the key with white space around it")),
    bare,
    t("white space around the value must not change the key"),
  );
  assert.equal(
    keyOf(scopedKey(ALICE, [KEY]), t("the same input again")),
    bare,
    t("the same input must give the same key every time: no time, no random value"),
  );
});

test(t("two callers with the same key get two keys; so do two keys of one caller"), () => {
  const alice = keyOf(scopedKey(ALICE, [KEY]), t("alice's key"));
  assert.notEqual(
    keyOf(scopedKey(BOB, [KEY]), t("bob's key")),
    alice,
    t(
      "bob's key must differ from alice's for the same Idempotency-Key, or bob gets alice's stored answer",
    ),
  );
  assert.notEqual(
    keyOf(scopedKey(undefined, [KEY]), t("the anonymous key")),
    alice,
    t("the anonymous caller's key must differ from alice's"),
  );
  assert.notEqual(
    keyOf(scopedKey(ALICE, ["another-key"]), t("alice's other key")),
    alice,
    t("another Idempotency-Key must give another key: it names another operation"),
  );
});

test(t("no two (caller, key) pairs give one key, whatever characters they hold"), () => {
  const pairs: Array<[string | undefined, string]> = [
    ["Bearer a:b", "c"],
    ["Bearer a", "b:c"],
    ["Bearer a", ":b:c"],
    [undefined, "k"],
    ["Bearer k", "k"],
  ];
  const keys = pairs.map(([auth, key]) =>
    keyOf(
      scopedKey(auth, [key]),
      t("caller {caller} with key {key}", { caller: JSON.stringify(auth), key }),
    ),
  );
  assert.equal(
    new Set(keys).size,
    pairs.length,
    t(
      "these pairs must give distinct keys, or one caller gets another's answer: {pairs} gave {keys}",
      {
        pairs: JSON.stringify(pairs),
        keys: JSON.stringify(keys),
      },
    ),
  );
});

test(
  t(
    "the key it returns is a valid bare Idempotency-Key: printable ASCII, no space, quote or comma, at most 255",
  ),
  () => {
    const tricky: Array<[string | undefined, string]> = [
      [ALICE, KEY],
      ["Bearer ünïcödé", "k"],
      [`Bearer ${"x".repeat(300)}`, "k"],
      [ALICE, `"with \\"quotes\\" and, a comma"`],
    ];
    for (const [auth, key] of tricky) {
      const k = keyOf(
        scopedKey(auth, [key]),
        t("caller {caller} with key {key}", { caller: JSON.stringify(auth), key }),
      );
      assert.match(
        k,
        /^[\x21-\x7e]{1,255}$/,
        t(
          "the key for {pair} must be 1-255 printable characters without spaces, to go back into the header; got {key}",
          {
            pair: JSON.stringify([auth, key]),
            key: JSON.stringify(k),
          },
        ),
      );
      assert.doesNotMatch(
        k,
        /[",]/,
        t(
          "the key for {pair} must hold no double quote and no comma, to go back into the header as a bare key",
          {
            pair: JSON.stringify([auth, key]),
          },
        ),
      );
    }
  },
);

test(t("a malformed key, or the header twice, is refused with a reason (then 400)"), () => {
  const bad: Array<[string, string[]]> = [
    [t("two header lines"), [KEY, KEY]],
    [t("an empty key"), [""]],
    [t("a quoted key without its closing quote"), ['"abc']],
    [t("a bare key with a comma"), ["a,b"]],
    [t("a key of 256 characters"), ["k".repeat(256)]],
  ];
  for (const [what, values] of bad) {
    const scoped = scopedKey(ALICE, values);
    assert.ok(
      scoped !== undefined && "error" in scoped,
      t("{what} must be refused with an error (the server answers 400), and gave {scoped}", {
        what,
        scoped: JSON.stringify(scoped),
      }),
    );
    assert.ok(
      scoped.error.length > 0,
      t("{what}: the error must say what is wrong, for the client to read in the 400", { what }),
    );
  }
});

const scratch = tempFolder("exercise-11a-");
after(() => scratch.remove());
const cells = { scratch: (name: string) => `${scratch.dir}/${name}`, seed: 11 };

test(
  t(
    "the probe's other-caller check against express-idempotency: without your function it leaks, with it each caller gets its own answer",
  ),
  async () => {
    const bare = await runCell("express-idempotency", "other-caller", cells);
    assert.ok(bare.ran, t("the other-caller check must run against the lesson's server"));
    assert.equal(
      bare.judged.verdict,
      "leak",
      t("the check must find the leak in the package as installed (else it proves nothing)"),
    );
    const scoped = await runCell("express-idempotency", "other-caller", {
      ...cells,
      rewrite: rewriteWith(scopedKey),
    });
    assert.ok(scoped.ran, t("the other-caller check must run with your function in front"));
    assert.equal(
      scoped.judged.verdict,
      "safe",
      t(
        "with your function in front, the second caller must get its own answer; the check saw {facts}",
        {
          facts: JSON.stringify(scoped.facts),
        },
      ),
    );
    assert.equal(scoped.facts.rows, 2, t("two callers, two reports: one row each"));
  },
);

test(
  t(
    "the probe's quoted-key check against express-idempotency: with your function the two forms are one key",
  ),
  async () => {
    const scoped = await runCell("express-idempotency", "quoted-key", {
      ...cells,
      rewrite: rewriteWith(scopedKey),
    });
    assert.ok(scoped.ran, t("the quoted-key check must run with your function in front"));
    assert.equal(
      scoped.judged.verdict,
      "safe",
      t('"k" then k must store one report; the check saw {facts}', {
        facts: JSON.stringify(scoped.facts),
      }),
    );
    assert.equal(scoped.facts.rows, 1, t("one key in two forms is one operation: one row"));
  },
);
