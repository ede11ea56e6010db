// The exercise machinery, both ways, like rustlings' dev check: every reference solution passes its
// exercise's tests, and every exercise as shipped fails them, fast and with a clear TODO message.
//
// Everything here runs in a temporary copy of the workbook whose exercises/ holds the files as shipped
// (git's HEAD, or the copies recorded at install), never the learner's: these tests must pass the same
// in a checkout where the learner has solved, broken or deleted any of their exercises.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { listLessons, ROOT } from "../lib/runner/catalog.ts";
import { runExerciseTests } from "../lib/runner/exercise-run.ts";
import { looksShipped, SHIPPED_DIR, shippedExerciseFiles } from "../lib/runner/shipped.ts";
import { shippedProject } from "./temp-project.ts";

const project = shippedProject();
after(() => project.remove());
const exercises = project.exercises;
const lessons = listLessons();

test("every exercise has a lesson, a hint, a test, a solution, and a TODO", () => {
  assert.ok(exercises.length >= 1);
  for (const e of exercises) {
    assert.ok(
      lessons.some((l) => l.number === e.lesson),
      `${e.id}: its lesson in exercises/info.toml, ${e.lesson}, names no lesson`,
    );
    assert.ok(
      e.hintSteps.length > 0 && e.hintSteps.every((s) => s.length > 20),
      `${e.id}: no hint in exercises/info.toml`,
    );
    assert.ok(existsSync(join(project.root, e.test)), `${e.test} is missing`);
    assert.ok(existsSync(join(project.root, e.solution)), `${e.solution} is missing`);
    const source = readFileSync(join(project.root, e.file), "utf8");
    assert.match(source, /\/\/ TODO:/, `${e.file} has no "// TODO:" to guide the learner`);
    assert.match(
      source,
      new RegExp(`throw new Error\\("TODO: .*\\(exercise ${e.id}\\)"\\)`),
      `${e.file} must throw a TODO error naming exercise ${e.id}`,
    );
    assert.doesNotMatch(
      source,
      /^\s*\*\s*@(hint|lesson)\b/m,
      `${e.file}: the hint and the lesson belong in exercises/info.toml, not in the file the learner edits`,
    );
    // Nothing requires a stub to mention its parameters (the type check allows unused ones).
    assert.doesNotMatch(source, /^\s*void \w+;$/m, `${e.file}: a "void x;" line`);
    assert.doesNotMatch(
      readFileSync(join(project.root, e.solution), "utf8"),
      /TODO/,
      `${e.solution} still has a TODO`,
    );
  }
});

test("the exercises as shipped and their tests type-check (npm test's own tsc leaves out the learner's exercises/)", {
  timeout: 120_000,
}, () => {
  writeFileSync(
    join(project.root, "tsconfig.exercises.json"),
    JSON.stringify({ extends: "./tsconfig.json", include: ["exercises"] }),
  );
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(
    process.execPath,
    [tsc, "--noEmit", "--pretty", "false", "-p", "tsconfig.exercises.json"],
    { cwd: project.root, encoding: "utf8" },
  );
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

test("the exercises as shipped and their tests pass Biome's check, formatting and lint (npm test's own biome check leaves out the learner's exercises/)", {
  timeout: 60_000,
}, () => {
  // The configuration, and the ignore file that it reads.
  for (const file of ["biome.json", ".gitignore"])
    writeFileSync(join(project.root, file), readFileSync(join(ROOT, file)));
  const biome = join(ROOT, "node_modules", "@biomejs", "biome", "bin", "biome");
  const r = spawnSync(
    process.execPath,
    [biome, "check", "--error-on-warnings", "--colors=off", "exercises"],
    { cwd: project.root, encoding: "utf8" },
  );
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  assert.match(r.stdout + r.stderr, /Checked [1-9]\d* files?/, "biome checked no file");
});

for (const e of exercises) {
  test(`exercise ${e.id}: the solution passes every test`, { timeout: 120_000 }, async () => {
    const r = await runExerciseTests(e, "solutions", 60_000, { root: project.root });
    assert.equal(
      r.passed,
      true,
      `${e.solution} fails: ${JSON.stringify(r.firstFailure)}\n${r.output.slice(-2000)}`,
    );
  });

  test(`exercise ${e.id}: as shipped, it fails fast with its TODO message`, {
    timeout: 120_000,
  }, async () => {
    const r = await runExerciseTests(e, "exercises", 30_000, { root: project.root });
    assert.equal(
      r.passed,
      false,
      `${e.file} passes as shipped: its tests cannot tell a stub from an answer`,
    );
    assert.equal(r.timedOut, false, `${e.file} hangs as shipped`);
    // The TODO comes first, not under another message (08a's used to sit under 'The error is
    // expected to be an instance of "AssertionError"').
    assert.match(
      r.firstFailure?.error ?? "",
      new RegExp(`^TODO: write [\\w.]+ \\(exercise ${e.id}\\)$`),
      `first failure: ${JSON.stringify(r.firstFailure)}`,
    );
  });
}

test("the shipped exercises come from git's HEAD, else the copy recorded at install, never the learner's edits", (t) => {
  const repo = mkdtempSync(join(tmpdir(), "retry-workbook-shipped-"));
  t.after(() => rmSync(repo, { recursive: true, force: true }));
  const git = (...args: string[]): void => {
    const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
      cwd: repo,
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
  };
  const stub =
    'export function f(): number {\n  // TODO: return 1.\n  throw new Error("TODO: write f (exercise 01a)");\n}\n';
  const answer = "export function f(): number {\n  return 1;\n}\n";
  const file = join(repo, "exercises", "01a-x.ts");
  writeFileSync(join(repo, ".keep"), "");
  git("init", "-q");
  spawnSync("mkdir", ["-p", join(repo, "exercises"), join(repo, SHIPPED_DIR)]);
  writeFileSync(file, stub);
  writeFileSync(join(repo, "exercises", "01a-x.test.ts"), "// the test\n");
  git("add", "-A");
  git("commit", "-qm", "shipped");
  assert.ok(looksShipped(stub, "01a"));

  // Solved but not committed: HEAD still has the stub.
  writeFileSync(file, answer);
  const solved = shippedExerciseFiles(repo);
  assert.deepEqual(
    solved.map((f) => [f.path, f.from]),
    [
      ["exercises/01a-x.test.ts", "git HEAD"],
      ["exercises/01a-x.ts", "git HEAD"],
    ],
  );
  assert.equal(solved[1]!.data.toString(), stub);

  // The answer committed: HEAD has moved, so without a recorded copy nothing says what shipped.
  git("commit", "-qam", "my answer");
  assert.throws(
    () => shippedExerciseFiles(repo),
    /cannot find the shipped version of exercises\/01a-x\.ts/,
  );
  writeFileSync(join(repo, SHIPPED_DIR, "01a-x.ts"), stub);
  const recorded = shippedExerciseFiles(repo).find((f) => f.path === "exercises/01a-x.ts")!;
  assert.equal(recorded.from, "recorded copy");
  assert.equal(recorded.data.toString(), stub);

  // Deleted by the learner: still tested, from what shipped.
  rmSync(file);
  assert.equal(
    shippedExerciseFiles(repo)
      .find((f) => f.path === "exercises/01a-x.ts")
      ?.data.toString(),
    stub,
  );
});

// Exercise 08a asks for a test that orders events with gates. A version that counts the reports as
// soon as the call returns, without waiting for request #1 to be handled, passes on a quiet machine
// by luck; the exercise's check must fail it anyway (it plays an unlucky scheduler).
test("exercise 08a: a test that counts before request #1 is handled fails the check", {
  timeout: 120_000,
}, async () => {
  const e = exercises.find((x) => x.id === "08a");
  assert.ok(e, "exercise 08a exists");
  const answer = readFileSync(join(project.root, e.solution), "utf8");
  const gate =
    '    await call;\n    await faults.reached(1, "handled");\n    return tracker.store.countReports();';
  assert.ok(answer.includes(gate), "the reference answer waits for request #1 before it counts");
  const file = join(project.root, e.file);
  const shipped = readFileSync(file);
  // Counting with the store's count, or by reading every report as GET /reports does.
  for (const count of ["tracker.store.countReports()", "tracker.store.listReports().length"]) {
    writeFileSync(file, answer.replace(gate, `    await call;\n    return ${count};`));
    try {
      const r = await runExerciseTests(e, "exercises", 60_000, { root: project.root });
      assert.equal(r.timedOut, false);
      assert.equal(r.passed, false, `a test that counts by luck (${count}) passed 08a's check`);
    } finally {
      writeFileSync(file, shipped);
    }
  }
});

// A learner who reads Chinese runs the same tests with WORKBOOK_LANG=zh (npm run check hands the
// language on to them): the failing test's name and what went wrong come in Chinese, the values as
// node:assert prints them.
test("exercise 05a: an answer that leaves its transaction open fails, in Chinese, with what went wrong", {
  timeout: 120_000,
}, async () => {
  const e = exercises.find((x) => x.id === "05a");
  assert.ok(e, "exercise 05a exists");
  const file = join(project.root, e.file);
  const shipped = readFileSync(file);
  // Commits and rolls back, but leaves the transaction open when a statement throws.
  const noCatch = [
    'db.exec("BEGIN IMMEDIATE");',
    'const id = Number(db.prepare("INSERT INTO reports (title) VALUES (?)").run(title).lastInsertRowid);',
    "const r = db",
    "    .prepare(",
    "      \"UPDATE idempotency_keys SET state = 'completed', report_id = ? WHERE key = ? AND state = 'in_progress' AND fence = ?\",",
    "    )",
    "    .run(id, key, fence);",
    "if (Number(r.changes) !== 1) {",
    '    db.exec("ROLLBACK");',
    "    return undefined;",
    "  }",
    'db.exec("COMMIT");',
    "return id;",
  ].join("\n  ");
  writeFileSync(
    file,
    shipped
      .toString("utf8")
      .replace('throw new Error("TODO: write completeFenced (exercise 05a)");', noCatch),
  );
  const lang = process.env.WORKBOOK_LANG;
  process.env.WORKBOOK_LANG = "zh";
  try {
    const r = await runExerciseTests(e, "exercises", 60_000, { root: project.root });
    assert.equal(r.passed, false, "an answer that leaves its transaction open passed 05a's check");
    assert.equal(
      r.firstFailure?.test,
      "语句抛异常时，不留下没结束的事务，错误交给调用方",
      JSON.stringify(r.firstFailure),
    );
    assert.match(r.firstFailure?.error ?? "", /db\.isTransaction 仍然是 true：/);
    assert.match(r.firstFailure?.error ?? "", /true !== false/);
  } finally {
    if (lang === undefined) delete process.env.WORKBOOK_LANG;
    else process.env.WORKBOOK_LANG = lang;
    writeFileSync(file, shipped);
  }
});
