// Demo 1 in a real headless Chromium: the herd simulator computed in the page by the same module
// `npm run herd` runs. Each test waits for the page's own signals (`<body data-state>` and the
// aria-live `#status`), never for a fixed time.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { cliArgs, parseParams } from "../../lib/demos/herd/params.ts";
import { type DemoServer, startDemoServer } from "../../lib/demos/server.ts";
import { HERD_STRATEGIES } from "../../lib/herd/simulator.ts";
import {
  type DemoPage,
  englishLeft,
  LAUNCH_TIMEOUT_MS,
  launchBrowser,
  openPage,
  PAGE_TIMEOUT_MS,
  screenshot,
  screenshotPath,
} from "./browser.ts";
import { tooWide } from "./layout.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TIMEOUT = LAUNCH_TIMEOUT_MS * 3;

/** What `npm run herd -- --csv` prints for the parameters of a /herd URL. */
function cliCsv(query: string): string {
  const parsed = parseParams(new URLSearchParams(query));
  assert.ok(parsed.ok, `bad test query ${query}`);
  const r = spawnSync(
    process.execPath,
    ["--import", "tsx", "lib/herd/cli.ts", "--csv", ...cliArgs(parsed.params)],
    { cwd: ROOT, encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** Waits until run number `run` has finished and its results are on screen. */
async function finished(page: Page, run: number): Promise<void> {
  await page.waitForFunction(
    (n) =>
      document.body.dataset.run === String(n) &&
      ["done", "failed", "invalid"].includes(document.body.dataset.state ?? ""),
    run,
    { timeout: PAGE_TIMEOUT_MS * 2 },
  );
  assert.equal(
    await page.getAttribute("body", "data-state"),
    "done",
    (await page.textContent("#status")) ?? "",
  );
}

/** The CSV behind the page's "download CSV" link, as a user's download gets it. */
async function downloadedCsv(page: Page): Promise<string> {
  assert.equal(await page.getAttribute("#csv", "download"), "herd.csv");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#csv")]);
  assert.equal(download.suggestedFilename(), "herd.csv");
  return readFile(await download.path(), "utf8");
}

describe("Demo 1 in a real browser", { timeout: TIMEOUT }, () => {
  let server: DemoServer;
  let browser: Browser;
  const pages: DemoPage[] = [];
  const open = async (options?: Parameters<typeof openPage>[2]): Promise<DemoPage> => {
    const p = await openPage(browser, server.url, options);
    pages.push(p);
    return p;
  };
  before(async () => {
    [server, browser] = await Promise.all([startDemoServer(), launchBrowser()]);
  });
  after(async () => {
    for (const p of pages) await p.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
  });

  test("loads small, with no console error and no request beyond the demo server, and finishes a run", async () => {
    const p = await open();
    await p.page.goto(`${server.url}/herd`);
    await finished(p.page, 1);
    assert.match(
      (await p.page.textContent("#status")) ?? "",
      /^Done in [\d.]+ s \(\d+ Web Workers?\): 18 points/,
    );
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.blocked, []);
    for (const r of p.requests) assert.ok(r.startsWith(`GET ${server.url}/`), r);
    // The workers' script came from the demo server too.
    assert.ok(
      p.requests.some((r) => r.endsWith("/assets/herd-worker.js")),
      p.requests.join("\n"),
    );
    const bytes = await p.transferredBytes();
    assert.ok(bytes > 10_000 && bytes <= 300_000, `first load: ${bytes} bytes transferred`);
    // Formulas are MathML, never raw LaTeX.
    assert.equal(await p.page.locator("#strategies math").count(), HERD_STRATEGIES.length + 1);
    assert.doesNotMatch((await p.page.textContent("main")) ?? "", /\\(frac|text|min|cdot)|\$\$/);
    // Every control's value is in the URL.
    const url = new URL(p.page.url());
    for (const name of ["clients", "strategies", "runs", "seed", "base", "cap", "mean", "sd"])
      assert.ok(url.searchParams.has(name), name);
    await screenshot(p.page, "herd-en");
  });

  test("the CSV equals npm run herd -- --csv byte for byte, for two seeds and a small sweep", async () => {
    const queries = [
      "clients=5,20..40:10&runs=20&seed=7",
      "clients=5,20..40:10&runs=20&seed=8&strategies=exponential,full,decorrelated&base=10&cap=800&mean=12&sd=3",
    ];
    const csvs: string[] = [];
    for (const query of queries) {
      const p = await open();
      await p.page.goto(`${server.url}/herd?${query}`);
      await finished(p.page, 1);
      const csv = await downloadedCsv(p.page);
      assert.equal(csv, cliCsv(query), query);
      assert.equal(csv.split("\n")[0], "strategy,clients,calls,completion_ms");
      csvs.push(csv);
      // The command the page prints is the one that gives this CSV.
      assert.match(
        (await p.page.textContent("#cli-command")) ?? "",
        /^npm run herd -- --csv --clients=5,20,30,40 /,
      );
    }
    assert.notEqual(csvs[0], csvs[1]);
  });

  test("a control change mid-run cancels it: the stale result never reaches the screen", async () => {
    const p = await open();
    // Two runs of the same size (the original's whole sweep, 60 runs a point): were the first not
    // cancelled, it would finish first, having started first, and land.
    const query = "clients=10..190:10&runs=60";
    await p.page.goto(`${server.url}/herd?${query}&seed=3`);
    await p.page.waitForFunction(
      () =>
        document.body.dataset.state === "running" &&
        Number(document.querySelector("progress")?.value) >= 1,
      null,
      { timeout: PAGE_TIMEOUT_MS * 2 },
    );
    await p.page.fill("#seed", "4");
    await p.page.press("#seed", "Enter");
    await p.page.waitForFunction(
      () =>
        document.body.dataset.state === "done" &&
        new URL(location.href).searchParams.get("seed") === "4",
      null,
      { timeout: PAGE_TIMEOUT_MS * 4 },
    );
    const last = (await p.page.getAttribute("body", "data-run")) ?? "";
    const landed = ((await p.page.getAttribute("body", "data-done-runs")) ?? "").split(" ");
    assert.ok(Number(last) >= 2);
    assert.ok(
      !landed.includes("1"),
      `the cancelled run 1 reached the screen (runs shown: ${landed.join(", ")})`,
    );
    assert.equal(landed.at(-1), last, "the screen shows the last run");
    assert.match((await p.page.textContent("#status")) ?? "", /: 114 points/);
    assert.equal(await downloadedCsv(p.page), cliCsv(`${query}&seed=4`));
  });

  test("a new base changes the example waits under exponential's formula, without reloading the page", async () => {
    const p = await open();
    await p.page.goto(`${server.url}/herd?clients=10&runs=5`);
    await finished(p.page, 1);
    const caption = async (): Promise<string> =>
      (await p.page.textContent("#caption-exponential")) ?? "";
    assert.equal(
      await caption(),
      "the same wait for everyone who failed together: 10, 20, 40 … ms",
    );
    await p.page.fill("#base", "7");
    await p.page.press("#base", "Enter");
    await p.page.waitForFunction(
      () =>
        document.body.dataset.state === "done" &&
        new URL(location.href).searchParams.get("base") === "7",
      null,
      { timeout: PAGE_TIMEOUT_MS * 2 },
    );
    assert.equal(
      await caption(),
      "the same wait for everyone who failed together: 14, 28, 56 … ms",
    );
  });

  test("keyboard only: Tab to the controls, change one, start a run, read the result", async () => {
    const p = await open();
    await p.page.goto(`${server.url}/herd?clients=10,40&runs=10`);
    await finished(p.page, 1);
    // Every control is reachable with Tab.
    const reached = new Set<string>();
    for (let i = 0; i < 40 && !reached.has("run"); i++) {
      await p.page.keyboard.press("Tab");
      reached.add(await p.page.evaluate(() => document.activeElement?.id ?? ""));
    }
    for (const id of [
      "clients",
      "runs",
      "seed",
      "base",
      "cap",
      "mean",
      "sd",
      ...HERD_STRATEGIES.map((s) => `s-${s}`),
      "run",
    ]) {
      assert.ok(
        reached.has(id),
        `${id} not reached with Tab (reached: ${[...reached].join(", ")})`,
      );
    }
    // Back to "runs" (Shift+Tab), type a new value, untick a strategy with Space, start with Enter on the button.
    for (
      let i = 0;
      i < 40 && (await p.page.evaluate(() => document.activeElement?.id)) !== "runs";
      i++
    )
      await p.page.keyboard.press("Shift+Tab");
    await p.page.keyboard.press("Control+A");
    await p.page.keyboard.type("25");
    for (
      let i = 0;
      i < 40 && (await p.page.evaluate(() => document.activeElement?.id)) !== "s-equal";
      i++
    )
      await p.page.keyboard.press("Tab");
    await p.page.keyboard.press("Space");
    for (
      let i = 0;
      i < 40 && (await p.page.evaluate(() => document.activeElement?.id)) !== "run";
      i++
    )
      await p.page.keyboard.press("Tab");
    // The changes (on leaving the field, on Space) have each started a run already; Enter starts the
    // last one, numbered after them: wait for that one to be done, not for an earlier one.
    const before = Number(await p.page.evaluate(() => document.body.dataset.run ?? "0"));
    await p.page.keyboard.press("Enter");
    await p.page.waitForFunction(
      (b) => {
        const q = new URL(location.href).searchParams;
        return (
          Number(document.body.dataset.run ?? "0") > b &&
          document.body.dataset.state === "done" &&
          q.get("runs") === "25" &&
          !(q.get("strategies") ?? "equal").includes("equal")
        );
      },
      before,
      { timeout: PAGE_TIMEOUT_MS * 2 },
    );
    const status = (await p.page.textContent("#status")) ?? "";
    assert.match(status, /^Done in .*: 10 points/, "5 strategies × 2 client counts");
    assert.equal(await p.page.locator("#at-n tbody tr").count(), 5);
    assert.doesNotMatch(p.page.url(), /equal/);
    assert.equal(await p.page.getAttribute("#status", "aria-live"), "polite");
  });

  test("zh and en both render; the zh page has no English left but names", async () => {
    const en = await open({ locale: "en-US" });
    await en.page.goto(`${server.url}/herd?clients=10,50&runs=20`);
    await finished(en.page, 1);
    assert.equal(await en.page.getAttribute("html", "lang"), "en");
    assert.match((await en.page.textContent("h1")) ?? "", /thundering herd/);

    const zh = await open({ locale: "zh-CN" });
    await zh.page.goto(`${server.url}/herd?clients=10,50&runs=20`);
    await finished(zh.page, 1);
    assert.equal(await zh.page.getAttribute("html", "lang"), "zh-CN");
    assert.match((await zh.page.textContent("#status")) ?? "", /^完成，用时/);
    assert.deepEqual(zh.errors, []);
    const english = await englishLeft(zh.page, [
      "Exponential Backoff And Jitter",
      "aws-samples/aws-arch-backoff-simulator",
      "Marc Brooker",
      "retry-workbook",
      ...HERD_STRATEGIES,
      "Full Jitter",
      "Equal Jitter",
      "Decorrelated Jitter",
      "npm run herd -- --csv",
      "npm run herd",
      "npm run lesson 2",
      "Web Worker",
      "JavaScript",
      "Python",
      "Codex",
      "AWS",
      "CSV",
      "SVG",
      "ms",
    ]);
    assert.deepEqual(english, [], `English words on the zh page: ${english.join(" | ")}`);
    // ?lang= wins over the browser's preference.
    await zh.page.goto(`${server.url}/herd?clients=10&runs=5&lang=en`);
    await finished(zh.page, 1);
    assert.match((await zh.page.textContent("#status")) ?? "", /^Done/);
    await zh.page.goto(`${server.url}/herd?clients=10,50&runs=20&lang=zh`);
    await finished(zh.page, 1);
    await screenshot(zh.page, "herd-zh");
  });

  // A phone and a wide screen, in both languages: no element wider than its box (the table at the
  // largest N becomes one card per strategy on a phone, the formulas fit their list), the command
  // under "Download CSV" wraps only between its words or after a list's commas, and the charts
  // take the column's width. (This machine may have no Chinese font: the zh screenshots then show
  // boxes, which is why the checks read the page rather than the picture.)
  for (const width of [360, 1280])
    for (const lang of ["en", "zh"] as const)
      test(`at ${width} px, ${lang}: no element wider than its box, the command whole, the charts as wide as the column`, async () => {
        const p = await open({ viewport: { width, height: 900 } });
        await p.page.goto(`${server.url}/herd?clients=10,50,100&runs=20&lang=${lang}`);
        await finished(p.page, 1);
        const overflow = await p.page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
        assert.deepEqual(await tooWide(p.page), []);
        const box = await p.page.locator("#run").boundingBox();
        assert.ok(
          box !== null && box.x >= 0 && box.x + box.width <= width,
          "the Run button is on screen",
        );
        // Each piece of the command (a word, or a list's item with its comma) on one line.
        const pieces = await p.page.$$eval("#cli-command .piece", (spans) =>
          spans.map((s) => [s.textContent ?? "", s.getClientRects().length] as const),
        );
        assert.ok(pieces.length > 10, `${pieces.length} pieces`);
        assert.deepEqual(
          pieces.filter(([, lines]) => lines !== 1),
          [],
          "a piece of the command broken over two lines",
        );
        assert.match(
          (await p.page.textContent("#cli-command")) ?? "",
          /^npm run herd -- --csv --clients=10,50,100 --strategies=no-backoff,exponential,full,equal,decorrelated,codex-capped --runs=20 /,
        );
        const [main, ...charts] = await p.page.evaluate(() =>
          [document.querySelector("main")!, ...document.querySelectorAll(".chart svg")].map(
            (e) => e.getBoundingClientRect().width,
          ),
        );
        assert.equal(charts.length, 3);
        for (const c of charts)
          assert.ok(Math.abs(c - main!) <= 1, `a chart ${c} px wide in a ${main} px column`);
        if (width === 1280) assert.ok(main! > 1000, `the column: ${main} px`);
        await screenshot(p.page, `herd-${width}-${lang}`);
        await p.page
          .locator("#at-n")
          .screenshot({ path: screenshotPath(`herd-${width}-${lang}-table`) });
        await p.page
          .locator("#strategies")
          .screenshot({ path: screenshotPath(`herd-${width}-${lang}-strategies`) });
        await p.page
          .locator("p.command")
          .screenshot({ path: screenshotPath(`herd-${width}-${lang}-command`) });
      });
});
