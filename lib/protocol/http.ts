/**
 * What the servers of this workbook (the tracker, the notifier) share, and the key rules they apply
 * alike: answers and RFC 9457 problems, body limits, the Idempotency-Key header, the key decision and
 * its answers, fingerprints, the caller. This module: HTTP plumbing, reading a bounded body and
 * answering with JSON or with problem details (`application/problem+json`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { currentLang } from "../core/lang.ts";
import { declaredOver, markOversized } from "./oversized.ts";

/** The largest request body a server reads, in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

/** An answer a server sends: status, JSON body, extra headers. */
export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * A problem's detail in the reader's language (the workbook's), for a trace; never sent as such.
   * The body's detail is English, unless the client asked for the reader's language (inClientLanguage).
   */
  said?: string;
}

/**
 * The language a client asks for, by its Accept-Language field (RFC 9110 §12.5.4): "zh" when the
 * language range it weights highest (q, the first of equals) is Chinese (`zh`, `zh-CN`, `zh-Hans`…),
 * else "en". A missing or unreadable field is "en".
 */
export function askedLanguage(accept: string | string[] | undefined): "en" | "zh" {
  const field = Array.isArray(accept) ? accept.join(",") : (accept ?? "");
  let best: { range: string; q: number } | undefined;
  for (const part of field.split(",")) {
    const [range = "", ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    if (!/^(\*|[a-z]{1,8}(-[a-z0-9]{1,8})*)$/.test(range)) continue;
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0 || q > 1) continue;
    if (best === undefined || q > best.q) best = { range, q };
  }
  return best !== undefined && (best.range === "zh" || best.range.startsWith("zh-")) ? "zh" : "en";
}

/**
 * The language a problem's detail is written in for a request with these headers: the workbook's
 * own (Chinese) when the client asks for Chinese (askedLanguage) and the workbook speaks it, else
 * English. RFC 9457 §3.1.3 names proactive negotiation (RFC 9110 §12.5.1) as the way a problem's
 * title may be localized; its detail is free text. The workbook's lessons in Chinese send
 * `Accept-Language: zh-CN`.
 */
export function detailLanguage(headers: IncomingMessage["headers"]): "en" | "zh" {
  return askedLanguage(headers["accept-language"]) === "zh" && currentLang() === "zh" ? "zh" : "en";
}

/**
 * `answer` for a client that asked in `lang`: a problem whose reader's-language detail (`said`) is
 * Chinese gets that detail in its body, with `Content-Language: zh-CN`; anything else is sent as it
 * is. Either way a problem says that its text depends on Accept-Language (`Vary`, RFC 9110 §12.5.5).
 */
export function inClientLanguage(answer: Answer, lang: "en" | "zh"): Answer {
  const body = answer.body as { detail?: unknown } | undefined;
  if (
    answer.headers?.["content-type"] !== "application/problem+json" ||
    typeof body?.detail !== "string"
  )
    return answer;
  const headers: Record<string, string> = { vary: "accept-language", ...answer.headers };
  if (lang !== "zh" || answer.said === undefined || headers["content-language"] !== undefined)
    return { ...answer, headers };
  return {
    ...answer,
    body: { ...body, detail: answer.said },
    headers: { ...headers, "content-language": "zh-CN" },
  };
}

/** A rejected request; the server turns it into a problem+json answer. */
export class HttpError extends Error {
  readonly status: number;
  readonly title: string;
  readonly headers: Record<string, string>;
  /** The detail in the reader's language, for a trace (Answer.said). */
  said: string | undefined;
  constructor(status: number, title: string, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.status = status;
    this.title = title;
    this.headers = headers;
  }
}

/** An RFC 9457 problem details answer. */
export function problem(
  status: number,
  title: string,
  detail: string,
  headers: Record<string, string> = {},
): Answer {
  return {
    status,
    body: { type: "about:blank", title, status, detail },
    headers: { "content-type": "application/problem+json", ...headers },
  };
}

export function answerFromError(err: HttpError): Answer {
  const answer = problem(err.status, err.title, err.message, err.headers);
  return err.said === undefined ? answer : { ...answer, said: err.said };
}

/**
 * The path and the query (with its "?", or "") of a request target, as the URL parser reads it; an
 * absolute-form target (`http://host/path`) gives its path alone. Undefined for a target the parser
 * refuses (`//:99999/`, `http://[::1/x`, `http://a%zz/`): the client's error, a 400, never a throw
 * inside a request listener, which would end the whole server.
 */
export function targetPath(
  target: string | undefined,
): { path: string; search: string } | undefined {
  try {
    const url = new URL(target ?? "/", "http://target.invalid");
    return { path: url.pathname, search: url.search };
  } catch {
    return undefined;
  }
}

/** RFC 9112 §3.2's Host: `uri-host [ ":" port ]`, the host an IP-literal, an IPv4 address or a reg-name. */
const HOST_FIELD =
  /^(?:\[(?:[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::[0-9]*)?$/;

/**
 * What is wrong with a request's Host header, or undefined. RFC 9112 §3.2: "A server MUST respond
 * with a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks a Host header
 * field and to any request message that contains more than one Host header field line or a Host
 * header field with an invalid field value." (node:http keeps the first of two Host lines in
 * `headers.host`; only the raw lines show the second.)
 */
export function hostFieldProblem(
  req: Pick<IncomingMessage, "rawHeaders" | "httpVersionMajor" | "httpVersionMinor">,
): string | undefined {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (req.rawHeaders[i]!.toLowerCase() === "host") values.push(req.rawHeaders[i + 1]!);
  if (values.length === 0)
    return req.httpVersionMajor === 1 && req.httpVersionMinor >= 1
      ? "an HTTP/1.1 request needs a Host header"
      : undefined;
  if (values.length > 1) return `a request has one Host header, not ${values.length}`;
  if (!HOST_FIELD.test(values[0]!)) return "the Host header is not a host and port";
  return undefined;
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
  const body = `${JSON.stringify(problem(status, title, detail).body)}\n`;
  return `HTTP/1.1 ${status} ${title}\r\nconnection: close\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Writes an answer. */
export function send(res: ServerResponse, answer: Answer): void {
  const text = `${JSON.stringify(answer.body)}\n`;
  res.writeHead(answer.status, {
    "content-type": "application/json",
    ...answer.headers,
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Reads the whole body, refusing more than `limit` bytes (413) whatever Content-Length claims. A
 * refused request is marked (oversized.ts) and keeps flowing: the server lets its connection read
 * and discard the rest before closing, so that the client, still sending, hears the 413.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const tooLarge = (): HttpError => {
    markOversized(req);
    return new HttpError(413, "Content Too Large", `the body may be at most ${limit} bytes`, {
      connection: "close",
    });
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
    const onClose = (): void =>
      onError(new Error("the client hung up before the body was complete"));
    const done = (): void => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}
