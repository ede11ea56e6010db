/**
 * The herd sweep in the browser demo (`npm run demos`, Demo 1): the AWS original's whole sweep
 * computed in headless Chromium by the page's Web Workers, with the simulator module `npm run herd`
 * runs, timed by the page itself (from the run's start to its last point). The first run is the
 * warm-up (the workers start and compile); each timed round changes the seed in the page's form, as
 * a learner would, and reuses the warm workers. CPU time here is the workers' time computing.
 */

import { t } from "../core/i18n.ts";
import { median } from "../core/stats.ts";
import { launchBrowser } from "../demos/browser.ts";
import { ORIGINAL_SWEEP_QUERY } from "../demos/herd/params.ts";
import { startDemoServer } from "../demos/server.ts";
import { MESSAGES_PER_CALL, type SweepSpeed } from "./herd-speed.ts";

/** The goal the issue set for the page: the whole sweep in at most 3 s. */
export const BROWSER_SWEEP_GOAL_MS = 3000;

/**
 * One row for the herd table: the sweep in the page, `runs` runs a point, median of `rounds` timed
 * rounds after one warm-up. Empty (with a note on stderr) if the browser cannot start here.
 */
export async function timeBrowserSweep(runs: number, rounds: number): Promise<SweepSpeed[]> {
  const server = await startDemoServer();
  let browser;
  try {
    browser = await launchBrowser();
  } catch (error) {
    await server.close();
    process.stderr.write(
      `\n(the browser row is left out: ${error instanceof Error ? error.message.split("\n")[0] : String(error)})\n`,
    );
    return [];
  }
  try {
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(300_000);
    const query = ORIGINAL_SWEEP_QUERY.replace(/runs=\d+/, `runs=${runs}`);
    const run = async (
      seed: number,
    ): Promise<{ ms: number; busyMs: number; calls: number; workers: number }> => {
      await page.waitForFunction(
        (s) =>
          document.body.dataset.state === "done" &&
          new URL(location.href).searchParams.get("seed") === String(s),
        seed,
        { timeout: 300_000 },
      );
      const data = await page.evaluate(() => ({ ...document.body.dataset }));
      const calls = await page.evaluate(() =>
        [...document.querySelectorAll("#all-points tbody tr")].reduce(
          (sum, tr) => sum + Number(tr.children[2]?.textContent?.replace(/,/g, "")),
          0,
        ),
      );
      return {
        ms: Number(data.elapsedMs),
        busyMs: Number(data.busyMs),
        calls,
        workers: Number(data.workers),
      };
    };
    await page.goto(`${server.url}/herd?${query}&seed=1&lang=en`);
    await run(1); // the warm-up
    const timed: { ms: number; busyMs: number; calls: number; workers: number }[] = [];
    for (let i = 0; i < rounds; i++) {
      const seed = 2 + i;
      await page.fill("#seed", String(seed));
      await page.press("#seed", "Enter");
      timed.push(await run(seed));
    }
    const roundsMs = timed.map((t) => t.ms);
    const medianMs = median(roundsMs);
    const middle = [...timed].sort(
      (a, b) => Math.abs(a.ms - medianMs) - Math.abs(b.ms - medianMs),
    )[0]!;
    // The page shows calls per run (means, one decimal); the total is close, not exact.
    const calls = Math.round(middle.calls * runs);
    const events = MESSAGES_PER_CALL * calls;
    return [
      {
        label: t("in headless Chromium, Web Workers (npm run demos; goal ≤ {s} s)", {
          s: BROWSER_SWEEP_GOAL_MS / 1000,
        }),
        threads: middle.workers,
        work: `${query}`,
        roundsMs,
        medianMs,
        cpuMs: middle.busyMs,
        calls,
        events,
        eventsPerSecond: (events / medianMs) * 1000,
      },
    ];
  } finally {
    await browser.close();
    await server.close();
  }
}
