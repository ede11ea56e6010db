// The browser tests' frame: a real headless Chromium driven by playwright-core. The browser is the
// npm package @sparticuz/chromium (a Chromium binary inside the package, unpacked on first use into
// the system's temp folder), so `npm install` is the whole set-up.
//
// Every page opened here runs against one demo server, and nothing else: each request the page (or
// its workers) makes is logged, and any request to another origin is blocked and counted, so a test
// can assert that the page fetched nothing from outside. Screenshots go to an ignored folder
// (.screenshots/, see .gitignore), never over tracked files.
//
// Machine load: launching takes about 3 s on an idle 2-core machine and far longer on a busy one,
// so every wait here is generous; nothing is timed with sleeps, tests wait for the page's own
// signals (its aria-live text, an attribute it sets when done).

import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";

export { LAUNCH_TIMEOUT_MS, launchBrowser } from "../../lib/demos/browser.ts";

/** Where tests write screenshots: ignored by git. */
export const SCREENSHOT_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  "../..",
  ".screenshots",
);

/** The default for every wait on a page. */
export const PAGE_TIMEOUT_MS = 60_000;

export interface OpenOptions {
  /** Sent as Accept-Language and navigator.language (default "en-US"). */
  locale?: string;
  /** Default 1280 × 900. */
  viewport?: { width: number; height: number };
  /** Ignore the pages' Content-Security-Policy (to test the blocking route itself). Default false. */
  bypassCSP?: boolean;
}

export interface DemoPage {
  page: Page;
  context: BrowserContext;
  /** Every request the page and its workers made, in order: "GET http://127.0.0.1:…/herd". */
  requests: string[];
  /** Requests to any origin but the demo server's: blocked before they left. */
  blocked: string[];
  /** console.error messages and uncaught page errors. */
  errors: string[];
  /** Bytes transferred (headers and bodies, as Chromium counts them) for the requests so far. */
  transferredBytes(): Promise<number>;
  /**
   * Closes the page. (Not its context: the package's flags run Chromium as one process, and closing
   * a context there takes the whole browser down; contexts go when the browser closes.)
   */
  close(): Promise<void>;
}

/**
 * A fresh context and page, with every request logged and everything off `origin` blocked. Does not
 * navigate: call `page.goto(...)` (tests choose what to wait for).
 */
export async function openPage(
  browser: Browser,
  origin: string,
  options: OpenOptions = {},
): Promise<DemoPage> {
  const allowed = new URL(origin).origin;
  const context = await browser.newContext({
    locale: options.locale ?? "en-US",
    viewport: options.viewport ?? { width: 1280, height: 900 },
    serviceWorkers: "block",
    bypassCSP: options.bypassCSP === true,
  });
  context.setDefaultTimeout(PAGE_TIMEOUT_MS);
  const requests: string[] = [];
  const blocked: string[] = [];
  const errors: string[] = [];
  const finished: Promise<number>[] = [];
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    if (new URL(url).origin === allowed) await route.continue();
    else {
      blocked.push(url);
      await route.abort("blockedbyclient");
    }
  });
  context.on("request", (request) => {
    requests.push(`${request.method()} ${request.url()}`);
    finished.push(
      request
        .response()
        .then((response) =>
          response === null
            ? 0
            : request.sizes().then((s) => s.responseBodySize + s.responseHeadersSize),
        )
        .catch(() => 0),
    );
  });
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  return {
    page,
    context,
    requests,
    blocked,
    errors,
    async transferredBytes() {
      const sizes = await Promise.all(finished);
      return sizes.reduce((a, b) => a + b, 0);
    },
    close: () => page.close(),
  };
}

/** The path of .screenshots/<name>.png (the folder made if missing), for a screenshot of a part. */
export function screenshotPath(name: string): string {
  if (!/^[\w.-]+$/.test(name)) throw new Error(`bad screenshot name: ${name}`);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return join(SCREENSHOT_DIR, `${name}.png`);
}

/** Writes a full-page screenshot to .screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const path = screenshotPath(name);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * The Latin words of a page's visible text (and of its labels for screen readers) that are not
 * among `names`: for a Chinese page, the English left over. Skipped: code, MathML, anything marked
 * lang="en" or translate="no". Names are cut out of the text before it is split into words. (The
 * function runs in the page as a string: the test runner's transform would add helpers to a
 * function that the page does not have.)
 */
export function englishLeft(page: Page, names: readonly string[]): Promise<string[]> {
  return page.evaluate<string[]>(`((names) => {
    const skip = (el) => el !== null && el.closest("code, math, script, style, noscript, [lang='en'], [translate='no']") !== null;
    const texts = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      if (!skip(node.parentElement)) texts.push(node.textContent ?? "");
    }
    for (const el of document.querySelectorAll("[aria-label], [title], [alt]")) {
      if (!skip(el)) for (const a of ["aria-label", "title", "alt"]) texts.push(el.getAttribute(a) ?? "");
    }
    // Longest first, so that "npm run herd -- --csv" goes before "npm run herd".
    const sorted = [...names].sort((a, b) => b.length - a.length);
    const found = [];
    for (let text of texts) {
      for (const name of sorted) text = text.split(name).join(" ");
      for (const m of text.matchAll(/[A-Za-z]{2,}/g)) found.push(m[0]);
    }
    return [...new Set(found)];
  })(${JSON.stringify(names)})`);
}
