// The watch mode end to end, as `npm start` runs it, in a temporary copy of the workbook: keys come
// from a pipe, and every step waits for what the runner prints (no sleeps).
import assert from "node:assert/strict";
import { test } from "node:test";
import { listLessons } from "../../lib/runner/catalog.ts";
import { startSession, tempProject } from "../temp-project.ts";

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

test("--manual: the first exercise, its hint, a pass that points at the solution and names the next one, Enter shows it, the list, the lesson, q", {
  timeout: 120_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const [first, second] = p.exercises as [(typeof p.exercises)[0], (typeof p.exercises)[0]];
  const lesson = listLessons(p.root).find((l) => l.number === first.lesson)!;
  const s = startSession(p.root, "lib/runner/watch-cli.ts", ["--manual"]);
  t.after(() => s.child.kill("SIGKILL"));

  let at = await s.waitFor(
    new RegExp(
      `Exercise ${first.id} · [\\s\\S]*✗ Not yet[\\s\\S]*press Enter to check it again[\\s\\S]*q quit`,
    ),
  );
  assert.match(
    s.output(),
    new RegExp(`Lesson ${first.lesson} · ${esc(lesson.title)}`),
    "the exercise's lesson is shown",
  );
  assert.match(s.output(), new RegExp(`Edit ${esc(first.file)}`));

  s.send("h");
  at = await s.waitFor(/Hint( \(h hides it\)|, step 1 of \d+ \(h: the next step\))/, at);

  p.solve(first);
  s.send(""); // Enter: check again
  at = await s.waitFor(
    new RegExp(
      `✓ Exercise ${first.id} passes!\\s+Compare your answer with ${esc(first.solution)}\\.\\s+Next: exercise ${second.id} · `,
    ),
    at,
  );
  const beforePass = s.output().slice(0, s.output().indexOf(`✓ Exercise ${first.id} passes!`));
  assert.doesNotMatch(
    beforePass,
    /solutions\//,
    "the solution is not mentioned before the exercise passes",
  );
  s.send(""); // Enter: the exercise named
  at = await s.waitFor(new RegExp(`Exercise ${second.id} · [\\s\\S]*✗ Not yet`), at);
  const shown = s.output().slice(s.output().lastIndexOf(`Exercise ${second.id} · `));
  assert.doesNotMatch(shown, /passes!/, "the banner goes when the next exercise is shown");

  s.send("l");
  at = await s.waitFor(new RegExp(`✓ ${first.id}  [\\s\\S]*▶ ✗ ${second.id}  `), at);

  s.send("r");
  const runStart = await s.waitFor(/\(the same as npm run lesson \d+; q quits\)/, at);
  at = await s.waitFor(
    new RegExp(`Lesson ${second.lesson} ended\\. Press Enter to go back to exercise ${second.id}`),
    runStart,
  );
  assert.ok(at - runStart > 500, "the lesson's own output is shown");

  s.send("q");
  await s.waitFor(/Bye\./, at);
  assert.deepEqual(await s.exited, { code: 0, signal: null });
});

test("watching: saving the file re-checks it by itself; Ctrl-C (SIGINT) exits 0", {
  timeout: 120_000,
}, async (t) => {
  const p = tempProject();
  t.after(() => p.remove());
  const first = p.exercises[0]!;
  const s = startSession(p.root, "lib/runner/watch-cli.ts");
  t.after(() => s.child.kill("SIGKILL"));

  const at = await s.waitFor(
    new RegExp(`Exercise ${first.id} · [\\s\\S]*✗ Not yet[\\s\\S]*Save the file to check it again`),
  );
  p.solve(first); // no key: the folder watch sees the save
  await s.waitFor(new RegExp(`✓ Exercise ${first.id} passes!`), at);
  s.child.kill("SIGINT");
  assert.deepEqual(await s.exited, { code: 0, signal: null });
  assert.match(s.output(), /Bye\./);
});
