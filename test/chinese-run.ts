// A lesson's Chinese run held against its English run of the same seed (test/chinese-output.ts's
// checks): it exits 0 with nothing on stderr, every line fits 80 columns, no English is left outside
// code, commands, identifiers and quoted titles (the servers' problem details included: the Chinese
// run's client asks for them in Chinese, Accept-Language), and, where the lesson's numbers are its
// seed's, the counts and verdicts are the English run's.
import assert from "node:assert/strict";
import { test } from "node:test";
import { countDifference, countsOf, englishRuns, widerThan } from "./chinese-output.ts";
import { type LessonRun, runLesson } from "./lesson-run.ts";

export interface ChineseRunOptions {
  /**
   * Why the counts are not compared, for a lesson whose numbers are measured live (a herd over real
   * HTTP, a library's waits on the real clock): two runs of it differ in any language.
   */
  countsLive?: string;
  /** The Chinese run's environment instead of --lang zh (a machine whose LANG asks for Chinese). */
  env?: Record<string, string>;
}

export function chineseRunTests(lesson: string, options: ChineseRunOptions = {}): void {
  const args = [lesson, "--seed", "1"];
  const limit = { width: 80, timeoutMs: 180_000 };
  // Started by the first test that needs them, the English run then the Chinese: a file of many
  // lessons runs one lesson at a time, so that no run slows another down on a small machine.
  let started: Promise<[LessonRun, LessonRun]> | undefined;
  const runs = (): Promise<[LessonRun, LessonRun]> =>
    (started ??= (async (): Promise<[LessonRun, LessonRun]> => {
      const en = await runLesson([...args, "--lang", "en"], limit);
      const zh = options.env
        ? await runLesson(args, { ...limit, env: options.env })
        : await runLesson([...args, "--lang", "zh"], limit);
      return [en, zh];
    })());
  // The variables set (those emptied are only there to be out of the way).
  const how = options.env
    ? `with ${Object.entries(options.env)
        .filter(([, v]) => v !== "")
        .map(([k, v]) => `${k}=${v}`)
        .join(" ")}`
    : "with --lang zh";

  test(`${lesson} in Chinese (${how}): it runs, and every line fits 80 columns`, async () => {
    const [, zh] = await runs();
    assert.equal(zh.timedOut, false, "the Chinese run did not end");
    assert.equal(zh.stderr, "");
    assert.equal(zh.code, 0);
    assert.deepEqual(widerThan(zh.stdout, 80), []);
  });

  test(`${lesson} in Chinese (${how}): no English left`, async () => {
    const [, zh] = await runs();
    const lines = zh.stdout.split("\n");
    assert.ok(lines.length > 20, "the lesson printed its trace");
    assert.deepEqual(
      englishRuns(zh.stdout).map((r) => `${r.line}: ${lines[r.line - 1]}`),
      [],
    );
  });

  if (options.countsLive === undefined)
    test(`${lesson} in Chinese (${how}): the English run's counts and verdicts`, async () => {
      const [en, zh] = await runs();
      assert.equal(en.code, 0, en.stderr);
      assert.equal(countDifference(countsOf(en.stdout), countsOf(zh.stdout)), "");
    });
}
