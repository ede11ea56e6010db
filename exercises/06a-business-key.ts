/**
 * Exercise 06a · A business key for a bug report
 *
 * Goal: when the harness gives up and the model files the report again, it makes a new tool_use with
 * a new id, so a key built from the id (`run_id:tool_use_id`) misses. Derive the key from what the
 * report is about instead: the evaluation run, the module and the title. The model may change the
 * title's case, punctuation and spacing when it tries again ("Login Button does nothing."), so
 * normalise the title (and the module, which the model writes too) the way the tracker does for
 * `GET /reports?title=`: NFKC, lower case, every run of non-letters-and-digits folded to one space,
 * trimmed. Then "the key matches" and "the lookup finds it" mean the same.
 *
 * Constraints: pure functions, no I/O. The run is the harness's own identifier: take it exactly as
 * given. The key must be a valid Idempotency-Key in both forms lesson 04 taught (printable ASCII, at most
 * 255 characters, no space, double quote or comma), whatever the title's length or script. Different
 * runs, modules or (normalised) titles must give different keys. Lesson 06, section 3, shows the key
 * at work (run `npm run lesson 6`). Check your answer with `npm run check 06a`.
 */

/** The title as the tracker compares titles: "Login Button: does NOTHING!" → "login button does nothing". */
export function normalizeTitle(title: string): string {
  // TODO: NFKC, lower case, fold every run of non-letters/digits to one space, trim.
  throw new Error("TODO: write normalizeTitle (exercise 06a)");
}

/** The idempotency key for "this report in this run": the same for every wording that normalises alike. */
export function businessKey(run: string, module: string, title: string): string {
  // TODO: combine run, normalised module and normalised title unambiguously, then hash into a valid key.
  throw new Error("TODO: write businessKey (exercise 06a)");
}
