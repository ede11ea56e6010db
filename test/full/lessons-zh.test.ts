// Every lesson in Chinese (issue: the course in its own language), against its English run of the
// same seed, at 80 columns: test/chinese-run.ts. Lesson 01's Chinese run as a machine with
// LANG=zh_CN.UTF-8 starts it is in npm test (test/lesson-zh.test.ts).
import { listLessons } from "../../lib/runner/catalog.ts";
import { chineseRunTests } from "../chinese-run.ts";

/** Lessons whose counts are measured live, and what measures them. */
const COUNTS_LIVE: Record<string, string> = {
  "02": "the herd over real HTTP: which requests collide depends on when the event loop delivers them",
  "09": "the libraries' waits and their jitter, on the real clock",
};

for (const lesson of listLessons()) {
  if (lesson.number === "01") continue;
  const live = COUNTS_LIVE[lesson.number];
  chineseRunTests(lesson.file, live === undefined ? {} : { countsLive: live });
}
