/**
 * HTTP plumbing for the tracker: reading a bounded body, validating a report, and answering with
 * JSON or with RFC 9457 problem details (`application/problem+json`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NewReport } from "./store.ts";
import { declaredOver, markOversized } from "./oversized.ts";

/** The largest request body the tracker reads, in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;
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

/** An answer the tracker sends: status, JSON body, extra headers. */
export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A rejected request; the service turns it into a problem+json answer. */
export class HttpError extends Error {
  readonly status: number;
  readonly title: string;
  readonly headers: Record<string, string>;
  constructor(status: number, title: string, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.status = status;
    this.title = title;
    this.headers = headers;
  }
}

/** An RFC 9457 problem details answer. */
export function problem(status: number, title: string, detail: string, headers: Record<string, string> = {}): Answer {
  return {
    status,
    body: { type: "about:blank", title, status, detail },
    headers: { "content-type": "application/problem+json", ...headers },
  };
}

export function answerFromError(err: HttpError): Answer {
  return problem(err.status, err.title, err.message, err.headers);
}

/**
 * The whole raw HTTP answer to a request that node:http refused before any handler ran (its
 * `clientError`), by the parser's error code: problem+json, and the connection closes.
 */
export function rawProblem(code: string | undefined): string {
  const [status, title, detail] =
    code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "Request Timeout", "the request did not arrive in time"]
      : code === "HPE_HEADER_OVERFLOW"
        ? [431, "Request Header Fields Too Large", "the request's headers are too large"]
        : [400, "Bad Request", "the request is not well-formed HTTP/1.1"];
  const body = JSON.stringify(problem(status, title, detail).body) + "\n";
  return `HTTP/1.1 ${status} ${title}\r\nconnection: close\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Writes an answer. */
export function send(res: ServerResponse, answer: Answer): void {
  const text = JSON.stringify(answer.body) + "\n";
  res.writeHead(answer.status, {
    "content-type": "application/json",
    ...answer.headers,
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Reads the whole body, refusing more than `limit` bytes (413) whatever Content-Length claims. A
 * refused request is marked (oversized.ts) and keeps flowing: the service lets its connection read
 * and discard the rest before closing, so that the client, still sending, hears the 413.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const tooLarge = (): HttpError => {
    markOversized(req);
    return new HttpError(413, "Content Too Large", `the body may be at most ${limit} bytes`, { connection: "close" });
  };
  if (declaredOver(req, limit)) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // Not `for await`: leaving that loop early destroys the request, and with it the connection.
      done();
      req.resume();
      reject(tooLarge());
    };
    const onEnd = (): void => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      done();
      reject(err);
    };
    // A client that hangs up mid-body: no "end" comes.
    const onClose = (): void => onError(new Error("the client hung up before the body was complete"));
    const done = (): void => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
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
    if (!allowed.has(k)) throw new HttpError(400, "Bad Request", `unknown field "${k}" (allowed: title, body, module, run)`);
  }
  if (typeof obj.title !== "string" || obj.title.trim() === "") {
    throw new HttpError(400, "Bad Request", '"title" must be a non-empty string');
  }
  if (codePoints(obj.title, MAX_TITLE_CHARS + 1) > MAX_TITLE_CHARS) {
    throw new HttpError(400, "Bad Request", `"title" may be at most ${MAX_TITLE_CHARS} characters`);
  }
  const report: NewReport = { title: obj.title };
  for (const k of ["body", "module", "run"] as const) {
    const v = obj[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") throw new HttpError(400, "Bad Request", `"${k}" must be a string`);
    report[k] = v;
  }
  return report;
}
