// Demo 2 (/step) in a real headless Chromium: the eight cells of the issue run to the end, each
// page's count equal to lesson 08's run of the same cell and to the session's SQLite file; one cell
// stepped by keyboard, one event per key press, the same events in the same order as the lesson's
// --step; two tabs at once; a closed tab's processes gone (by PID) and files deleted; a finished
// session's Step a clear 404 in the page; the session limit; screenshots of a crash cell and a zh page.
// One browser for the whole file; every wait is on the page's own signals (data-state, data-steps).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { POLICY_NAMES, type PolicyName } from "../../lib/client/client.ts";
import { type DemoServer, startDemoServer } from "../../lib/demos/server.ts";
import { createStepDemo } from "../../lib/demos/step/demo.ts";
import { type StepSession, StepSessions } from "../../lib/demos/step/sessions.ts";
import { UI } from "../../lib/demos/step/text.ts";
import { runCell, STEP_FAULTS, type StepFault } from "../../lib/matrix/matrix.ts";
import { countReportsIn } from "../../lib/tracker/store.ts";
import { VARIANT_NAMES, type VariantName } from "../../lib/tracker/variant.ts";
import { gone, running, runTs } from "../run-helpers.ts";
import {
  type DemoPage,
  englishLeft,
  launchBrowser,
  openPage,
  screenshot,
  screenshotPath,
} from "./browser.ts";
import { cutOptions, tooWide } from "./layout.ts";

interface Cell {
  variant: VariantName;
  fault: StepFault;
  policy: PolicyName;
}

const MAX = 3;
const sessions = new StepSessions({ max: MAX });
let server: DemoServer;
let browser: Browser;
const scratch = mkdtempSync(join(tmpdir(), "step-demo-test-"));
/** Every process and folder any session had, to check that none is left at the end. */
const seenPids = new Set<number>();
const seenDirs = new Set<string>();
const started = performance.now();

before(async () => {
  server = await startDemoServer({ demos: [createStepDemo({ sessions })] });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
  for (const pid of seenPids) await gone(pid);
  for (const dir of seenDirs)
    assert.equal(existsSync(dir), false, `${dir} is deleted when the server stops`);
  assert.equal(sessions.size, 0);
  process.stderr.write(`# step-demo.test.ts: ${Math.round(performance.now() - started)} ms\n`);
});

const url = (c: Cell, lang = "en"): string =>
  `${server.url}/step?variant=${c.variant}&fault=${c.fault}&policy=${c.policy}&lang=${lang}`;

/** Opens a tab on a cell and waits until its session is ready; returns the tab and its session. */
async function openCell(
  c: Cell,
  lang = "en",
  viewport?: { width: number; height: number },
): Promise<{ tab: DemoPage; page: Page; session: StepSession }> {
  const tab = await openPage(browser, server.url, viewport ? { viewport } : {});
  const page = tab.page;
  await page.goto(url(c, lang));
  await reach(page, "ready", `${c.fault} × ${c.variant} × ${c.policy}`);
  const id = await page.getAttribute("#stepper", "data-session");
  const session = sessions.get(id ?? "");
  assert.ok(session, "the page's session exists on the server");
  seenPids.add(session.pid);
  seenDirs.add(session.dir);
  return { tab, page, session };
}

/**
 * Waits until the page is in `state`, or in a state it cannot leave (failed, gone, full): then the
 * test fails with what the page says, so that a failure names its cause instead of timing out.
 */
async function reach(page: Page, state: "ready" | "done", where = ""): Promise<void> {
  const ends = ["failed", "gone", "full"].filter((s) => s !== state);
  await page.waitForSelector([state, ...ends].map((s) => `#stepper[data-state="${s}"]`).join(", "));
  const now = await page.getAttribute("#stepper", "data-state");
  if (now !== state) {
    const said = (await page.textContent("#session-message")) ?? "";
    assert.fail(
      `${where}: the page is "${now}", not "${state}", after ${await steps(page)} steps; it says: ${said}`,
    );
  }
}

async function runToEnd(page: Page, where = ""): Promise<number> {
  await page.click("#run-button");
  await reach(page, "done", where);
  const text = (await page.textContent("#report-count")) ?? "";
  const m = /^(\d+)/.exec(text);
  assert.ok(m, `#report-count begins with the number: "${text}"`);
  return Number(m[1]);
}

async function closeTab(tab: DemoPage, session: StepSession): Promise<void> {
  for (const pid of session.trackerPids) seenPids.add(pid);
  await tab.close();
  await session.ended;
}

const steps = (page: Page): Promise<number> => page.$$eval("#lanes > li", (rows) => rows.length);

test("the issue's eight cells: the page's count is lesson 08's and the SQLite file's", async () => {
  const cells: Array<[Cell, number]> = [
    [{ fault: "lose-response", variant: "naive", policy: "blind-retry" }, 2],
    [{ fault: "lose-response", variant: "keyed", policy: "same-key" }, 1],
    [{ fault: "lose-response", variant: "keyed", policy: "fresh-key" }, 2],
    [{ fault: "crash-between-commits", variant: "key-after", policy: "same-key" }, 2],
    [{ fault: "crash-between-commits", variant: "keyed", policy: "same-key" }, 1],
    [{ fault: "pause-past-lease", variant: "keyed", policy: "same-key" }, 2],
    [{ fault: "pause-past-lease", variant: "fenced", policy: "same-key" }, 1],
    [{ fault: "concurrent", variant: "key-after", policy: "same-key" }, 2],
  ];
  let i = 0;
  const one = async ([c, expected]: [Cell, number]): Promise<void> => {
    const where = `${c.fault} × ${c.variant} × ${c.policy}`;
    const prefix = `${++i}-`;
    // Lesson 08's matrix runs the same cell, beside the page.
    const [lesson, { tab, page, session }] = await Promise.all([
      runCell(c.variant, c.fault, { dbPath: (n) => join(scratch, prefix + n), policy: c.policy }),
      openCell(c),
    ]);
    // A failed cell closes its tab too, so that the tests after it still have their sessions.
    try {
      const shown = await runToEnd(page, where);
      assert.ok(session.db);
      assert.equal(shown, lesson.reports, `${where}: the page and lesson 08`);
      assert.equal(
        shown,
        countReportsIn(session.db),
        `${where}: the page and SELECT count(*) of the session's file`,
      );
      assert.equal(shown, expected, where);
      assert.match(
        (await page.textContent("#report-count")) ?? "",
        expected === 1 ? /^1 report$/ : /^2 reports · duplicate$/,
      );
      assert.deepEqual(tab.errors, [], where);
      assert.deepEqual(tab.blocked, [], where);
    } finally {
      await closeTab(tab, session);
    }
  };
  // Two tabs at a time.
  for (let k = 0; k < cells.length; k += 2) await Promise.all(cells.slice(k, k + 2).map(one));
});

test("Run's answer arriving after the cell's verdict leaves the verdict on the page", async () => {
  // A short cell on a busy machine can finish before the page has read the answer to its Run: the
  // answer is held here until the page shows "done", then let through.
  const { tab, page, session } = await openCell({
    variant: "keyed",
    fault: "none",
    policy: "same-key",
  });
  await page.evaluate(() => {
    // Marks, a task after the fetch of /run resolved, that the page's own code has handled it.
    const fetch0 = window.fetch.bind(window);
    window.fetch = (...args: Parameters<typeof fetch>) => {
      const p = fetch0(...args);
      if (String(args[0]).endsWith("/run"))
        void p.then(() => setTimeout(() => (document.body.dataset.runAnswered = "yes"), 0));
      return p;
    };
  });
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route("**/run", async (route) => {
    const answer = await route.fetch();
    await held;
    await route.fulfill({ response: answer });
  });
  await page.click("#run-button");
  await page.waitForSelector('#stepper[data-state="done"]');
  release();
  await page.waitForSelector('body[data-run-answered="yes"]');
  assert.equal(await page.getAttribute("#stepper", "data-state"), "done");
  assert.match((await page.textContent("#report-count")) ?? "", /^1 report$/);
  await closeTab(tab, session);
});

test("one cell stepped by keyboard: one event per key press, the same events as lesson 08's --step", async () => {
  const c: Cell = { variant: "keyed", fault: "lose-response", policy: "fresh-key" };
  const lesson = await runTs([
    "lessons/08-fault-matrix.ts",
    "--step",
    "--seed",
    "1",
    "--no-color",
    "--variant",
    c.variant,
    "--fault",
    c.fault,
    "--policy",
    c.policy,
  ]);
  assert.equal(lesson.code, 0, lesson.stderr);
  const expected = lesson.stdout
    .split("\n")
    .map((l) => /^\s+\d+ ms {2}(agent|server|database|lesson)\s+(.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => `${m[1]} ${m[2]}`);
  assert.ok(expected.length > 5, "the lesson printed its events");

  const { tab, page, session } = await openCell(c);
  assert.equal(await page.getAttribute("#step-log", "aria-live"), "polite");
  assert.equal(await page.getAttribute("#step-log", "role"), "log");
  // Keyboard only: Tab to the Step button.
  for (
    let n = 0;
    n < 30 && (await page.evaluate(() => document.activeElement?.id)) !== "step-button";
    n++
  )
    await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.id), "step-button");
  for (let n = 1; n <= expected.length; n++) {
    await page.keyboard.press(n % 2 === 0 ? "Space" : "Enter");
    await page.waitForSelector(`#stepper[data-steps="${n}"]`);
    assert.equal(await steps(page), n, "the lanes grew by exactly one event");
    // (The verdict joins the log on its own once the last step is shown: count the steps.)
    assert.equal(await page.$$eval("#step-log > li:not(.verdict)", (l) => l.length), n);
  }
  await page.waitForSelector('#stepper[data-state="done"]');
  assert.equal(await steps(page), expected.length, "no event without a key press");
  const shown = await page.$$eval("#lanes > li", (rows) =>
    rows.map((r) => `${(r as HTMLElement).dataset.actor} ${(r as HTMLElement).dataset.text}`),
  );
  assert.deepEqual(shown, expected, "the page's events are the lesson's, in order");
  const count = Number(/^(\d+)/.exec((await page.textContent("#report-count")) ?? "")?.[1]);
  assert.equal(count, countReportsIn(session.db!));
  assert.equal(count, 2);
  await closeTab(tab, session);
});

test("two tabs at once, two cells stepped in turn: each right, neither disturbed", async () => {
  const a = await openCell({ variant: "fenced", fault: "pause-past-lease", policy: "same-key" });
  const b = await openCell({ variant: "key-after", fault: "concurrent", policy: "same-key" });
  assert.notEqual(a.session.id, b.session.id);
  assert.notEqual(a.session.pid, b.session.pid);
  for (let n = 1; n <= 4; n++) {
    for (const t of [a, b]) {
      await t.page.click("#step-button");
      await t.page.waitForSelector(`#stepper[data-steps="${n}"]`);
    }
  }
  assert.equal(await steps(a.page), 4);
  assert.equal(await steps(b.page), 4);
  const [ra, rb] = await Promise.all([runToEnd(a.page), runToEnd(b.page)]);
  assert.equal(ra, 1);
  assert.equal(rb, 2);
  assert.equal(countReportsIn(a.session.db!), 1);
  assert.equal(countReportsIn(b.session.db!), 2);
  await closeTab(a.tab, a.session);
  await closeTab(b.tab, b.session);
});

test("Start again: a fresh session on the same cell, the old one's process gone and its files deleted", async () => {
  const c: Cell = { variant: "keyed", fault: "lose-response", policy: "same-key" };
  const { tab, page, session } = await openCell(c);
  for (let n = 1; n <= 3; n++) {
    await page.click("#step-button");
    await page.waitForSelector(`#stepper[data-steps="${n}"]`);
  }
  await page.click("#restart-button");
  await page.waitForFunction((old) => {
    const root = document.querySelector<HTMLElement>("#stepper");
    return root?.dataset.state === "ready" && root.dataset.session !== old;
  }, session.id);
  await session.ended;
  await gone(session.pid);
  assert.equal(existsSync(session.dir), false, "the old session's folder is deleted");
  assert.equal(await steps(page), 0, "the lanes start empty");
  const fresh = sessions.get((await page.getAttribute("#stepper", "data-session")) ?? "");
  assert.ok(fresh && fresh.id !== session.id);
  seenPids.add(fresh.pid);
  seenDirs.add(fresh.dir);
  assert.deepEqual(fresh.cell, c);
  assert.equal(await runToEnd(page), 1);
  assert.equal(countReportsIn(fresh.db!), 1);
  await closeTab(tab, fresh);
});

test("closing a tab mid-cell ends its processes (by PID) and deletes its files", async () => {
  const { tab, page, session } = await openCell({
    variant: "keyed",
    fault: "crash-after-claim",
    policy: "same-key",
  });
  // Step until the killed tracker has been replaced: the new one is alive, the old one gone.
  let n = 0;
  while ((await page.$$('#lanes > li[data-what="restart"]')).length === 0) {
    await page.click("#step-button");
    await page.waitForSelector(`#stepper[data-steps="${++n}"]`);
  }
  const [crashed, replaced] = [...session.trackerPids];
  assert.ok(crashed && replaced, `two tracker processes: ${[...session.trackerPids].join(", ")}`);
  assert.ok(running(session.pid), "the session's process runs");
  assert.ok(running(replaced), "the restarted tracker runs");
  assert.equal(running(crashed), false, "the killed tracker is gone");
  const id = session.id;
  await tab.close();
  await session.ended;
  for (const pid of [session.pid, replaced]) await gone(pid);
  assert.equal(existsSync(session.dir), false, "its folder is deleted");
  assert.equal(sessions.get(id), undefined);
});

test("a step for a finished or unknown session is a clear 404 in the page (at 360 px wide)", async () => {
  const { tab, page, session } = await openCell(
    { variant: "keyed", fault: "none", policy: "same-key" },
    "en",
    { width: 360, height: 800 },
  );
  for (let n = 1; n <= 3; n++) {
    await page.click("#step-button");
    await page.waitForSelector(`#stepper[data-steps="${n}"]`);
  }
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  assert.ok(overflow <= 0, `nothing overflows sideways at 360 px (${overflow} px)`);
  // On a phone each step is one full-width line in its lane's words, no empty lanes beside it.
  const rows = await page.$$eval("#lanes > li", (lis) =>
    lis.map((li) =>
      [...li.children]
        .filter((c) => getComputedStyle(c).display !== "none")
        .map((c) => {
          // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered (CSS applied, hidden parts left out) is what the phone shows
          return (c as HTMLElement).innerText.trim();
        }),
    ),
  );
  assert.equal(rows.length, 3);
  for (const shown of rows) {
    assert.equal(shown.length, 1, `one lane shown per step: ${JSON.stringify(shown)}`);
    assert.match(shown[0]!, /^(agent|server|database): |^tracker process/, JSON.stringify(shown));
  }
  // As the idle timer would: the session stops under the page.
  await session.stop();
  await page.waitForSelector('#stepper[data-state="gone"]');
  assert.equal(await page.textContent("#session-message"), UI.gone.en);
  const unknown = await page.evaluate(async () => {
    const res = await fetch("/step/sessions/AAAAAAAAAAAAAAAAAAAAAA/step", { method: "POST" });
    return { status: res.status, body: (await res.json()) as { message: string } };
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.message, UI.gone.en);
  assert.deepEqual(
    tab.errors.filter((e) => !/404/.test(e)),
    [],
  );
  await tab.close();
});

// A phone and a wide screen, in both languages, on a cell whose lanes hold both arrows (an attempt
// leaving the agent, an answer leaving the server): no element wider than its box, no choice whose
// text is cut (the choices are radio buttons, each with its whole sentence), and each arrow on the
// line of its sentence's last (or first) word, never on a line of its own. (This machine may have no
// Chinese font: the zh screenshots then show boxes, which is why the checks read the page.)
for (const width of [360, 1280])
  for (const lang of ["en", "zh"] as const)
    test(`at ${width} px, ${lang}: no element wider than its box, no cut choice, the arrows beside their words`, async () => {
      const { tab, page, session } = await openCell(
        { variant: "key-after", fault: "crash-between-commits", policy: "same-key" },
        lang,
        { width, height: 900 },
      );
      assert.equal(await runToEnd(page), 2);
      assert.deepEqual(await tooWide(page), []);
      assert.deepEqual(await cutOptions(page), []);
      assert.equal(await page.locator(".step-choice input[type=radio]").count(), 16);
      const arrows = await page.$$eval("#lanes .arrow", (spans) =>
        spans.map((arrow) => {
          const text = [...arrow.parentElement!.childNodes].find((n) => n.nodeType === 3)!;
          const range = document.createRange();
          range.selectNodeContents(text);
          const lines = [...range.getClientRects()];
          const after = arrow.previousSibling === text;
          const word = after ? lines[lines.length - 1]! : lines[0]!;
          return {
            text: `${arrow.textContent}|${text.textContent}`,
            apart: Math.abs(arrow.getBoundingClientRect().top - word.top),
          };
        }),
      );
      assert.ok(arrows.length >= 3, `${arrows.length} arrows`);
      assert.deepEqual(
        arrows.filter((a) => a.apart > 2),
        [],
        "an arrow on a line of its own",
      );
      await screenshot(page, `step-${width}-${lang}`);
      for (const part of ["step-choice", "lanes", "step-log"])
        await page
          .locator(part === "step-choice" ? `.${part}` : `#${part}`)
          .screenshot({ path: screenshotPath(`step-${width}-${lang}-${part}`) });
      await closeTab(tab, session);
    });

test("one tab too many gets a clear message", async () => {
  const open = [];
  for (let n = 0; n < MAX; n++)
    open.push(await openCell({ variant: "naive", fault: "none", policy: "no-retry" }));
  const extra = await openPage(browser, server.url);
  await extra.page.goto(url({ variant: "naive", fault: "none", policy: "no-retry" }));
  await extra.page.waitForSelector('#stepper[data-state="full"]');
  assert.equal(await extra.page.textContent("#session-message"), UI.full.en);
  assert.equal(await extra.page.isDisabled("#step-button"), true);
  await extra.close();
  for (const t of open) await closeTab(t.tab, t.session);
});

test("screenshots: a finished crash cell, and a page in Chinese", async () => {
  const crash = await openCell({
    variant: "key-after",
    fault: "crash-between-commits",
    policy: "same-key",
  });
  assert.equal(await runToEnd(crash.page), 2);
  const pids = await crash.page.$$eval(
    '#lanes > li[data-what="restart"], #lanes > li[data-what="crash"]',
    (rows) => rows.map((r) => r.textContent ?? ""),
  );
  assert.ok(
    pids.some((t) => /SIGKILL/.test(t)),
    "the crash says SIGKILL",
  );
  await screenshot(crash.page, "step-crash-cell");
  await closeTab(crash.tab, crash.session);

  const zh = await openCell(
    { variant: "fenced", fault: "pause-past-lease", policy: "same-key" },
    "zh",
  );
  assert.equal(await zh.page.getAttribute("html", "lang"), "zh-CN");
  assert.equal((await zh.page.textContent("#step-button"))?.trim(), UI.step.zh);
  assert.equal(await runToEnd(zh.page), 1);
  assert.equal(await zh.page.textContent("#report-count"), "1 份报告");
  await screenshot(zh.page, "step-zh");
  await closeTab(zh.tab, zh.session);
});

test("zh: no English left on the page but names, for a crash cell and a fenced one", async () => {
  // The names: the cells' own (lesson 08's), the course's words it writes in English in Chinese
  // too (Agent, fencing token, Bug), the protocol's and SQL's, the key row's states, commands.
  const names = [
    ...VARIANT_NAMES,
    ...STEP_FAULTS,
    ...POLICY_NAMES,
    "Agent",
    "fencing token",
    "fence",
    "Bug",
    "SQLite",
    "node:http",
    "SIGKILL",
    "PID",
    "POST /reports",
    "POST",
    "Idempotency-Key",
    "BEGIN IMMEDIATE",
    "COMMIT",
    "INSERT",
    "ROLLBACK",
    "in_progress",
    "completed",
    "npm run lesson 8 -- --step",
    "retry-workbook",
    "ms",
  ];
  for (const c of [
    { variant: "keyed", fault: "crash-after-claim", policy: "same-key" },
    { variant: "fenced", fault: "pause-past-lease", policy: "same-key" },
  ] as const) {
    const zh = await openCell(c, "zh");
    await runToEnd(zh.page);
    // The keys' first hex digits ("6cb0f7c0…") are data, not words.
    const english = (await englishLeft(zh.page, names)).filter((w) => !/^[0-9a-f]+$/.test(w));
    assert.deepEqual(
      english,
      [],
      `English words on the zh page of ${c.fault} × ${c.variant}: ${english.join(" | ")}`,
    );
    await closeTab(zh.tab, zh.session);
  }
});
