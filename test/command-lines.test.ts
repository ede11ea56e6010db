// Lines the tools print themselves wrap between words by display width, paths and URLs whole (issue:
// every failure readable at 80x24). The runner's own commands are in test/runner.test.ts,
// test/reset.test.ts and test/runner-chinese.test.ts; here, the tracker's log lines.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { displayWidth } from "../lib/core/text.ts";
import { ROOT } from "../lib/runner/catalog.ts";
import { childEnv } from "../lib/runner/exercise-run.ts";

test("the tracker's log lines wrap between words at 50 columns, the key and the URL whole", {
  timeout: 60_000,
}, async () => {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "lib/tracker/cli.ts", "--variant", "keyed"],
    {
      cwd: ROOT,
      env: childEnv({ NO_COLOR: "1", COLUMNS: "50" }),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  const ended = new Promise<number | null>((resolve) => proc.on("close", (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      proc.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (m && stdout.includes("Ctrl-C")) resolve(m[1]!);
      });
      void ended.then(() => reject(new Error(`the tracker ended: ${stdout}`)));
    });
    const key = "report-7f3a9c2e-1b4d-4e8f-a6b5-c3d2e1f0a9b8";
    const r = await fetch(`${url}/reports`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ title: "a bug", body: "it broke" }),
    });
    assert.equal(r.status, 201, await r.text());
    // The log line is written before the response ends; wait for it without a clock.
    while (!/^#1 [\s\S]* ms\n/m.test(stdout))
      await new Promise((resolve) => proc.stdout.once("data", resolve));
    const lines = stdout.split("\n");
    for (const line of lines) assert.ok(displayWidth(line) <= 50, `wider than 50: ${line}`);
    assert.ok(
      lines.some((l) => l.includes(url)),
      `the URL whole:\n${stdout}`,
    );
    assert.ok(
      lines.some((l) => l.includes(key)),
      `the key whole:\n${stdout}`,
    );
    assert.match(stdout, /^#1 POST \/reports → 201 {2}Idempotency-Key:\n {4}report-7f3a/m, stdout);
  } finally {
    proc.kill("SIGTERM");
    await ended;
  }
});
