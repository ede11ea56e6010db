// The demo server (`npm run demos`): loopback only, static files only from its own folder, the
// language choice, the CLI's flags. The index page in a real headless Chromium is
// test/full/demos-browser.test.ts (npm run test:full).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Demo } from "../lib/demos/demo.ts";
import { langFromAcceptLanguage, pickLang } from "../lib/demos/lang.ts";
import { type DemoServer, startDemoServer } from "../lib/demos/server.ts";
import { gone, printedUrl } from "./run-helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** A raw GET: the path is sent exactly as written (no client-side normalisation of ".."). */
function rawGet(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the language choice", () => {
  test("Accept-Language picks by q value; zh-* is zh; nothing we speak is en", () => {
    assert.equal(langFromAcceptLanguage("zh-CN,zh;q=0.9,en;q=0.8"), "zh");
    assert.equal(langFromAcceptLanguage("en-GB,zh;q=0.9"), "en");
    assert.equal(langFromAcceptLanguage("fr;q=1, zh-TW;q=0.5, en;q=0.4"), "zh");
    assert.equal(langFromAcceptLanguage("de, fr"), "en");
    assert.equal(langFromAcceptLanguage("zh;q=0, en;q=0.1"), "en");
    assert.equal(langFromAcceptLanguage(undefined), "en");
  });
  test("?lang= wins over the header; an unknown ?lang= is ignored", () => {
    assert.equal(pickLang(new URL("http://x/?lang=en"), "zh-CN"), "en");
    assert.equal(pickLang(new URL("http://x/?lang=zh"), "en"), "zh");
    assert.equal(pickLang(new URL("http://x/?lang=fr"), "zh-CN"), "zh");
  });
});

describe("the demo server", () => {
  let server: DemoServer;
  before(async () => {
    server = await startDemoServer();
  });
  after(() => server.close());

  test("listens on 127.0.0.1 on a port of its own", () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(server.port, 0);
  });

  test("no path outside lib/demos/static is served, however it is spelled", async () => {
    for (const path of [
      "/../package.json",
      "/static/../server.ts",
      "/static/%2e%2e/server.ts",
      "/static/..%2fserver.ts",
      "/static/..%5cserver.ts",
      "/static/%2e%2e%2f%2e%2e%2fpackage.json",
      "/static//etc/passwd",
      "/static/demos.css%00",
      "/package.json",
      "/lib/demos/server.ts",
      "/assets/../package.json",
    ]) {
      const r = await rawGet(server.url, path);
      assert.equal(r.status, 404, `${path} → ${r.status}`);
      assert.doesNotMatch(r.body, /"name"|import /, path);
    }
    const css = await rawGet(server.url, "/static/demos.css");
    assert.equal(css.status, 200);
    assert.match(String(css.headers["content-type"]), /^text\/css/);
  });

  test("the index lists the demos in the language asked for, with a policy that allows this origin only", async () => {
    const zh = await rawGet(server.url, "/", { "accept-language": "zh-CN,zh;q=0.9" });
    assert.equal(zh.status, 200);
    assert.match(zh.body, /<html lang="zh-CN">/);
    assert.match(zh.body, /href="\/herd"/);
    assert.match(String(zh.headers["content-security-policy"]), /default-src 'self'/);
    const en = await rawGet(server.url, "/?lang=en", { "accept-language": "zh-CN" });
    assert.match(en.body, /<html lang="en">/);
    assert.match(en.body, /href="\/herd\?lang=en"/);
  });

  test("a request naming another host is refused (DNS rebinding)", async () => {
    const r = await rawGet(server.url, "/", { host: "attacker.example" });
    assert.equal(r.status, 421);
  });

  test("a request target that is no URL is 400, not 500", async () => {
    for (const path of ["//:99999/", "http://x:99999/step", "http://[::1/", "http://a%zz/"]) {
      const r = await rawGet(server.url, path, { "accept-language": "zh-CN" });
      assert.equal(r.status, 400, path);
      assert.match(r.body, /URL/);
    }
  });

  test("close() ends open keep-alive connections and resolves; a second close() is harmless", async () => {
    const s = await startDemoServer();
    const { hostname, port } = new URL(s.url);
    // A connection left open by the client (a streaming answer or keep-alive).
    const req = request({ host: hostname, port, path: "/", headers: { connection: "keep-alive" } });
    req.end();
    const [res] = (await once(req, "response")) as [import("node:http").IncomingMessage];
    res.resume();
    await s.close();
    await s.close();
    await assert.rejects(rawGet(s.url, "/"), /ECONNREFUSED/);
  });
});

describe("a command from another site", () => {
  // A demo with one POST route that counts what reaches it: the check is the server's, for every
  // route that is not GET or HEAD.
  let commands = 0;
  const probe: Demo = {
    path: "/probe",
    title: { en: "Probe", zh: "Probe" },
    summary: { en: "", zh: "" },
    start: () => ({
      routes: [
        {
          method: "POST",
          path: "/probe/go",
          handle(_req, res) {
            commands++;
            res.writeHead(204).end();
          },
        },
      ],
    }),
  };
  let server: DemoServer;
  before(async () => {
    server = await startDemoServer({ demos: [probe] });
  });
  after(() => server.close());

  test("is 403 when Origin or Sec-Fetch-Site says so, in the page's language; nothing runs", async () => {
    for (const headers of [
      { origin: "http://attacker.example" },
      { origin: `http://127.0.0.1:${server.port + 1}` },
      { origin: "null" },
      { origin: `https://127.0.0.1:${server.port}` },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site", origin: `http://localhost:${server.port}` },
      { "sec-fetch-site": "cross-site", "content-type": "text/plain" },
    ] as Record<string, string>[]) {
      const r = await rawGet(server.url, "/probe/go", headers, "POST");
      assert.equal(r.status, 403, JSON.stringify(headers));
      assert.match(r.body, /own pages/);
    }
    const zh = await rawGet(
      server.url,
      "/probe/go",
      { origin: "http://attacker.example", "accept-language": "zh-CN" },
      "POST",
    );
    assert.match(zh.body, /只接受它自己页面/);
    assert.equal(commands, 0);
  });

  test("goes through from the server's own pages (127.0.0.1 or localhost) and from a client that is no browser", async () => {
    for (const headers of [
      { origin: server.url, "sec-fetch-site": "same-origin" },
      { origin: `http://localhost:${server.port}` },
      { "sec-fetch-site": "same-origin" },
      {},
    ] as Record<string, string>[]) {
      const r = await rawGet(server.url, "/probe/go", headers, "POST");
      assert.equal(r.status, 204, JSON.stringify(headers));
    }
    assert.equal(commands, 4);
    // A page may still link here from anywhere: GET is not a command.
    const page = await rawGet(server.url, "/", { "sec-fetch-site": "cross-site", origin: "null" });
    assert.equal(page.status, 200);
  });
});

describe("npm run demos", () => {
  const cli = (args: string[]) =>
    spawn(process.execPath, ["--import", "tsx", "lib/demos/cli.ts", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
  async function output(
    args: string[],
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = cli(args);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    return { code, stdout, stderr };
  }

  test("--help describes every flag", async () => {
    const r = await output(["--help"]);
    assert.equal(r.code, 0);
    for (const flag of ["--port", "--open", "--help"]) assert.match(r.stdout, new RegExp(flag));
    // Both demos, by their pages.
    assert.match(r.stdout, /Demo 1.*\/herd/s);
    assert.match(r.stdout, /Demo 2.*\/step/s);
  });

  test("a bad flag or value is one line naming what is valid, exit 2", async () => {
    for (const args of [["--bogus"], ["--port", "x"], ["--port", "70000"]]) {
      const r = await output(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.match(r.stderr, /^error: .*\(try --help\)\n$/);
    }
    assert.match((await output(["--bogus"])).stderr, /--port/);
  });

  test("prints its URL, serves, and stops cleanly on SIGTERM and on SIGINT", async () => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const child = cli([]);
      const { url, stdout } = await printedUrl(child);
      assert.equal((await rawGet(url, "/")).status, 200);
      const exited = once(child, "exit");
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      assert.equal(code, 0, signal);
      assert.match(stdout(), /stopped/);
    }
  });
});

/**
 * A crash cell's session on the demo server at `url`, stepped over its stream until its first tracker
 * process has started: the session's PID and the tracker's; `stop` lets go of the stream.
 */
async function crashCellWithTracker(
  url: string,
): Promise<{ pid: number; tracker: number; stop: () => Promise<void> }> {
  const made = await fetch(
    `${url}/step/sessions?variant=keyed&fault=crash-after-claim&policy=same-key`,
    { method: "POST" },
  );
  assert.equal(made.status, 201);
  const { id, pid } = (await made.json()) as { id: string; pid: number };
  const events = await fetch(`${url}/step/sessions/${id}/events`);
  const reader = events.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let tracker: number | undefined;
  for (let n = 1; n <= 10 && tracker === undefined; n++) {
    assert.equal((await fetch(`${url}/step/sessions/${id}/step`, { method: "POST" })).status, 202);
    // Read until the n-th step has come whole.
    while ((text.match(/event: step\ndata: .*\n\n/g) ?? []).length < n) {
      const chunk = await reader.read();
      assert.equal(chunk.done, false, `the stream ended: ${text}`);
      text += decoder.decode(chunk.value);
    }
    const started = /"what":"process-start"[^}]*"pid":(\d+)/.exec(text);
    if (started !== null) tracker = Number(started[1]);
  }
  assert.ok(tracker !== undefined && tracker !== pid, `a tracker process of its own: ${text}`);
  return {
    pid,
    tracker,
    stop: async () => {
      await reader.cancel().catch(() => undefined);
    },
  };
}

describe("npm run demos with Demo 2 sessions open", () => {
  test("Ctrl-C ends every session's process and the tracker processes under them", {
    timeout: 120_000,
  }, async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "lib/demos/cli.ts"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const { url } = await printedUrl(child);
    try {
      const { pid, tracker, stop } = await crashCellWithTracker(url);
      for (const p of [pid, tracker]) process.kill(p, 0); // both run
      const exited = once(child, "exit");
      child.kill("SIGINT");
      const [code] = (await exited) as [number | null];
      assert.equal(code, 0);
      await gone(pid, "the session's process");
      await gone(tracker, "the tracker process");
      await stop();
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  test("SIGKILL: every session's process ends by itself, tracker processes with it, and the next start deletes the folders they left", {
    timeout: 120_000,
  }, async () => {
    const start = () =>
      spawn(process.execPath, ["--import", "tsx", "lib/demos/cli.ts"], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
    const folders = () =>
      new Set(readdirSync(tmpdir()).filter((d) => d.startsWith("retry-workbook-step-")));
    const child = start();
    let next: ReturnType<typeof start> | undefined;
    try {
      const { url } = await printedUrl(child);
      const before = folders();
      const { pid, tracker } = await crashCellWithTracker(url);
      for (const p of [pid, tracker]) process.kill(p, 0); // both run
      const mine = [...folders()].filter((d) => !before.has(d));
      assert.equal(mine.length, 1, `the session's folder: ${mine.join(", ")}`);
      const folder = join(tmpdir(), mine[0]!);
      const exited = once(child, "exit");
      child.kill("SIGKILL");
      await exited;
      // The session's process notices that its parent is gone (its IPC channel and stdin close),
      // and its exit kills the tracker processes it started.
      await gone(pid, "the session's process");
      await gone(tracker, "the tracker process");
      assert.equal(existsSync(folder), true, "SIGKILL ran no clean-up: the folder is left");
      next = start();
      await printedUrl(next);
      assert.equal(existsSync(folder), false, "the next start deleted it");
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      if (next && next.exitCode === null) {
        const stopped = once(next, "exit");
        next.kill("SIGTERM");
        await stopped;
      }
    }
  });
});
