// A lesson's Chinese run held against its English run (test/chinese-output.ts's checks), for the
// lessons whose every line is translated but the agent's: the agent's attempts and outcomes are told
// by lib/client/narrate.ts, whose outcome quotes a problem's detail as the server sent it (English).
import assert from "node:assert/strict";
import { test } from "node:test";
import { countDifference, countsOf, englishRuns, widerThan } from "../chinese-output.ts";
import { runLesson } from "../lesson-run.ts";

/** The actor of each line of a trace: an event's, its continuation lines', or "" for anything else. */
function actorsOf(lines: readonly string[]): string[] {
  let actor = "";
  return lines.map((line) => {
    const event = /^ {0,3}\d+ ms {2}(\S+)/.exec(line);
    if (event) actor = event[1]!;
    else if (!/^ {20}\S/.test(line)) actor = "";
    return actor;
  });
}

export function chineseRunTests(lesson: string): void {
  const args = [lesson, "--seed", "1"];
  const runs = Promise.all([
    runLesson([...args, "--lang", "en"], { width: 80, timeoutMs: 180_000 }),
    runLesson([...args, "--lang", "zh"], { width: 80, timeoutMs: 180_000 }),
  ]);

  test(`${lesson} in Chinese: every line within 80 columns, the English run's counts`, async () => {
    const [en, zh] = await runs;
    assert.equal(zh.code, 0, zh.stderr);
    assert.equal(zh.stderr, "");
    assert.deepEqual(widerThan(zh.stdout, 80), []);
    assert.equal(countDifference(countsOf(en.stdout), countsOf(zh.stdout)), "");
  });

  test(`${lesson} in Chinese: no English left but in the agent's own lines`, async () => {
    const [, zh] = await runs;
    const lines = zh.stdout.split("\n");
    const actors = actorsOf(lines);
    const left = englishRuns(zh.stdout).filter((r) => actors[r.line - 1] !== "Agent");
    assert.deepEqual(
      left.map((r) => `${r.line}: ${lines[r.line - 1]}`),
      [],
    );
  });
}
