// The demos' index page in a real headless Chromium: what a person sees, every request counted and
// any to another host blocked, the Chinese page drawn with a font where the system has one.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { type DemoServer, startDemoServer } from "../../lib/demos/server.ts";
import { LAUNCH_TIMEOUT_MS, launchBrowser, openPage, screenshot } from "./browser.ts";

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
      assert.equal(
        await p.page.getByRole("link", { name: /演示 2/ }).getAttribute("href"),
        "/step",
      );
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
  test("Chinese is drawn with a font, where the system has one", {
    skip: hasChineseFont ? false : "no Chinese font on this system (fc-list :lang=zh)",
  }, async () => {
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
      assert.equal(
        drawnAlike,
        false,
        "two Chinese characters come out as the same missing-glyph box",
      );
    } finally {
      await p.close();
    }
  });

  test("a request to another host is stopped by the page's policy, and else blocked and counted", async () => {
    const strict = await openPage(browser, server.url);
    try {
      await strict.page.goto(`${server.url}/`);
      const outcome = await strict.page.evaluate(() =>
        fetch("http://example.com/x").then(
          () => "fetched",
          () => "refused",
        ),
      );
      assert.equal(outcome, "refused");
      assert.ok(
        !strict.requests.some((r) => r.includes("example.com")),
        "the policy stops it before it is a request",
      );
    } finally {
      await strict.close();
    }
    const p = await openPage(browser, server.url, { bypassCSP: true });
    try {
      await p.page.goto(`${server.url}/`);
      const outcome = await p.page.evaluate(() =>
        fetch("http://example.com/x").then(
          () => "fetched",
          () => "refused",
        ),
      );
      assert.equal(outcome, "refused");
      assert.deepEqual(p.blocked, ["http://example.com/x"]);
    } finally {
      await p.close();
    }
  });
});
