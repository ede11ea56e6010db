/**
 * The demo server: `node:http` on 127.0.0.1 (never all interfaces), port 0 unless told otherwise.
 * It serves
 * - `/`: the index of the demos (registry.ts), in the visitor's language (lang.ts);
 * - each demo's routes (demo.ts says how a demo adds its own);
 * - `/assets/<name>`: the demos' browser bundles, built by esbuild at start (bundle.ts);
 * - `/static/<file>`: files from lib/demos/static/ and nothing else: a path that would leave that
 *   folder (`/../package.json`, `/static/../server.ts`, encoded or not) is 404.
 * Every answer carries a Content-Security-Policy that allows this origin only, so a page cannot
 * load a byte from anywhere else (no CDN, no outside font) even by mistake. Requests must name
 * this server in their Host header (127.0.0.1 or localhost), which keeps other web pages from
 * reaching it through DNS rebinding. That does not stop a page on another origin from sending a
 * command here (a "simple" POST, `mode: "no-cors"`, text/plain: the browser sends it with the right
 * Host and no preflight, and only hides the answer): every request that is not GET or HEAD must come
 * from this server's own pages, as its Origin and Sec-Fetch-Site headers say (crossSite below), or it
 * is 403.
 */

import { readFile, realpath, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { extname, join, sep } from "node:path";
import { listenOnLoopback } from "../core/listen.ts";
import { bundle, DEMOS_DIR } from "./bundle.ts";
import type { Demo, DemoInstance, DemoRoute, RouteContext } from "./demo.ts";
import { escapeHtml, pageHtml } from "./html.ts";
import { pickLang, type Text } from "./lang.ts";
import { DEMOS } from "./registry.ts";

/** The only folder static files come from. */
export const STATIC_DIR = join(DEMOS_DIR, "static");

const CONTENT_TYPES: Record<string, string> = {
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".txt": "text/plain; charset=utf-8",
};

/** This origin only; inline styles for the SVG charts' attributes; blob: for downloads. */
export const CSP =
  "default-src 'self'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
  "form-action 'self'; frame-ancestors 'none'";

export interface DemoServerOptions {
  /** Default 0: the system picks a free port. */
  port?: number;
  /** Default: every demo of registry.ts. */
  demos?: readonly Demo[];
  /** Where errors inside a route go. Default: stderr. */
  log?: (line: string) => void;
}

export interface DemoServer {
  /** e.g. http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  port: number;
  /** Stops accepting, ends open connections, runs each demo's close hook. Safe to call twice. */
  close(): Promise<void>;
}

const INDEX_TEXT: Record<string, Text> = {
  title: { en: "Demos: retries, backoff and idempotency keys", zh: "演示：重试、退避与幂等键" },
  intro: {
    en: "Everything on these pages runs on your machine: this server and your browser, with no network beyond it.",
    zh: "这些页面上的一切都在你自己的机器上运行：这台演示服务器加上你的浏览器，不需要联网。",
  },
  notFound: { en: "Not found", zh: "没有这个页面" },
  crossSite: {
    en: "This server takes commands only from its own pages.",
    zh: "这台演示服务器只接受它自己页面发来的操作。",
  },
  badTarget: {
    en: "Bad request: the address is not a valid URL.",
    zh: "请求有误：地址不是合法的 URL。",
  },
};

/**
 * Why a request that changes something (not GET or HEAD) is refused as coming from another site, or
 * undefined when it comes from one of `origins` (this server's own) or from no browser at all. A
 * browser says where a request comes from: `Sec-Fetch-Site` (same-origin, same-site, cross-site, or
 * none for one the user typed) and `Origin`, which every current browser sends on a POST, a
 * `no-cors` one included ("null" from a sandboxed or file: page). A client that is no browser
 * (curl, the tests) sends neither, and cannot be made to by a web page.
 */
export function crossSite(
  headers: { origin?: string | undefined; "sec-fetch-site"?: string | string[] | undefined },
  origins: ReadonlySet<string>,
): string | undefined {
  const site = headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none")
    return `Sec-Fetch-Site: ${site}`;
  const origin = headers.origin;
  if (origin !== undefined && !origins.has(origin.toLowerCase())) return `Origin: ${origin}`;
  return undefined;
}

/** Starts the server; resolves once it listens. */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const demos = options.demos ?? DEMOS;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  // The bundles first: a build error stops the start with esbuild's message.
  const assets = new Map<string, string>();
  await Promise.all(
    demos.flatMap((d) =>
      Object.entries(d.bundles ?? {}).map(async ([name, entry]) => {
        assets.set(name, await bundle(entry));
      }),
    ),
  );

  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 });
  const { port, url: origin } = await listenOnLoopback(server, options.port ?? 0);
  const allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const ownOrigins = new Set([...allowedHosts].map((host) => `http://${host}`));

  const instances: DemoInstance[] = [];
  try {
    for (const d of demos) instances.push(await d.start({ origin }));
  } catch (error) {
    await stopServer(server);
    await Promise.allSettled(instances.map((i) => i.close?.()));
    throw error;
  }
  const routes: DemoRoute[] = instances.flatMap((i) => i.routes);

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      log(
        `demo server: ${req.method} ${req.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      if (!res.headersSent) send(res, 500, "text/plain; charset=utf-8", "internal error\n");
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader("Content-Security-Policy", CSP);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    if (!allowedHosts.has((req.headers.host ?? "").toLowerCase())) {
      send(
        res,
        421,
        "text/plain; charset=utf-8",
        "this server answers only to 127.0.0.1 or localhost\n",
      );
      return;
    }
    const rawPath = (req.url ?? "/").split("?")[0]!;
    let url: URL;
    try {
      url = new URL(req.url ?? "/", origin);
    } catch {
      const lang = pickLang(new URL(origin), req.headers["accept-language"]);
      send(res, 400, "text/plain; charset=utf-8", `${INDEX_TEXT.badTarget![lang]}\n`);
      return;
    }
    const lang = pickLang(url, req.headers["accept-language"]);
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD" && crossSite(req.headers, ownOrigins) !== undefined) {
      send(res, 403, "text/plain; charset=utf-8", `${INDEX_TEXT.crossSite![lang]}\n`);
      return;
    }

    for (const route of routes) {
      const params = matchRoute(route, url.pathname);
      if (params === undefined) continue;
      if (route.method !== method && !(route.method === "GET" && method === "HEAD")) continue;
      const ctx: RouteContext = { url, lang, params, origin };
      await route.handle(req, res, ctx);
      return;
    }

    if (method !== "GET" && method !== "HEAD") {
      res.setHeader("Allow", "GET, HEAD");
      send(res, 405, "text/plain; charset=utf-8", "method not allowed\n");
      return;
    }
    if (url.pathname === "/" && rawPath === "/") {
      const body = indexBody(demos, lang, url);
      send(
        res,
        200,
        CONTENT_TYPES[".html"]!,
        pageHtml({ lang, url, title: INDEX_TEXT.title![lang], body }),
        method,
        "no-cache",
      );
      return;
    }
    if (rawPath.startsWith("/assets/")) {
      const js = assets.get(rawPath.slice("/assets/".length));
      if (js !== undefined) {
        send(res, 200, CONTENT_TYPES[".js"]!, js, method, "no-cache");
        return;
      }
    }
    if (rawPath.startsWith("/static/")) {
      const file = await staticFile(rawPath.slice("/static/".length));
      if (file !== undefined) {
        send(
          res,
          200,
          CONTENT_TYPES[extname(file.path)] ?? "application/octet-stream",
          file.data,
          method,
          "no-cache",
        );
        return;
      }
    }
    send(res, 404, "text/plain; charset=utf-8", `${INDEX_TEXT.notFound![lang]}\n`, method);
  }

  let closing: Promise<void> | undefined;
  return {
    url: origin,
    port,
    close() {
      closing ??= (async () => {
        await stopServer(server);
        await Promise.allSettled(instances.map((i) => i.close?.()));
      })();
      return closing;
    },
  };
}

function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive and streaming connections (Server-Sent Events) would hold close() open.
    server.closeAllConnections();
  });
}

/** The route's groups if it matches `pathname`, else undefined. */
function matchRoute(route: DemoRoute, pathname: string): readonly string[] | undefined {
  if (typeof route.path === "string") return route.path === pathname ? [] : undefined;
  const m = route.path.exec(pathname);
  return m === null ? undefined : m.slice(1).map((g) => g ?? "");
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  method = "GET",
  cache = "no-store",
): void {
  const data = typeof body === "string" ? Buffer.from(body) : body;
  res.writeHead(status, {
    "Content-Type": type,
    "Content-Length": data.length,
    "Cache-Control": cache,
  });
  res.end(method === "HEAD" ? undefined : data);
}

/**
 * A file under STATIC_DIR, or undefined. `relative` is the raw path after /static/ (still
 * percent-encoded): it must decode, hold only plain segments (no "..", ".", empty, backslash or
 * NUL), and resolve, symbolic links followed, to a regular file inside STATIC_DIR.
 */
export async function staticFile(
  relative: string,
): Promise<{ path: string; data: Buffer } | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(relative);
  } catch {
    return undefined;
  }
  const segments = decoded.split("/");
  if (
    segments.some(
      (s) => s === "" || s === "." || s === ".." || s.includes("\\") || s.includes("\0"),
    )
  )
    return undefined;
  try {
    const root = await realpath(STATIC_DIR);
    const path = await realpath(join(root, ...segments));
    if (!path.startsWith(root + sep)) return undefined;
    if (!(await stat(path)).isFile()) return undefined;
    return { path, data: await readFile(path) };
  } catch {
    return undefined;
  }
}

function indexBody(demos: readonly Demo[], lang: "en" | "zh", url: URL): string {
  const suffix = url.searchParams.has("lang") ? `?lang=${lang}` : "";
  const items = demos
    .map(
      (d) =>
        `<li><h2><a href="${escapeHtml(d.path + suffix)}">${escapeHtml(d.title[lang])}</a></h2><p>${escapeHtml(d.summary[lang])}</p></li>`,
    )
    .join("\n");
  return `<h1>${escapeHtml(INDEX_TEXT.title![lang])}</h1>
<p>${escapeHtml(INDEX_TEXT.intro![lang])}</p>
<ul class="demo-list" aria-label="${lang === "zh" ? "演示" : "Demos"}">
${items}
</ul>`;
}
