// The demo server (`npm run demos`): loopback only, static files only from its own folder, the
// language choice, the CLI's flags, and the index page in a real headless Chromium.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { request } from "node:http";
import { after, before, describe, test } from "node:test";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { startDemoServer, type DemoServer } from "../lib/demos/server.ts";
import { langFromAcceptLanguage, pickLang } from "../lib/demos/lang.ts";
import { launchBrowser, LAUNCH_TIMEOUT_MS, openPage, screenshot } from "./browser.ts";
import { gone, printedUrl } from "./run-helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** A raw GET: the path is sent exactly as written (no client-side normalisation of ".."). */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: "GET", headers, agent: false }, (res) => {
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

describe("npm run demos", () => {
  const cli = (args: string[]) => spawn(process.execPath, ["--import", "tsx", "lib/demos/cli.ts", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  async function output(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
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
    assert.match(r.stdout, /Demo 1[^]*\/herd/);
    assert.match(r.stdout, /Demo 2[^]*\/step/);
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

describe("npm run demos with Demo 2 sessions open", () => {
  test("Ctrl-C ends every session's process and the tracker processes under them", { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "lib/demos/cli.ts"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const { url } = await printedUrl(child);
    try {
      // A crash cell, stepped over its stream until its first tracker process has started.
      const made = await fetch(`${url}/step/sessions?variant=keyed&fault=crash-after-claim&policy=same-key`, { method: "POST" });
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
      for (const p of [pid, tracker]) process.kill(p, 0); // both run
      const exited = once(child, "exit");
      child.kill("SIGINT");
      const [code] = (await exited) as [number | null];
      assert.equal(code, 0);
      await gone(pid, "the session's process");
      await gone(tracker, "the tracker process");
      await reader.cancel().catch(() => undefined);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});

describe("the index in a real browser", { timeout: LAUNCH_TIMEOUT_MS * 2 }, () => {
  let server: DemoServer;
  let browser: Browser;
  before(async () => {
    [server, browser] = await Promise.all([startDemoServer(), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test("loads with no console error and no request beyond the demo server; links to both demos", async () => {
    const p = await openPage(browser, server.url, { locale: "zh-CN" });
    try {
      await p.page.goto(`${server.url}/`);
      assert.equal(await p.page.getAttribute("html", "lang"), "zh-CN");
      const link = p.page.getByRole("link", { name: /演示 1/ });
      assert.equal(await link.getAttribute("href"), "/herd");
      assert.equal(await p.page.getByRole("link", { name: /演示 2/ }).getAttribute("href"), "/step");
      assert.deepEqual(p.blocked, []);
      assert.ok(p.requests.length >= 2, p.requests.join("\n"));
      for (const r of p.requests) assert.ok(r.includes(server.url), r);
      assert.deepEqual(p.errors, []);
      await screenshot(p.page, "index-zh");
    } finally {
      await p.close();
    }
  });

  // The package's Chromium brings Latin fonts only; Chinese comes from the system's fonts. Where the
  // system has a Chinese font, a zh page and its screenshots show Chinese, not the same empty box
  // for every character (two different characters drawn alike are both the missing-glyph box).
  // Without one (a bare server), the zh screenshots are boxes: the tests read the zh text instead.
  const chineseFont = spawnSync("fc-list", [":lang=zh", "family"], { encoding: "utf8" });
  const hasChineseFont = chineseFont.status === 0 && chineseFont.stdout.trim() !== "";
  test("Chinese is drawn with a font, where the system has one", { skip: hasChineseFont ? false : "no Chinese font on this system (fc-list :lang=zh)" }, async () => {
    const p = await openPage(browser, server.url, { locale: "zh-CN" });
    try {
      await p.page.goto(`${server.url}/?lang=zh`);
      // (A string, run as it is in the page: the test runner's transform would add helpers to a function.)
      const drawnAlike = await p.page.evaluate<boolean>(`(() => {
        const draw = (text) => {
          const canvas = document.createElement("canvas");
          canvas.width = 64;
          canvas.height = 64;
          const ctx = canvas.getContext("2d");
          ctx.font = "48px sans-serif";
          ctx.fillText(text, 4, 52);
          return canvas.toDataURL();
        };
        return draw("惊") === draw("群");
      })()`);
      assert.equal(drawnAlike, false, "two Chinese characters come out as the same missing-glyph box");
    } finally {
      await p.close();
    }
  });

  test("a request to another host is stopped by the page's policy, and else blocked and counted", async () => {
    const strict = await openPage(browser, server.url);
    try {
      await strict.page.goto(`${server.url}/`);
      const outcome = await strict.page.evaluate(() => fetch("http://example.com/x").then(() => "fetched", () => "refused"));
      assert.equal(outcome, "refused");
      assert.ok(!strict.requests.some((r) => r.includes("example.com")), "the policy stops it before it is a request");
    } finally {
      await strict.close();
    }
    const p = await openPage(browser, server.url, { bypassCSP: true });
    try {
      await p.page.goto(`${server.url}/`);
      const outcome = await p.page.evaluate(() => fetch("http://example.com/x").then(() => "fetched", () => "refused"));
      assert.equal(outcome, "refused");
      assert.deepEqual(p.blocked, ["http://example.com/x"]);
    } finally {
      await p.close();
    }
  });
});
