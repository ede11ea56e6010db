/**
 * Loaded (`--import`) into the process that runs an exercise's tests: writes one marked line to stderr
 * as each test starts and ends. The runner reads them to know, while the file still runs, which test
 * is running and since when, and when every test has ended although the process has not (something
 * left open: a server, a timer).
 *
 * The lines are written synchronously, from root-level hooks (with --test-isolation=none they apply to
 * every test): a test stuck in a loop that never yields has already said that it started, whereas
 * node:test's own reporters, which are streams, would still hold it.
 */
import { writeSync } from "node:fs";
import { afterEach, beforeEach } from "node:test";
import { EVENT_MARK } from "./test-events-mark.ts";

function emit(type: "start" | "end", name: string): void {
  try {
    writeSync(2, `${EVENT_MARK}${JSON.stringify({ type, name })}\n`);
  } catch {
    // stderr gone: the runner has stopped listening.
  }
}

beforeEach((t) => emit("start", t.name));
afterEach((t) => emit("end", t.name));
