/**
 * A probe: one HTTP client library, set up the way its documentation says, behind one uniform
 * `send()`. Every option a probe sets that is not the library's default is listed in `config`, so
 * the lesson can print it: the point is to measure the defaults.
 */

import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { t } from "../core/i18n.ts";
import { listenOnLoopback } from "../core/listen.ts";

export interface ProbeRequest {
  /** The run's base URL; the probe requests `${base}${path}`. */
  base: string;
  /** e.g. "/reports" */
  path: string;
  method: "GET" | "POST";
  /** A JSON body, for POST. */
  body?: unknown;
  /** Extra request headers (the lesson's own Idempotency-Key, in the keyed case). */
  headers?: Record<string, string>;
  /**
   * Only in the "hang" cases: the client's own per-attempt timeout, set through the library's own
   * option (see `Probe.timeoutOption`). Otherwise the library's default timeout applies.
   */
  timeoutMs?: number;
  /** Fired by the lesson only to stop a probe it has seen enough of (never to shorten a wait). */
  signal: AbortSignal;
}

/** Where a default comes from: read at run time from the library, or from its installed source. */
export interface Sourced {
  text: string;
  source: string;
}

export interface Probe {
  /** Short name, used by `--only`, e.g. "got". */
  name: string;
  /** The npm packages involved; their installed versions are printed. */
  packages: string[];
  /** Every non-default option the probe sets for all cases, one line each. */
  config: string[];
  /** How the hang cases set the client's timeout (`timeoutMs`), through the library's own option. */
  timeoutOption: string;
  /** The library's default timeout for one request (a promise where it must be measured). */
  defaultTimeout(): Sourced | Promise<Sourced>;
  /** What its source says about Retry-After beyond what a short run can wait for. */
  retryAfterNote?(): Sourced;
  /** How to use it safely for a POST that must not be done twice: advice, not a measurement. */
  safe: string;
  /** One logical call: resolves when the library reports success, rejects with its final error. */
  send(req: ProbeRequest): Promise<void>;
}

const require = createRequire(import.meta.url);

/** The root folder of an installed package (found from its entry point, so `exports` maps do not matter). */
export function packageDir(name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
      if (pkg.name === name) return dir;
    } catch {
      // no package.json here: keep walking up
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the folder of package ${name}`);
    dir = up;
  }
}

/** The installed version of a package. */
export function packageVersion(name: string): string {
  return (
    JSON.parse(readFileSync(join(packageDir(name), "package.json"), "utf8")) as { version: string }
  ).version;
}

/**
 * Reads a default from the installed source of a package: the first match of `pattern` in `file`
 * (relative to the package's folder). Returns `describe(match)` with the file named as the source,
 * or says plainly that the line was not found (a library upgrade moved it).
 */
export function fromSource(
  pkg: string,
  file: string,
  pattern: RegExp,
  describe: (m: RegExpExecArray) => string,
): Sourced {
  const source = `${pkg} ${file}`;
  let text: string;
  try {
    text = readFileSync(join(packageDir(pkg), file), "utf8");
  } catch {
    return { text: t("? (file not found)"), source };
  }
  const m = pattern.exec(text);
  return m ? { text: describe(m), source } : { text: t("? (not found in source)"), source };
}

/** Milliseconds as a short duration: "10 min", "300 s", "150 ms". */
export function duration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/** An AbortSignal that fires on `signal` or after `timeoutMs` (when given). */
export function withTimeout(signal: AbortSignal, timeoutMs?: number): AbortSignal {
  return timeoutMs === undefined
    ? signal
    : AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
}

/**
 * One attempt with Node's own fetch that throws on any non-2xx answer: what a generic retry
 * wrapper (p-retry, exponential-backoff, cockatiel) needs to retry at all, since fetch itself
 * resolves on a 503 (and the fetch probe's own call, so its final error reads the same). The
 * timeout, in the hang cases, is an AbortSignal per attempt.
 */
export async function fetchOrThrow(req: ProbeRequest): Promise<Response> {
  const init: RequestInit = {
    method: req.method,
    headers: { ...req.headers },
    signal: withTimeout(req.signal, req.timeoutMs),
  };
  if (req.body !== undefined) {
    init.body = JSON.stringify(req.body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const res = await fetch(req.base + req.path, init);
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res;
}

/** The lines of config every generic wrapper adds around fetch. */
export const FETCH_WRAPPER_CONFIG = t(
  "wraps Node's fetch in a function that throws on a non-2xx answer (fetch resolves on a 503)",
);

/** A symbol-keyed property of an object, found by the symbol's description. */
function bySymbol(o: object, description: string): unknown {
  const k = Reflect.ownKeys(o).find(
    (key) => typeof key === "symbol" && key.description === description,
  );
  return k === undefined ? undefined : (o as Record<symbol, unknown>)[k as symbol];
}

/**
 * The headers timeout of the connection Node's own fetch uses: one fetch to a loopback server,
 * then the value is read off the client in fetch's global dispatcher (Node keeps it under
 * `Symbol.for("undici.globalDispatcher.2")`; its undici is the one built into Node,
 * `process.versions.undici`). Undefined if Node's internals have moved.
 */
export async function nodeFetchHeadersTimeoutMs(): Promise<number | undefined> {
  const server = createServer((_req, res) => res.end("ok"));
  const { url } = await listenOnLoopback(server);
  try {
    await (await fetch(url)).arrayBuffer();
    const agent = (globalThis as Record<symbol, unknown>)[Symbol.for("undici.globalDispatcher.2")];
    if (typeof agent !== "object" || agent === null) return undefined;
    const pools = bySymbol(agent, "clients");
    const pool =
      pools instanceof Map ? (pools.get(new URL(url).origin) as object | undefined) : undefined;
    const clients = pool ? bySymbol(pool, "clients") : undefined;
    const client = Array.isArray(clients) ? (clients[0] as object | undefined) : undefined;
    const value = client ? bySymbol(client, "headers timeout") : undefined;
    return typeof value === "number" ? value : undefined;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * Node's fetch default timeout, which every fetch-based probe inherits. Read from what Node's own
 * fetch uses (its built-in undici, not the undici package installed beside it); 300e3 ms is undici's
 * documented default for `headersTimeout` (undici docs/docs/api/Client.md). Only if Node's internals have moved is it read from the
 * installed undici package, and the source says so.
 */
export async function fetchDefaultTimeout(): Promise<Sourced> {
  const versions = { node: process.versions.node, undici: process.versions.undici };
  const ms = await nodeFetchHeadersTimeoutMs();
  if (ms !== undefined) {
    return {
      text: t("{time} for headers (undici Agent)", { time: duration(ms) }),
      source: t(
        "read at run time from the connection Node {node}'s built-in undici {undici} opened for fetch (headersTimeout; undici documents 300e3 ms as its default)",
        versions,
      ),
    };
  }
  const found = fromSource(
    "undici",
    "lib/dispatcher/client.js",
    /this\[kHeadersTimeout\] = headersTimeout != null \? headersTimeout : ([\de]+)/,
    (m) => t("{time} for headers (undici Agent)", { time: duration(Number(m[1])) }),
  );
  return {
    text: found.text,
    source: t(
      "{source}, the installed undici {version}, not Node {node}'s built-in undici {undici}, whose value could not be read",
      { source: found.source, version: packageVersion("undici"), ...versions },
    ),
  };
}
