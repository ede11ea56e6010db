// Running one exercise's tests when one of them hangs: the learner is told which test, how long it
// ran, and whether it loops without yielding or waits forever (it waits out real time limits, so it
// is part of npm run test:full; the rest of the runner's cases are test/exercise-run.test.ts).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runExerciseTests } from "../../lib/runner/exercise-run.ts";
import { tempProject } from "../temp-project.ts";

test("a test that hangs is named, with how long it ran, whether it loops without yielding or waits forever", {
  timeout: 90_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  for (const body of ["for (;;) {}", "return new Promise(() => setInterval(() => {}, 1000));"]) {
    writeFileSync(
      join(p.root, e.test),
      [
        'import { test } from "node:test";',
        'test("quick", () => {});',
        `test("stuck here", () => { ${body} });`,
        'test("never reached", () => {});',
      ].join("\n"),
    );
    const r = await runExerciseTests(e, "exercises", 6_000, { root: p.root });
    assert.equal(r.passed, false, body);
    assert.equal(r.timedOut, true, body);
    assert.match(
      r.verdict ?? "",
      /^the test "stuck here" ran for \d+\.\d s without ending and was stopped/,
      body,
    );
    const ran = Number(/ran for (\d+\.\d) s/.exec(r.verdict!)![1]);
    assert.ok(ran > 0 && ran <= 6, `${ran} s`);
  }
});
