/**
 * A report as the tracker reads it from a request: the JSON body parsed and validated (400, 415 on
 * bad input, nothing stored), and the same report with every field as it would be stored, which is
 * what its fingerprint covers.
 */
import { HttpError } from "../protocol/http.ts";
import type { NewReport } from "./store.ts";

/** The longest title accepted, in characters (Unicode code points: an emoji is one). */
export const MAX_TITLE_CHARS = 500;

/** Strict UTF-8 (fatal: invalid bytes throw); a byte order mark stays, and JSON.parse refuses it as before. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** How many characters (Unicode code points, not UTF-16 units) `text` has, counting no further than `stopAt`. */
export function codePoints(text: string, stopAt = Infinity): number {
  if (text.length <= stopAt) {
    // Fast path: with no surrogate pair, code points are UTF-16 units.
    let pairs = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          pairs++;
          i++;
        }
      }
    }
    return text.length - pairs;
  }
  let n = 0;
  for (const _ of text) if (++n >= stopAt) break;
  return n;
}

/** Parses and validates a report body: JSON object, `title` a non-empty string, the rest optional strings. */
export function parseReport(contentType: string | undefined, raw: Buffer): NewReport {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    throw new HttpError(415, "Unsupported Media Type", "send the report as application/json");
  }
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    // A lenient decoder would turn every bad byte into U+FFFD, and two different bodies into one.
    throw new HttpError(400, "Bad Request", "the body is not valid UTF-8");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "Bad Request", "the body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError(400, "Bad Request", "the body must be a JSON object");
  }
  const obj = value as Record<string, unknown>;
  const allowed = new Set(["title", "body", "module", "run"]);
  for (const k of Object.keys(obj)) {
    if (!allowed.has(k))
      throw new HttpError(
        400,
        "Bad Request",
        `unknown field "${k}" (allowed: title, body, module, run)`,
      );
  }
  if (typeof obj.title !== "string" || obj.title.trim() === "") {
    throw new HttpError(400, "Bad Request", '"title" must be a non-empty string');
  }
  checkText("title", obj.title);
  if (codePoints(obj.title, MAX_TITLE_CHARS + 1) > MAX_TITLE_CHARS) {
    throw new HttpError(400, "Bad Request", `"title" may be at most ${MAX_TITLE_CHARS} characters`);
  }
  const report: NewReport = { title: obj.title };
  for (const k of ["body", "module", "run"] as const) {
    const v = obj[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") throw new HttpError(400, "Bad Request", `"${k}" must be a string`);
    checkText(k, v);
    report[k] = v;
  }
  return report;
}

/**
 * What either store can hold, refused alike on both (400, nothing stored, and the same 400 again on
 * a retry under the same key, since the key is never claimed):
 * - a lone surrogate (`"\ud800"` with no pair) is no Unicode character, as an invalid UTF-8 byte is
 *   none: kept, it is stored as U+FFFD, and the report echoed back under the same key would be
 *   another request (422);
 * - NUL (U+0000): PostgreSQL's `text` cannot hold it, SQLite's can; the rule is the same on both.
 */
function checkText(field: string, value: string): void {
  if (!value.isWellFormed())
    throw new HttpError(
      400,
      "Bad Request",
      `"${field}" holds a lone surrogate (a \\ud800-\\udfff escape without its pair): not a Unicode character`,
    );
  if (value.includes("\0"))
    throw new HttpError(400, "Bad Request", `"${field}" may not contain NUL (U+0000)`);
}

/** A report as the tracker stores it: absent fields as their stored defaults (body "", module and run null). */
export function normalisedReport(report: NewReport): {
  title: string;
  body: string;
  module: string | null;
  run: string | null;
} {
  return {
    title: report.title,
    body: report.body ?? "",
    module: report.module ?? null,
    run: report.run ?? null,
  };
}
