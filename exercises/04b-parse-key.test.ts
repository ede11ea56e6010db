// Tests for exercise 04b. Run them with `npm run check 04b`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { t } from "../lib/core/i18n.ts";
import { loadExercise } from "../lib/runner/exercise-target.ts";

const { parseIdempotencyKey, MAX_KEY_CHARS } =
  await loadExercise<typeof import("./04b-parse-key.ts")>("04b-parse-key");

const uuid = "8e03978e-40d5-43e8-bc93-6894a57f9324";

/** The header lines as the message shows them: short enough to read. */
function shown(values: string[]): string {
  const text = JSON.stringify(values);
  return text.length > 70 ? `${text.slice(0, 60)}…(${text.length})` : text;
}

/** `values` must give `key` in `form`; `why` says why. */
function accepts(values: string[], key: string, form: "sf-string" | "token", why: string): void {
  const r = parseIdempotencyKey(values);
  assert.deepEqual(
    r.ok ? { key: r.key, form: r.form } : r,
    { key, form },
    t("parseIdempotencyKey({values}) must accept the key: {why}", { values: shown(values), why }),
  );
}

/** `values` must be refused with `problem`; `why` says why. */
function refuses(values: string[], problem: string, why: string): void {
  const r = parseIdempotencyKey(values);
  assert.equal(
    r.ok ? t("accepted, as the key {key}", { key: JSON.stringify(r.key) }) : r.problem,
    problem,
    t('parseIdempotencyKey({values}) must refuse it as "{problem}": {why}', {
      values: shown(values),
      problem,
      why,
    }),
  );
  if (!r.ok)
    assert.ok(
      r.detail.length > 0,
      t("a refusal's detail must say what is wrong: the tracker sends it to the client in its 400"),
    );
}

test(t("the draft's form: a quoted sf-string (RFC 9651 §3.3.3)"), () => {
  const quoted = t(
    "a quoted value is the IETF draft's form; the key is what lies between the quotes",
  );
  accepts([`"${uuid}"`], uuid, "sf-string", quoted);
  accepts(['"with a space, and a comma"'], "with a space, and a comma", "sf-string", quoted);
  accepts(['"x"'], "x", "sf-string", quoted);
});

test(t("Stripe's form: the bare value"), () => {
  const bare = t(
    "an unquoted value is Stripe's form; the key is the value itself, backslashes and all",
  );
  accepts([uuid], uuid, "token", bare);
  accepts(["order_1:retry/7"], "order_1:retry/7", "token", bare);
  accepts(["a\\b"], "a\\b", "token", bare);
});

test(t('escapes: \\" and \\\\ stand for " and \\'), () => {
  const escapes = t(
    "inside quotes a backslash escapes the next character, which must be a double quote or a backslash",
  );
  accepts(['"say \\"hi\\""'], 'say "hi"', "sf-string", escapes);
  accepts(['"back\\\\slash"'], "back\\slash", "sf-string", escapes);
  accepts(['"\\\\\\""'], '\\"', "sf-string", escapes);
});

test(t("white space around the value is not part of it"), () => {
  const space = t("spaces and tabs around a header value are not part of it (RFC 9110 §5.5)");
  accepts([`  "${uuid}"\t`], uuid, "sf-string", space);
  accepts([` ${uuid} `], uuid, "token", space);
});

test(t("no header: missing; two header lines: duplicated"), () => {
  refuses([], "missing", t("no header line: there is no key to read"));
  const twice = t(
    "two header lines name two operations; the tracker cannot tell which one is meant",
  );
  refuses([uuid, uuid], "duplicated", twice);
  refuses([`"${uuid}"`, uuid], "duplicated", twice);
  refuses(["", ""], "duplicated", twice);
});

test(t("an empty key, in either form"), () => {
  const empty = t("an empty key names no operation, in either form");
  refuses([""], "empty", empty);
  refuses(['""'], "empty", empty);
  refuses(["   "], "empty", empty);
});

test(t("at most {max} characters, counted after unescaping", { max: MAX_KEY_CHARS }), () => {
  assert.equal(MAX_KEY_CHARS, 255, t("MAX_KEY_CHARS is Stripe's limit, 255 characters"));
  const fits = t("255 characters fit, counted after unescaping");
  accepts(["k".repeat(255)], "k".repeat(255), "token", fits);
  accepts([`"${"k".repeat(255)}"`], "k".repeat(255), "sf-string", fits);
  accepts([`"${'\\"'.repeat(255)}"`], '"'.repeat(255), "sf-string", fits);
  const over = t("256 characters are one too many, counted after unescaping");
  refuses(["k".repeat(256)], "too-long", over);
  refuses([`"${"k".repeat(256)}"`], "too-long", over);
  refuses([`"${'\\"'.repeat(256)}"`], "too-long", over);
});

test(t("printable ASCII only (0x20-0x7E)"), () => {
  const printable = t(
    "a key holds printable ASCII only, 0x20 to 0x7E: no accents, tabs, control characters or emoji",
  );
  for (const values of [
    ['"clé"'],
    ["clé"],
    ['"tab\there"'],
    ["nul\u0000"],
    ['"del\u007f"'],
    ["emoji-🔑"],
  ])
    refuses(values, "not-printable", printable);
});

test(t("what cannot be parsed"), () => {
  refuses([`"${uuid}`], "unparseable", t("the closing quote is missing"));
  refuses(
    ['"bad \\x escape"'],
    "unparseable",
    t("a backslash may only escape a double quote or a backslash"),
  );
  refuses(
    ['"ends in a backslash\\'],
    "unparseable",
    t("a backslash at the end escapes nothing, and the closing quote is missing"),
  );
  refuses(['"abc"def'], "unparseable", t("nothing may follow the closing quote"));
  refuses(
    ['"abc";p=1'],
    "unparseable",
    t("parameters after the quoted key: this tracker defines none"),
  );
  refuses(["two words"], "unparseable", t("a bare key has no space"));
  refuses(['half"quoted'], "unparseable", t("a bare key has no double quote"));
  refuses(
    ["a,b"],
    "unparseable",
    t("a bare key has no comma: it could be two header lines joined by a proxy"),
  );
});
