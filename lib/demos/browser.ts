/**
 * A headless Chromium for the demos' tests, the README's screenshot and `npm run bench`: the npm
 * package @sparticuz/chromium (a Chromium binary inside the package, unpacked on first use into the
 * system's temp folder) driven by playwright-core, so `npm install` is the whole set-up.
 */

import { mkdirSync, rmdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import chromium from "@sparticuz/chromium";
import { type Browser, chromium as playwright } from "playwright-core";

/** How long launching may take on a loaded machine. */
export const LAUNCH_TIMEOUT_MS = 120_000;

/**
 * The Chromium binary's path. The package unpacks it into the temp folder on first use; two
 * processes doing that at once could launch a half-written file, so unpacking is done under a lock
 * (a directory created atomically; one left over by a killed process is taken after 5 minutes).
 * Waiting for another process's lock is a loop with a timer: it orders nothing in a test.
 */
export async function chromiumPath(): Promise<string> {
  const lock = join(tmpdir(), "retry-workbook-chromium.lock");
  const deadline = Date.now() + LAUNCH_TIMEOUT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      try {
        if (Date.now() - statSync(lock).mtimeMs > 5 * 60_000) rmdirSync(lock);
      } catch {
        // gone already: try again
      }
      if (Date.now() > deadline)
        throw new Error(`waited too long for ${lock} (remove it if nothing is starting a browser)`);
      await delay(200);
    }
  }
  try {
    return await chromium.executablePath();
  } finally {
    rmdirSync(lock);
  }
}

/**
 * A headless Chromium, launched with the package's own flags. Those run it as a single process:
 * close pages, not contexts (closing a context there takes the whole browser down), and close the
 * browser at the end.
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = await chromiumPath();
  return playwright.launch({
    executablePath,
    args: chromium.args,
    headless: true,
    timeout: LAUNCH_TIMEOUT_MS,
  });
}
