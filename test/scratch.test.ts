// A lesson stopped early (Ctrl-C, a kill, a reader that goes away) leaves no temporary folder behind.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../lib/runner/catalog.ts";
import { childEnv } from "../lib/runner/exercise-run.ts";

/** Starts lesson 01 with a temporary folder of its own as TMPDIR; resolves once it has stored a report. */
function lessonWithOwnTmp(t: { after: (fn: () => void) => void }) {
  const tmp = mkdtempSync(join(tmpdir(), "retry-workbook-test-tmp-"));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const child = spawn(process.execPath, ["--import", "tsx", "lessons/01-timeout-truths.ts"], {
    cwd: ROOT,
    env: childEnv({ NO_COLOR: "1", TMPDIR: tmp, TEMP: tmp, TMP: tmp }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  t.after(() => child.kill("SIGKILL"));
  let text = "";
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const stored = new Promise<void>((resolve) => {
    const onData = (c: Buffer): void => {
      text += c.toString();
      if (/database +#\d+ INSERT/.test(text)) {
        child.stdout.off("data", onData);
        resolve();
      }
    };
    child.stdout.on("data", onData);
  });
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  const leftovers = (): string[] => readdirSync(tmp).filter((f) => f.startsWith("retry-workbook-"));
  return { child, stored, closed, leftovers, stderr: () => stderr };
}

test("Ctrl-C (SIGINT) in the middle of a lesson removes its temporary SQLite folder", {
  timeout: 60_000,
}, async (t) => {
  const run = lessonWithOwnTmp(t);
  await run.stored;
  assert.equal(
    run.leftovers().length,
    1,
    "the lesson keeps its database in a temporary folder while it runs",
  );
  run.child.kill("SIGINT");
  const { signal } = await run.closed;
  assert.equal(signal, "SIGINT", "it still ends as interrupted");
  assert.deepEqual(run.leftovers(), []);
});

test("a lesson whose reader goes away (EPIPE) removes its temporary folder too", {
  timeout: 60_000,
}, async (t) => {
  const run = lessonWithOwnTmp(t);
  await run.stored;
  run.child.stdout.destroy();
  const { code } = await run.closed;
  assert.equal(code, 0);
  assert.equal(run.stderr(), "");
  assert.deepEqual(run.leftovers(), []);
});
