// Tests for exercise 06a. Run them with `npm run check 06a`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keyHeaderValues, parseIdempotencyKey } from "../lib/protocol/idempotency-key.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";
import { normalizeTitle as trackerNormalize } from "../lib/tracker/store.ts";

const { normalizeTitle, businessKey } =
  await loadExercise<typeof import("./06a-business-key.ts")>("06a-business-key");

const RUN = "eval-6cb0f7c0";

test("normalizeTitle folds case, punctuation and white space", () => {
  const same = [
    "Login button does nothing",
    "login button does nothing",
    "Login Button Does Nothing",
    "Login button does nothing.",
    "Login button: does NOTHING!",
    "  Login   button\tdoes\nnothing  ",
    "Login button -- does nothing?!",
    "[auth] Login button does nothing",
  ];
  for (const t of same.slice(0, 7))
    assert.equal(normalizeTitle(t), "login button does nothing", JSON.stringify(t));
  assert.equal(
    normalizeTitle(same[7]!),
    "auth login button does nothing",
    "brackets go, the word stays",
  );
});

test("normalizeTitle keeps letters and digits of every script, and folds full-width forms (NFKC)", () => {
  assert.equal(normalizeTitle("Error 500 on /api/v2/reports"), "error 500 on api v2 reports");
  assert.equal(normalizeTitle("Échec de connexion"), "échec de connexion");
  assert.equal(normalizeTitle("登录按钮无效"), "登录按钮无效");
  assert.equal(normalizeTitle("Ｌｏｇｉｎ button does nothing"), "login button does nothing");
  assert.equal(normalizeTitle("!!!"), "");
});

test("normalizeTitle agrees with the tracker's GET /reports?title=, so a key match and a lookup match are one thing", () => {
  const titles = [
    "Login button: does NOTHING!",
    "Search — 100% CPU & crash?",
    "Can't log in",
    "  Ｆｕｌｌ  width ",
    "Échec: connexion",
    "a_b-c.d",
  ];
  for (const t of titles) assert.equal(normalizeTitle(t), trackerNormalize(t), JSON.stringify(t));
});

test("near-duplicate wordings of one report get one key", () => {
  const key = businessKey(RUN, "auth", "Login button does nothing");
  for (const t of [
    "Login Button does nothing.",
    "login button: does NOTHING!",
    "  Login   button does nothing  ",
  ]) {
    assert.equal(businessKey(RUN, "auth", t), key, JSON.stringify(t));
  }
  for (const m of ["Auth", " auth ", "AUTH"])
    assert.equal(
      businessKey(RUN, m, "Login button does nothing"),
      key,
      `module ${JSON.stringify(m)}`,
    );
  assert.equal(
    businessKey(RUN, "auth", "Login button does nothing"),
    key,
    "the same input, the same key, every time",
  );
});

test("another run, another module or other words: another key", () => {
  const key = businessKey(RUN, "auth", "Login button does nothing");
  const others = [
    businessKey("eval-0f7c06cb", "auth", "Login button does nothing"),
    businessKey("EVAL-6CB0F7C0", "auth", "Login button does nothing"),
    businessKey(RUN, "checkout", "Login button does nothing"),
    businessKey(RUN, "auth", "Logout button does nothing"),
    businessKey(RUN, "auth", "Login button does nothing when clicked"),
  ];
  for (const k of others) assert.notEqual(k, key);
  assert.equal(new Set(others).size, others.length, "each of these is a different report");
});

test("the parts cannot run into each other", () => {
  assert.notEqual(businessKey("a:b", "c", "d"), businessKey("a", "b:c", "d"));
  assert.notEqual(
    businessKey("run", "auth login", "button"),
    businessKey("run", "auth", "login button"),
  );
  assert.notEqual(businessKey("run", "", "auth login"), businessKey("run", "auth", "login"));
});

test("every key is a valid Idempotency-Key, quoted (IETF draft) and bare (Stripe), whatever the title", () => {
  const titles = [
    "Login button does nothing",
    "Échec de connexion",
    "登录按钮无效",
    'Quote " and, comma',
    "x".repeat(5000),
    "",
  ];
  for (const t of titles) {
    const key = businessKey(RUN, "auth", t);
    for (const form of [`"${key}"`, key]) {
      const parsed = parseIdempotencyKey(keyHeaderValues(["Idempotency-Key", form]));
      assert.ok(
        parsed.ok,
        `businessKey(…, ${JSON.stringify(t.slice(0, 30))}) = ${JSON.stringify(key)}: ${parsed.ok ? "" : parsed.detail}`,
      );
      assert.equal(parsed.key, key);
    }
  }
});
