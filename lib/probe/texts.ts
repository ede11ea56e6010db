/**
 * Every sentence the cases print, each built in one place from named values: what a case sends, why
 * one could not run, and the one-line reading of a result ("your service stored 2 rows for one key
 * after a lost response: a retry duplicates"). Lesson 11 and `npm run probe` both print these.
 */
import type { CaseRun, Skip } from "./checks.ts";
import type { CaseName, Judged, Seen } from "./verdict.ts";

/** What each case sends, one sentence. */
export const CASE_HELP: Record<CaseName, string> = {
  "same-key-twice": "one report sent twice with one key, the second after the first was answered",
  "different-body": "one key, then the same key with another report (another title)",
  "different-path": "one key on the report route, then the same key and report on a second route",
  concurrent:
    "two requests with one key at once, the first held in the handler until the second is answered",
  "lost-response":
    "the answer is thrown away after the work (the fault proxy), then the client retries",
  "handler-500": "the handler answers 500 before storing anything, then the client retries",
  "handler-throws": "the handler throws before storing anything, then the client retries",
  crash:
    "the process is killed (SIGKILL) after the INSERT, before the answer; restarted on the same " +
    "files",
  "other-caller": "two callers (two Authorization headers) send the same key and the same report",
  "quoted-key": 'the key in the draft\'s quoted form ("k"), then the same key bare (k)',
};

/** Why a case was not run, one sentence. */
export const SKIP_TEXT: Record<Skip, string> = {
  "no-count": "no count of stored rows: give --count-url or --count-cmd",
  "no-second-caller": "no second caller: give --caller-header with another caller's header",
  "no-other-url": "no second route: give --other-url with another route that creates something",
  "no-placeholder": "the body has no {{unique}} placeholder, so it cannot be made to differ",
  "no-handler-hooks":
    "the probe cannot make your handler fail from outside; lesson 11 shows what the middleware " +
    "does then",
  "no-restart":
    "no way to restart your service: give --restart-cmd (it must kill the process and start it " +
    "again)",
};

/** "lost 201" for the evidence line. */
export function statusesText(seen: readonly Seen[]): string {
  return seen.length === 0 ? "no attempt" : seen.join(" ");
}

/** The evidence of a run case: what the client saw, what was stored. */
export function evidence(run: Extract<CaseRun, { ran: true }>): string {
  const seen = statusesText(run.facts.attempts.map((a) => a.seen));
  const ops = run.facts.operations.length;
  return (
    `answers: ${seen}; rows stored: ${run.facts.rows} for ${ops} ` +
    `operation${ops === 1 ? "" : "s"}`
  );
}

/** The one-line reading of a result, as a complete sentence. */
export function reading(name: CaseName, judged: Judged, rows: number): string {
  switch (judged.verdict) {
    case "safe":
      return SAFE_READING[name];
    case "duplicate":
      return `your service stored ${rows} rows for ${DUPLICATE_WHEN[name]}`;
    case "stuck":
      return (
        `every retry was refused for ${((judged.refused?.forMs ?? 0) / 1000).toFixed(1)} s ` +
        `and the operation was never done: the key is stuck`
      );
    case "leak":
      return (
        "the second caller got the first caller's stored answer: keys are not scoped to " +
        "the caller"
      );
    case "error":
      return (
        "a request got the stored answer of another request under the same key, and its " +
        "own work was never done"
      );
  }
}

/** The duplicate reading's ending per case: what was sent, and what follows. */
const DUPLICATE_WHEN: Record<CaseName, string> = {
  "same-key-twice": "one key sent twice: the key is not honoured",
  "different-body": "two operations under one key: one of them was done twice",
  "different-path": "two operations under one key: one of them was done twice",
  concurrent: "one key sent twice at once: a double submit duplicates",
  "lost-response": "one key after a lost response: a retry duplicates",
  "handler-500": "one key after a 500: the retry did the work again",
  "handler-throws": "one key after a failure: the retry did the work again",
  crash: "one key across a crash and a restart: the key did not survive the restart",
  "other-caller": "two callers: something was done twice",
  "quoted-key": "one key sent quoted, then bare: the two forms of one key are two keys",
};

const SAFE_READING: Record<CaseName, string> = {
  "same-key-twice": "the second request was answered without doing the work again",
  "different-body":
    "the reused key was refused, or the other report was filed as its own operation",
  "different-path": "the key on another route was refused, or done as its own operation",
  concurrent: "two requests at once with one key stored one row",
  "lost-response": "the retry after a lost response got the stored answer: one row",
  "handler-500": "after the 500 the retry did the work, once",
  "handler-throws": "after the failure the retry did the work, once",
  crash: "after the crash and restart the retry did not do the work again",
  "other-caller": "each caller got its own answer",
  "quoted-key": "the quoted and the bare form were taken as one key",
};
