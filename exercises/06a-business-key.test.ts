// Tests for exercise 06a. Run them with `npm run check 06a`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
import { keyHeaderValues, parseIdempotencyKey } from "../lib/protocol/idempotency-key.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";
import { normalizeTitle as trackerNormalize } from "../lib/tracker/store.ts";

const { normalizeTitle, businessKey } =
  await loadExercise<typeof import("./06a-business-key.ts")>("06a-business-key");

const RUN = "eval-6cb0f7c0";

/** normalizeTitle(title) must give `expected`; `why` says why. */
function normalizes(title: string, expected: string, why: string): void {
  assert.equal(
    normalizeTitle(title),
    expected,
    t("normalizeTitle({title}): {why}", { title: JSON.stringify(title), why }),
  );
}

test(t("normalizeTitle folds case, punctuation and white space"), () => {
  const folds = t(
    "case, punctuation and white space fold away, so the model's rewordings of one title meet",
  );
  for (const title of [
    "Login button does nothing",
    "login button does nothing",
    "Login Button Does Nothing",
    "Login button does nothing.",
    "Login button: does NOTHING!",
    "  Login   button\tdoes\nnothing  ",
    "Login button -- does nothing?!",
  ])
    normalizes(title, "login button does nothing", folds);
  normalizes(
    "[auth] Login button does nothing",
    "auth login button does nothing",
    t("the brackets go, the word in them stays"),
  );
});

test(
  t("normalizeTitle keeps letters and digits of every script, and folds full-width forms (NFKC)"),
  () => {
    normalizes(
      "Error 500 on /api/v2/reports",
      "error 500 on api v2 reports",
      t("digits are kept, and the slashes between them fold to spaces"),
    );
    normalizes(
      "Échec de connexion",
      "échec de connexion",
      t("accented letters are letters: they stay, in lower case"),
    );
    normalizes("登录按钮无效", "登录按钮无效", t("Chinese characters are letters: they stay"));
    normalizes(
      "Ｌｏｇｉｎ button does nothing",
      "login button does nothing",
      t("NFKC turns full-width letters into plain ones"),
    );
    normalizes("!!!", "", t("a title of punctuation only folds to nothing"));
  },
);

test(
  t(
    "normalizeTitle agrees with the tracker's GET /reports?title=, so a key match and a lookup match are one thing",
  ),
  () => {
    for (const title of [
      "Login button: does NOTHING!",
      "Search — 100% CPU & crash?",
      "Can't log in",
      "  Ｆｕｌｌ  width ",
      "Échec: connexion",
      "a_b-c.d",
    ])
      normalizes(
        title,
        trackerNormalize(title),
        t(
          "the tracker's lookup normalises this way: if the key and the lookup disagree, a report the key finds may be one the lookup misses",
        ),
      );
  },
);

test(t("near-duplicate wordings of one report get one key"), () => {
  const key = businessKey(RUN, "auth", "Login button does nothing");
  for (const title of [
    "Login Button does nothing.",
    "login button: does NOTHING!",
    "  Login   button does nothing  ",
  ])
    assert.equal(
      businessKey(RUN, "auth", title),
      key,
      t(
        'businessKey(run, "auth", {title}) differs from the key of "Login button does nothing": the model reworded the same report, and the key must not change',
        { title: JSON.stringify(title) },
      ),
    );
  for (const module of ["Auth", " auth ", "AUTH"])
    assert.equal(
      businessKey(RUN, module, "Login button does nothing"),
      key,
      t(
        'businessKey(run, {module}, …) differs from the key with "auth": the model writes the module too, so it is normalised like the title',
        { module: JSON.stringify(module) },
      ),
    );
  assert.equal(
    businessKey(RUN, "auth", "Login button does nothing"),
    key,
    t(
      "businessKey gave two keys for the same input: the key must depend on its arguments only (no time, no random value)",
    ),
  );
});

test(t("another run, another module or other words: another key"), () => {
  const key = businessKey(RUN, "auth", "Login button does nothing");
  const others: [string, string][] = [
    [t("another run"), businessKey("eval-0f7c06cb", "auth", "Login button does nothing")],
    [
      t("the run in other case (the run is taken exactly as given)"),
      businessKey("EVAL-6CB0F7C0", "auth", "Login button does nothing"),
    ],
    [t("another module"), businessKey(RUN, "checkout", "Login button does nothing")],
    [t("another word in the title"), businessKey(RUN, "auth", "Logout button does nothing")],
    [
      t("more words in the title"),
      businessKey(RUN, "auth", "Login button does nothing when clicked"),
    ],
  ];
  for (const [what, other] of others)
    assert.notEqual(
      other,
      key,
      t(
        "{what} gave the same key: a different report must get a different key, or the tracker replays the wrong one",
        { what },
      ),
    );
  assert.equal(
    new Set(others.map(([, k]) => k)).size,
    others.length,
    t("two of five different reports got the same key"),
  );
});

test(t("the parts cannot run into each other"), () => {
  type Parts = [run: string, module: string, title: string];
  const pairs: [Parts, Parts][] = [
    [
      ["a:b", "c", "d"],
      ["a", "b:c", "d"],
    ],
    [
      ["run", "auth login", "button"],
      ["run", "auth", "login button"],
    ],
    [
      ["run", "", "auth login"],
      ["run", "auth", "login"],
    ],
  ];
  for (const [a, b] of pairs)
    assert.notEqual(
      businessKey(...a),
      businessKey(...b),
      t(
        "{a} and {b} got one key: join the parts so that no two different triples give the same text (JSON of an array does)",
        { a: JSON.stringify(a), b: JSON.stringify(b) },
      ),
    );
});

test(
  t(
    "every key is a valid Idempotency-Key, quoted (IETF draft) and bare (Stripe), whatever the title",
  ),
  () => {
    for (const title of [
      "Login button does nothing",
      "Échec de connexion",
      "登录按钮无效",
      'Quote " and, comma',
      "x".repeat(5000),
      "",
    ]) {
      const key = businessKey(RUN, "auth", title);
      for (const form of [`"${key}"`, key]) {
        const parsed = parseIdempotencyKey(keyHeaderValues(["Idempotency-Key", form]));
        assert.ok(
          parsed.ok,
          t(
            "the key for the title {title} is {key}, which the tracker refuses ({detail}): a key must be printable ASCII, at most 255 characters, with no space, double quote or comma",
            {
              title: JSON.stringify(title.slice(0, 30)),
              key: JSON.stringify(key.length > 70 ? `${key.slice(0, 60)}…` : key),
              detail: parsed.ok ? "" : parsed.detail,
            },
          ),
        );
        assert.equal(
          parsed.key,
          key,
          t("the tracker must read the key back exactly as it was made"),
        );
      }
    }
  },
);
