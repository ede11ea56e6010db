/**
 * A request's fingerprint (draft-ietf-httpapi-idempotency-key-header §2.4: "a fingerprint … MAY be
 * used in conjunction with an idempotency key"): what the request asks for, so that a key reused
 * for a different request is caught (422) instead of replaying an answer to another question.
 *
 * It covers the method, the route and the body as canonical JSON: object keys sorted, no white
 * space, numbers as JSON.stringify writes them. `{"title":"x", "module":"a"}` and
 * `{ "module": "a", "title": "x" }` are the same request.
 *
 * The tracker fingerprints the report as it understands it, not the bytes it received: the parsed
 * and validated report with every field as it would be stored (lib/tracker/report-body.ts
 * `normalisedReport`), so that a retry that adds `"module": null` or `"body": ""` (which the report
 * treats as absent) is the same request.
 */
import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth and no white space. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const fields = Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`);
    return `{${fields.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * sha256 over "METHOD route\ncanonical body", hex. The body is raw JSON text (the service checked it
 * parses) or a value already parsed, such as `normalisedReport(report)`.
 */
export function requestFingerprint(
  method: string,
  route: string,
  body: Buffer | string | object,
): string {
  return fingerprintOfCanonical(
    method,
    route,
    canonicalJson(
      typeof body === "string" || Buffer.isBuffer(body) ? JSON.parse(body.toString()) : body,
    ),
  );
}

function fingerprintOfCanonical(method: string, route: string, body: string): string {
  return createHash("sha256").update(`${method.toUpperCase()} ${route}\n${body}`).digest("hex");
}
