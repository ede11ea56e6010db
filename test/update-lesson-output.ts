// `npm run snapshots [-- <n> ...]`: writes each lesson's kept output again (lessons/output/, see
// test/lesson-output.ts), every lesson or the ones named, two at a time, after a change to what a
// lesson prints that is meant. A lesson that fails, or writes to stderr, leaves its file as it was.
// Review the diff (git diff lessons/output) before committing it.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, UsageError } from "../lib/core/cli.ts";
import { findLesson, type Lesson, listLessons, ROOT } from "../lib/runner/catalog.ts";
import {
  maskOutput,
  OUTPUT_DIR,
  OUTPUT_LANGUAGES,
  type OutputLanguage,
  outputDiff,
  outputFile,
  readKeptOutput,
  runForOutput,
} from "./lesson-output.ts";

/** Lessons run at once: each starts servers and processes of its own, and the machine may have 2 cores. */
const AT_ONCE = 2;

runMain(async () => {
  const lessons = listLessons();
  const named = process.argv.slice(2);
  const chosen =
    named.length === 0
      ? lessons
      : named.map(
          (n) =>
            findLesson(n, lessons) ??
            fail(
              `there is no lesson "${n}"; the lessons are ${lessons.map((l) => Number(l.number)).join(", ")}`,
            ),
        );
  const jobs = chosen.flatMap((lesson) =>
    OUTPUT_LANGUAGES.map((language) => ({ lesson, language })),
  );
  mkdirSync(join(ROOT, OUTPUT_DIR), { recursive: true });
  let failed = 0;
  const next = async (): Promise<void> => {
    for (let job = jobs.shift(); job !== undefined; job = jobs.shift())
      if (!(await update(job.lesson, job.language))) failed++;
  };
  await Promise.all(Array.from({ length: AT_ONCE }, next));
  // With every lesson written, a file no lesson keeps (a lesson renamed or removed) goes.
  if (named.length === 0 && failed === 0) {
    const kept = new Set(
      lessons.flatMap((l) => OUTPUT_LANGUAGES.map((language) => outputFile(l, language))),
    );
    for (const f of readdirSync(join(ROOT, OUTPUT_DIR))) {
      if (kept.has(`${OUTPUT_DIR}/${f}`)) continue;
      rmSync(join(ROOT, OUTPUT_DIR, f));
      console.log(`${OUTPUT_DIR}/${f}: removed (no lesson keeps it)`);
    }
  }
  if (failed > 0) {
    process.exitCode = 1;
    console.log(`${failed} file(s) not written.`);
  }
});

function fail(message: string): never {
  throw new UsageError(message);
}

/** Runs `lesson` and writes its file; false when the run failed (the file is left as it was). */
async function update(lesson: Lesson, language: OutputLanguage): Promise<boolean> {
  const file = outputFile(lesson, language);
  const ran = await runForOutput(lesson, { language, timeoutMs: 180_000 });
  if (ran.timedOut || ran.code !== 0 || ran.stderr !== "") {
    const why = ran.timedOut ? `did not finish in ${ran.limitMs / 1000} s` : `exited ${ran.code}`;
    console.log(
      `${file}: not written, lesson ${lesson.number} ${why}${ran.stderr === "" ? "" : `; its stderr:\n${ran.stderr.trimEnd()}`}`,
    );
    return false;
  }
  const before = readKeptOutput(lesson, language);
  const after = maskOutput(lesson.number, ran.stdout);
  writeFileSync(join(ROOT, file), after);
  const diff = before === undefined ? undefined : outputDiff(before, after);
  console.log(
    `${file}: ${before === undefined ? "written (new)" : diff === undefined ? "unchanged" : `written, ${diff.split(";")[0]}`} (${(ran.ms / 1000).toFixed(1)} s)`,
  );
  return true;
}
