// The demo server against a web page on another origin, in a real headless Chromium: the page tries
// to start Demo 2 sessions the way any site could (a "simple" POST: mode "no-cors", text/plain, so
// no preflight), nine times; none starts, and the learner's own tab still gets its session. Another
// port on 127.0.0.1 is another origin.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { listenOnLoopback } from "../../lib/core/listen.ts";
import { type DemoServer, startDemoServer } from "../../lib/demos/server.ts";
import { createStepDemo } from "../../lib/demos/step/demo.ts";
import { StepSessions } from "../../lib/demos/step/sessions.ts";
import { gone } from "../run-helpers.ts";
import { launchBrowser, openPage, PAGE_TIMEOUT_MS } from "./browser.ts";

const MAX = 3;
const sessions = new StepSessions({ max: MAX });
let demos: DemoServer;
let other: Server;
let otherUrl: string;
let browser: Browser;

/** The other site's page: nine POSTs to the demo server, then its title says it is done. */
const attack = (target: string): string => `<!doctype html><meta charset="utf-8"><title>…</title>
<script>
(async () => {
  const said = [];
  for (let i = 0; i < 9; i++) {
    try {
      await fetch(${JSON.stringify(target)}, {
        method: "POST",
        mode: "no-cors",
        headers: { "Content-Type": "text/plain" },
        body: "go",
      });
      said.push("sent");
    } catch (e) {
      said.push("failed");
    }
  }
  document.title = "done: " + said.join(",");
})();
</script>`;

before(async () => {
  demos = await startDemoServer({ demos: [createStepDemo({ sessions })] });
  other = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(attack(`${demos.url}/step/sessions?variant=naive&fault=none&policy=no-retry`));
  });
  otherUrl = (await listenOnLoopback(other, 0)).url;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => other?.close(resolve));
  await demos?.close();
});

test("a page on another origin cannot start Demo 2 sessions; the learner's own tab still gets one", async () => {
  // The other site's tab: its own origin and the demo server's are both reachable, nothing else.
  const context = await browser.newContext({ serviceWorkers: "block" });
  context.setDefaultTimeout(PAGE_TIMEOUT_MS);
  const allowed = new Set([new URL(otherUrl).origin, new URL(demos.url).origin]);
  await context.route("**/*", (route) =>
    allowed.has(new URL(route.request().url()).origin)
      ? route.continue()
      : route.abort("blockedbyclient"),
  );
  const answers: number[] = [];
  context.on("response", (r) => {
    if (r.url().startsWith(`${demos.url}/step/sessions`)) answers.push(r.status());
  });
  const page = await context.newPage();
  await page.goto(`${otherUrl}/`);
  await page.waitForFunction(() => document.title.startsWith("done"));
  assert.equal(await page.title(), `done: ${Array(9).fill("sent").join(",")}`);
  assert.deepEqual(answers, Array(9).fill(403), "each POST refused: Origin is the other site's");
  assert.equal(sessions.size, 0, "no session started, no process");
  await page.close();

  // The learner's tab on the demo server itself: its session starts as before.
  const tab = await openPage(browser, demos.url);
  await tab.page.goto(`${demos.url}/step?variant=keyed&fault=lose-response&policy=same-key`);
  await tab.page.waitForSelector(
    ["ready", "full", "failed", "gone"].map((s) => `#stepper[data-state="${s}"]`).join(", "),
  );
  assert.equal(
    await tab.page.getAttribute("#stepper", "data-state"),
    "ready",
    `the page says: ${await tab.page.textContent("#session-message")}`,
  );
  assert.equal(sessions.size, 1);
  const id = (await tab.page.getAttribute("#stepper", "data-session")) ?? "";
  const session = sessions.get(id);
  assert.ok(session);
  await tab.close();
  await session.ended;
  await gone(session.pid);
});
