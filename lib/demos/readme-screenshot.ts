/**
 * Makes the README's picture of Demo 1, lib/demos/herd-demo.png, with the headless Chromium of the
 * tests: the original's whole sweep, finished, from the table at N = 190 to the first chart (the
 * status line above it is left out: the time it prints depends on the machine's load that day).
 * Run by hand when the page changes: `node --import tsx lib/demos/readme-screenshot.ts`
 * (the tests never write it: their screenshots go to the ignored .screenshots/).
 */
import { fileURLToPath } from "node:url";
import { launchBrowser } from "./browser.ts";
import { ORIGINAL_SWEEP_QUERY } from "./herd/params.ts";
import { startDemoServer } from "./server.ts";

const OUT = fileURLToPath(new URL("herd-demo.png", import.meta.url));

const server = await startDemoServer();
const browser = await launchBrowser();
try {
  const page = await (
    await browser.newContext({ viewport: { width: 960, height: 900 }, locale: "en-US" })
  ).newPage();
  await page.goto(`${server.url}/herd?${ORIGINAL_SWEEP_QUERY}&lang=en`);
  await page.waitForFunction(() => document.body.dataset.state === "done", null, {
    timeout: 300_000,
  });
  const top = await page.locator("#at-n-title").boundingBox();
  const chart = await page.locator("#fig-calls").boundingBox();
  if (top === null || chart === null) throw new Error("the results are not on the page");
  await page.screenshot({
    path: OUT,
    fullPage: true,
    clip: { x: 0, y: top.y - 8, width: 960, height: chart.y + chart.height - top.y + 16 },
  });
  process.stdout.write(`written: ${OUT}\n`);
} finally {
  await browser.close();
  await server.close();
}
