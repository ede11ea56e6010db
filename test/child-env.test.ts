// Child processes of the tests and of the runner, started from a terminal: Node's test runner then
// sets FORCE_COLOR for every test file, and a child asked for no colour (NO_COLOR=1) must not get
// both (Node warns on stderr that NO_COLOR is ignored, and every test that reads stderr fails).
import assert from "node:assert/strict";
import { test } from "node:test";
import { childEnv } from "../lib/runner/exercise-run.ts";
import { runTs } from "./run-helpers.ts";

test("childEnv: NO_COLOR drops an inherited FORCE_COLOR; without NO_COLOR it stays", () => {
  process.env.FORCE_COLOR = "1";
  try {
    assert.equal(childEnv({ NO_COLOR: "1" }).FORCE_COLOR, undefined);
    assert.equal(childEnv({ NO_COLOR: "1" }).NO_COLOR, "1");
    assert.equal(childEnv({}).FORCE_COLOR, "1");
    assert.equal(
      childEnv({ NO_COLOR: "1", FORCE_COLOR: "2" }).FORCE_COLOR,
      "2",
      "asked for both: both",
    );
  } finally {
    delete process.env.FORCE_COLOR;
  }
});

test("a lesson run by the tests under FORCE_COLOR (npm test on a terminal) writes nothing to stderr", async () => {
  process.env.FORCE_COLOR = "1";
  try {
    const ran = await runTs(["lessons/01-timeout-truths.ts", "--help"]);
    assert.equal(ran.code, 0);
    assert.equal(ran.stderr, "");
  } finally {
    delete process.env.FORCE_COLOR;
  }
});
