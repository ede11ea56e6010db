// Lesson 04 in Chinese, at 80 columns, against the English run of the same seed: every line fits, the
// counts and verdicts are the English run's, and no English is left but in the agent's own lines
// (attempts and outcomes, lib/client/narrate.ts: a problem's detail is the API's English).
import { chineseRunTests } from "./chinese-run.ts";

chineseRunTests("lessons/04-idempotency-keys.ts");
