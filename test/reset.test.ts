// npm run reset: the shipped state is recorded once, byte for byte, never from the learner's work;
// a reset restores exactly those bytes, asks first, and keeps the learner's version.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { displayWidth } from "../lib/core/text.ts";
import { runExerciseTests } from "../lib/runner/exercise-run.ts";
import {
  BACKUP_DIR,
  isAsShipped,
  recordShipped,
  resetExercise,
  shippedCopy,
} from "../lib/runner/shipped.ts";
import { runIn, tempProject } from "./temp-project.ts";

const EDIT = "\n// the learner was here\n";

test("the shipped copy is recorded byte for byte, never overwritten, and never taken from edited work", (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const [a, b] = p.exercises as [(typeof p.exercises)[0], (typeof p.exercises)[0]];
  const shippedA = p.read(a.file);
  // b is solved before anything was recorded: its file no longer throws its TODO, so it is refused.
  p.solve(b);
  const first = recordShipped(p.root);
  assert.deepEqual(
    first.recorded.map((e) => e.id),
    [a.id],
  );
  assert.deepEqual(
    first.missing.map((e) => e.id),
    [b.id],
  );
  assert.ok(p.read(shippedCopy(a)).equals(shippedA));
  assert.equal(existsSync(join(p.root, shippedCopy(b))), false);

  writeFileSync(join(p.root, a.file), shippedA.toString() + EDIT);
  assert.deepEqual(recordShipped(p.root).recorded, [], "an existing copy is kept");
  assert.ok(
    p.read(shippedCopy(a)).equals(shippedA),
    "the learner's edit did not leak into the shipped copy",
  );
  assert.throws(() => resetExercise(b, p.root), /no shipped copy of .* was recorded/);
});

test("a copy recorded by an older workbook, whose imports name files that have moved, is replaced by the shipped version that loads", (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const [a, b] = p.exercises as [(typeof p.exercises)[0], (typeof p.exercises)[0]];
  recordShipped(p.root);
  const shippedA = p.read(a.file);
  // The copy an older version recorded, when lib/ had files at its top level: an import that misses now.
  const older = Buffer.from(`import { Faults } from "../lib/faults.ts";\n${shippedA.toString()}`);
  writeFileSync(join(p.root, shippedCopy(a)), older);
  // b's copy loads but differs from b's file (the learner edited b): it stays, as every copy does.
  writeFileSync(join(p.root, b.file), p.read(b.file).toString() + EDIT);
  const again = recordShipped(p.root);
  assert.deepEqual(
    again.refreshed.map((e) => e.id),
    [a.id],
  );
  assert.ok(p.read(shippedCopy(a)).equals(shippedA), "the copy is the shipped version that loads");
  assert.ok(
    !p.read(shippedCopy(b)).toString().includes(EDIT.trim()),
    "a copy whose imports resolve is never replaced",
  );

  // A broken copy and a learner's file that no longer throws its TODO: nothing to take; the copy stays.
  writeFileSync(join(p.root, shippedCopy(a)), older);
  p.solve(a);
  assert.deepEqual(recordShipped(p.root).refreshed, []);
  assert.ok(p.read(shippedCopy(a)).equals(older));
});

test("reset restores the shipped bytes exactly, backs up the learner's version, and makes the exercise fail again", async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  const shipped = p.read(e.file);
  recordShipped(p.root);
  assert.deepEqual(resetExercise(e, p.root), { changed: false }, "nothing to do on a shipped file");

  p.solve(e);
  const solved = p.read(e.file);
  assert.equal((await runExerciseTests(e, "exercises", 60_000, { root: p.root })).passed, true);
  assert.equal(isAsShipped(e, p.root), false);

  const outcome = resetExercise(e, p.root, new Date("2026-01-02T03:04:05.678Z"));
  assert.deepEqual(outcome, {
    changed: true,
    backup: `${BACKUP_DIR}/${e.name}.2026-01-02T03-04-05-678Z.ts`,
  });
  assert.ok(p.read(e.file).equals(shipped), "byte-identical to the shipped file");
  assert.ok(
    p.read(outcome.changed ? outcome.backup! : "").equals(solved),
    "the learner's answer is in the backup",
  );
  assert.equal(isAsShipped(e, p.root), true);

  const again = await runExerciseTests(e, "exercises", 60_000, { root: p.root });
  assert.equal(again.passed, false);
  assert.match(again.firstFailure?.error ?? "", new RegExp(`TODO: .*\\(exercise ${e.id}\\)`));

  // A second reset within the same millisecond does not overwrite the first backup.
  p.solve(e);
  const second = resetExercise(e, p.root, new Date("2026-01-02T03:04:05.678Z"));
  assert.deepEqual(second, {
    changed: true,
    backup: `${BACKUP_DIR}/${e.name}.2026-01-02T03-04-05-678Z-2.ts`,
  });
  assert.equal(readdirSync(join(p.root, BACKUP_DIR)).length, 2);
});

test("npm run reset asks first: no keeps the file, yes resets it and says where the backup is", async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  const shipped = p.read(e.file);
  // Nothing recorded yet (as after npm install --ignore-scripts): the command records it itself.
  const clean = await runIn(p.root, "lib/runner/reset-cli.ts", [e.id]);
  assert.equal(clean.code, 0, clean.output);
  assert.match(clean.output, new RegExp(`${e.id} is already as shipped`));

  writeFileSync(join(p.root, e.file), shipped.toString() + EDIT);
  const no = await runIn(p.root, "lib/runner/reset-cli.ts", [e.id], "n\n");
  assert.equal(no.code, 0);
  assert.match(no.output, /\[y\/N\][\s\S]*Nothing changed\./);
  assert.match(p.read(e.file).toString(), /the learner was here/);

  const silent = await runIn(p.root, "lib/runner/reset-cli.ts", [e.id]);
  assert.equal(silent.code, 1, "no answer at all is not a yes");
  assert.match(silent.output, /No answer, nothing changed \(use --yes/);
  assert.match(p.read(e.file).toString(), /the learner was here/);

  const yes = await runIn(p.root, "lib/runner/reset-cli.ts", [e.id], "y\n");
  assert.equal(yes.code, 0, yes.output);
  const backup = /Your version is saved as\s+(\S+\.ts)\./.exec(yes.output)?.[1];
  assert.ok(backup, yes.output);
  assert.ok(p.read(e.file).equals(shipped));
  assert.match(readFileSync(join(p.root, backup)).toString(), /the learner was here/);
});

test("npm run reset -- --all --yes resets every changed exercise without asking", async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const shipped = p.exercises.map((e) => p.read(e.file));
  recordShipped(p.root);
  for (const e of p.exercises) p.solve(e);
  const r = await runIn(p.root, "lib/runner/reset-cli.ts", ["--all", "--yes"]);
  assert.equal(r.code, 0, r.output);
  assert.doesNotMatch(r.output, /\[y\/N\]/);
  assert.match(r.output, /2 exercises reset\./);
  for (const [i, e] of p.exercises.entries()) assert.ok(p.read(e.file).equals(shipped[i]!), e.file);
});

test("npm run reset: a missing copy is an error, and bad arguments say what is valid", async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  p.solve(e); // edited before any copy was recorded
  const missing = await runIn(p.root, "lib/runner/reset-cli.ts", [e.id, "--yes"]);
  assert.equal(missing.code, 1);
  assert.match(missing.output, /cannot reset .*no shipped copy was recorded/);

  const ids = p.exercises.map((x) => x.id).join(", ");
  for (const args of [["zz9"], [], ["--all", e.id], ["--bogus"]]) {
    const r = await runIn(p.root, "lib/runner/reset-cli.ts", args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.output}`);
    assert.match(r.output, /^error: .*\(try --help\)\n$/);
  }
  assert.match(
    (await runIn(p.root, "lib/runner/reset-cli.ts", ["zz9"])).output,
    new RegExp(`the exercises are ${ids}`),
  );
});

test("npm run reset --all (before --, so npm keeps it as npm_config_all) is told to put it after --", async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const r = await runIn(p.root, "lib/runner/reset-cli.ts", [], "", {
    npm_lifecycle_event: "reset",
    npm_config_all: "true",
  });
  assert.equal(r.code, 2, r.output);
  assert.equal(
    r.output,
    "error: npm kept --all for itself; put flags after --: npm run reset -- --all (try --help)\n",
  );
  // With an exercise named, an `all` setting from the learner's .npmrc changes nothing.
  const e = p.exercises[0]!;
  const named = await runIn(p.root, "lib/runner/reset-cli.ts", [e.id, "--yes"], "", {
    npm_lifecycle_event: "reset",
    npm_config_all: "true",
  });
  assert.equal(named.code, 0, named.output);
  assert.match(named.output, /is already as shipped/);
});

test("the postinstall step records the shipped copies and never fails the install", async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const [a, b] = p.exercises as [(typeof p.exercises)[0], (typeof p.exercises)[0]];
  p.solve(b);
  const r = await runIn(p.root, "lib/runner/record-shipped-cli.ts");
  assert.equal(r.code, 0, r.output);
  assert.match(r.output, /recorded the shipped state of 1 exercise in \.workbook\/shipped\//);
  assert.match(r.output, new RegExp(`${b.file.replace(/\./g, "\\.")} is already edited`));
  assert.ok(p.read(shippedCopy(a)).equals(p.read(a.file)));
  assert.equal(
    JSON.parse(p.read("package.json").toString()).scripts.postinstall,
    "tsx lib/runner/record-shipped-cli.ts",
  );
});

test("the reset question wraps between words to the terminal, the backup folder whole; in Chinese too", async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const e = p.exercises[0]!;
  recordShipped(p.root);
  for (const [lang, width] of [
    ["en", "60"],
    ["en", "100"],
    ["zh", "60"],
  ] as const) {
    writeFileSync(join(p.root, e.file), `${p.read(e.file).toString()}\n// the learner was here\n`);
    const r = await runIn(p.root, "lib/runner/reset-cli.ts", [e.id, "--lang", lang], "n\n", {
      COLUMNS: width,
    });
    assert.equal(r.code, 0, r.output);
    const lines = r.output.split("\n");
    for (const line of lines)
      assert.ok(displayWidth(line) <= Number(width), `${lang} ${width}: wider: ${line}`);
    assert.ok(
      lines.some((l) => l.includes(".workbook/backups/")),
      `${lang} ${width}: the backup folder whole on one line:\n${r.output}`,
    );
    assert.match(
      r.output,
      lang === "en" ? /\[y\/N\] ?\n?Nothing changed\./ : /\[y\/N\] ?\n?什么都没改。/,
    );
  }
});
