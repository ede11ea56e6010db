// `node --import tsx test/check-chinese-lesson.ts <lesson> [seed]`: runs a lesson in English and in
// Chinese at 80 columns and prints what the lesson tests will ask of its Chinese run (English left
// over, lines too wide, counts that differ). For translators; exits 1 when something is wrong.
import { findLesson } from "../lib/runner/catalog.ts";
import { countDifference, countsOf, englishRuns, widerThan } from "./chinese-output.ts";
import { runLesson } from "./lesson-run.ts";

const [query = "", seed = "1"] = process.argv.slice(2);
const lesson = findLesson(query);
if (!lesson) throw new Error(`no lesson "${query}"`);
const args = [lesson.file, "--seed", seed];
const [en, zh] = await Promise.all([
  runLesson([...args, "--lang", "en"], { width: 80, timeoutMs: 180_000 }),
  runLesson([...args, "--lang", "zh"], { width: 80, timeoutMs: 180_000 }),
]);
let problems = 0;
for (const r of englishRuns(zh.stdout)) {
  problems++;
  console.log(`English left (line ${r.line}): ${r.run}`);
}
for (const l of widerThan(zh.stdout, 80)) {
  problems++;
  console.log(`wider than 80: ${l}`);
}
const difference = countDifference(countsOf(en.stdout), countsOf(zh.stdout));
if (difference) {
  problems++;
  console.log(`counts differ: ${difference}`);
}
for (const [lang, ran] of [
  ["en", en],
  ["zh", zh],
] as const) {
  if (ran.code !== 0 || ran.stderr !== "" || ran.stdout.length < 500) {
    problems++;
    console.log(`the ${lang} run failed: exit ${ran.code}, stderr ${ran.stderr.slice(0, 500)}`);
  }
}
console.log(problems === 0 ? "the Chinese run is clean" : `${problems} problem(s)`);
process.exitCode = problems === 0 ? 0 : 1;
