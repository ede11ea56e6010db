// One lesson in Chinese in the quick suite: lesson 01, started as on a machine whose LANG asks for
// Chinese (no --lang, no WORKBOOK_LANG): every line fits 80 columns, no English is left, and the
// counts and verdicts are the English run's. Every other lesson: test/full/lessons-zh.test.ts.
import { chineseRunTests } from "./chinese-run.ts";

chineseRunTests("lessons/01-timeout-truths.ts", {
  env: { WORKBOOK_LANG: "", LANG: "zh_CN.UTF-8", LC_ALL: "", LC_MESSAGES: "" },
});
