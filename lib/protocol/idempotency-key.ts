/**
 * Reading the `Idempotency-Key` request header, in the two forms clients send:
 *
 * - the IETF draft's form (draft-ietf-httpapi-idempotency-key-header §2.1): an Item Structured Field
 *   whose value "MUST be a String", i.e. an RFC 9651 §3.3.3 sf-string: `"8e03978e-40d5-…"`, quoted,
 *   printable ASCII, with `\"` and `\\` as its only escapes;
 * - Stripe's form: the bare value, `8e03978e-40d5-…`, unquoted.
 *
 * The published rules (the draft asks a resource to publish them, §2.5.2): a key is 1 to 255
 * characters (Stripe's limit) of printable ASCII; a bare key has no space, no `"` and no `,` (a comma
 * could be two header lines joined by a proxy, RFC 9110 §5.3); a quoted key takes no parameters.
 * A request with the header twice is refused: it would name two operations.
 */

import type { KeyForm, KeyParse, KeyProblem } from "./key-parse.ts";

/** The longest key accepted, in characters (after unescaping). */
export const MAX_KEY_CHARS = 255;

export type { KeyForm, KeyParse, KeyProblem };

/**
 * All values of the Idempotency-Key header, one per header line, from `IncomingMessage.rawHeaders`
 * (name, value, name, value, …). `node:http` joins repeated lines into one string in `headers`, so
 * only the raw list shows that a client sent two.
 */
export function keyHeaderValues(rawHeaders: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === "idempotency-key") values.push(rawHeaders[i + 1]!);
  }
  return values;
}

/** Parses the header's values (one per header line) into a key, or says what is wrong with them. */
export function parseIdempotencyKey(values: readonly string[]): KeyParse {
  if (values.length === 0)
    return fail(
      "missing",
      "send an Idempotency-Key header: one key per logical operation, reused on every retry",
    );
  if (values.length > 1)
    return fail(
      "duplicated",
      `the Idempotency-Key header came ${values.length} times; send it once`,
    );
  // HTTP strips the white space around a field value (RFC 9110 §5.5); node:http already has, mostly.
  const text = values[0]!.replace(/^[ \t]+|[ \t]+$/g, "");
  const parsed = text.startsWith('"') ? parseSfString(text) : parseBare(text);
  if (!parsed.ok) return parsed;
  if (parsed.key.length === 0) return fail("empty", "the Idempotency-Key is empty");
  if (parsed.key.length > MAX_KEY_CHARS) {
    return fail(
      "too-long",
      `the Idempotency-Key has ${parsed.key.length} characters; at most ${MAX_KEY_CHARS} are allowed`,
    );
  }
  return parsed;
}

/** RFC 9651 §4.2.5 "Parsing a String", then nothing but white space may follow. */
function parseSfString(text: string): KeyParse {
  let key = "";
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      const next = text[++i];
      if (next !== '"' && next !== "\\") {
        return fail(
          "unparseable",
          'in a quoted Idempotency-Key a backslash may only escape " or \\ (RFC 9651 §3.3.3)',
        );
      }
      key += next;
    } else if (c === '"') {
      if (i !== text.length - 1) {
        return fail(
          "unparseable",
          "nothing may follow the closing quote of the Idempotency-Key (this tracker defines no parameters)",
        );
      }
      return { ok: true, key, form: "sf-string" };
    } else if (!isPrintable(c)) {
      return fail("not-printable", "the Idempotency-Key may hold printable ASCII only (%x20-7E)");
    } else key += c;
  }
  return fail("unparseable", "the quoted Idempotency-Key has no closing quote");
}

/** Stripe's bare form: the value as it stands. */
function parseBare(text: string): KeyParse {
  for (const c of text) {
    if (!isPrintable(c))
      return fail("not-printable", "the Idempotency-Key may hold printable ASCII only (%x20-7E)");
  }
  if (/[ ",]/.test(text)) {
    return fail(
      "unparseable",
      'a bare Idempotency-Key may not hold a space, " or a comma; quote it as an sf-string ("…") instead',
    );
  }
  return { ok: true, key: text, form: "token" };
}

function isPrintable(c: string): boolean {
  const code = c.charCodeAt(0);
  return code >= 0x20 && code <= 0x7e;
}

function fail(problem: KeyProblem, detail: string): KeyParse {
  return { ok: false, problem, detail };
}
