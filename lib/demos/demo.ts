/**
 * What a demo is to the demo server: a page (or several) at a path, a title and a summary for the
 * index, browser bundles, and routes. A demo module exports one `Demo` and is listed once in
 * `registry.ts`; the server does the rest (language, static files, bundles, shutdown).
 *
 * Adding a demo:
 *   1. write `lib/demos/<name>/demo.ts` exporting a `Demo` (see `herd/demo.ts`);
 *   2. add it to `DEMOS` in `lib/demos/registry.ts` (one line).
 * Its `start()` runs once per server and returns the routes; `close()` runs when the server stops
 * (stop child processes, delete files there). Routes are matched in order, demos in registry order,
 * before the static files.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Lang, Text } from "./lang.ts";

export interface RouteContext {
  /** The request's URL, parsed against the server's own origin. */
  url: URL;
  /** The page's language: `?lang=`, else Accept-Language (lang.ts). */
  lang: Lang;
  /** The groups of `path` when it is a RegExp (`match[1]`…), else an empty list. */
  params: readonly string[];
  /** The server's base URL, e.g. http://127.0.0.1:40123 */
  origin: string;
}

export interface DemoRoute {
  /** "GET" (HEAD is answered for GET routes too), "POST", … */
  method: string;
  /** An exact path ("/herd") or a pattern over the path (/^\/step\/([\w-]+)$/). */
  path: string | RegExp;
  /** Answers the request. A throw or rejection becomes a 500 and is logged; never a crash. */
  handle(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): void | Promise<void>;
}

export interface DemoInstance {
  routes: readonly DemoRoute[];
  /** Runs when the server stops (after it stopped accepting requests). */
  close?(): void | Promise<void>;
}

export interface DemoServerInfo {
  /** The server's base URL, e.g. http://127.0.0.1:40123 */
  origin: string;
}

export interface Demo {
  /** The page the index links to, e.g. "/herd". */
  path: string;
  /** For the index: e.g. "Demo 1 · The thundering herd, live". */
  title: Text;
  /** One or two sentences for the index. */
  summary: Text;
  /**
   * Browser code this demo needs, bundled by esbuild when the server starts and served at
   * `/assets/<name>`: name ("herd.js") → entry file, relative to lib/demos/ ("herd/page.ts").
   */
  bundles?: Readonly<Record<string, string>>;
  /** Called once when the server starts. */
  start(info: DemoServerInfo): DemoInstance | Promise<DemoInstance>;
}
