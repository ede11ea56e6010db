/**
 * Makes the README's picture of Demo 2, lib/demos/step-demo.png, with the headless Chromium of the
 * tests: key-after × crash-between-commits × same-key run to the end, from the count to the lanes.
 * Run by hand when the page changes: `node --import tsx lib/demos/step/readme-screenshot.ts`
 * (the tests never write it: their screenshots go to the ignored .screenshots/).
 */
import { fileURLToPath } from "node:url";
import { launchBrowser } from "../browser.ts";
import { startDemoServer } from "../server.ts";

const OUT = fileURLToPath(new URL("../step-demo.png", import.meta.url));

const server = await startDemoServer();
const browser = await launchBrowser();
try {
  const page = await (
    await browser.newContext({ viewport: { width: 960, height: 900 }, locale: "en-US" })
  ).newPage();
  await page.goto(
    `${server.url}/step?variant=key-after&fault=crash-between-commits&policy=same-key&lang=en`,
  );
  await page.waitForSelector('#stepper[data-state="ready"]', { timeout: 120_000 });
  await page.click("#run-button");
  await page.waitForSelector('#stepper[data-state="done"]', { timeout: 120_000 });
  const top = await page.locator(".step-status").boundingBox();
  const lanes = await page.locator("#lanes").boundingBox();
  if (top === null || lanes === null) throw new Error("the lanes are not on the page");
  await page.screenshot({
    path: OUT,
    fullPage: true,
    clip: { x: 0, y: top.y - 8, width: 960, height: lanes.y + lanes.height - top.y + 16 },
  });
  process.stdout.write(`written: ${OUT}\n`);
} finally {
  await browser.close();
  await server.close();
}
