/**
 * Every sentence the cases print, each built in one place from named values: what a case sends, why
 * one could not run, and the one-line reading of a result ("your service stored 2 rows for one key
 * after a lost response: a retry duplicates"). Lesson 11 and `npm run probe` both print these, in the
 * reader's language; `npm run probe -- --json` asks for them in English (`lang`), so that the JSON
 * is the same on every machine.
 */
import { currentLang, type Lang, tIn } from "../core/i18n.ts";
import type { CaseRun, Skip } from "./checks.ts";
import type { CaseName, Judged, Seen } from "./verdict.ts";

/** What each case sends, one sentence. */
export function caseHelp(name: CaseName, lang: Lang = currentLang()): string {
  switch (name) {
    case "same-key-twice":
      return tIn(
        lang,
        "one report sent twice with one key, the second after the first was answered",
      );
    case "different-body":
      return tIn(lang, "one key, then the same key with another report (another title)");
    case "different-path":
      return tIn(
        lang,
        "one key on the report route, then the same key and report on a second route",
      );
    case "concurrent":
      return tIn(
        lang,
        "two requests with one key at once, the first held in the handler until the second is answered",
      );
    case "lost-response":
      return tIn(
        lang,
        "the answer is thrown away after the work (the fault proxy), then the client retries",
      );
    case "handler-500":
      return tIn(lang, "the handler answers 500 before storing anything, then the client retries");
    case "handler-throws":
      return tIn(lang, "the handler throws before storing anything, then the client retries");
    case "crash":
      return tIn(
        lang,
        "the process is killed (SIGKILL) after the INSERT, before the answer; restarted on the same files",
      );
    case "other-caller":
      return tIn(
        lang,
        "two callers (two Authorization headers) send the same key and the same report",
      );
    case "quoted-key":
      return tIn(lang, 'the key in the draft\'s quoted form ("k"), then the same key bare (k)');
  }
}

/** Why a case was not run, one sentence. */
export function skipText(skip: Skip, lang: Lang = currentLang()): string {
  switch (skip) {
    case "no-count":
      return tIn(lang, "no count of stored rows: give --count-url or --count-cmd");
    case "no-second-caller":
      return tIn(lang, "no second caller: give --caller-header with another caller's header");
    case "no-other-url":
      return tIn(
        lang,
        "no second route: give --other-url with another route that creates something",
      );
    case "no-placeholder":
      return tIn(lang, "the body has no {{unique}} placeholder, so it cannot be made to differ");
    case "no-handler-hooks":
      return tIn(
        lang,
        "the probe cannot make your handler fail from outside; lesson 11 shows what the middleware does then",
      );
    case "no-restart":
      return tIn(
        lang,
        "no way to restart your service: give --restart-cmd (it must kill the process and start it again)",
      );
  }
}

/** One status as a person reads it: a number, or "lost", "reset", "timeout" in the language. */
export function seenText(seen: Seen, lang: Lang = currentLang()): string {
  if (typeof seen === "number") return String(seen);
  return tIn(lang, "{seen, select, lost {lost} reset {reset} other {timeout}}", { seen });
}

/** "lost 201" for the evidence line. */
export function statusesText(seen: readonly Seen[], lang: Lang = currentLang()): string {
  return seen.length === 0 ? tIn(lang, "no attempt") : seen.map((s) => seenText(s, lang)).join(" ");
}

/** The evidence of a run case: what the client saw, what was stored. */
export function evidence(run: Extract<CaseRun, { ran: true }>, lang: Lang = currentLang()): string {
  return tIn(
    lang,
    "answers: {seen}; rows stored: {rows} for {ops, plural, one {# operation} other {# operations}}",
    {
      seen: statusesText(
        run.facts.attempts.map((a) => a.seen),
        lang,
      ),
      rows: run.facts.rows,
      ops: run.facts.operations.length,
    },
  );
}

/** The one-line reading of a result, as a complete sentence. */
export function reading(
  name: CaseName,
  judged: Judged,
  rows: number,
  lang: Lang = currentLang(),
): string {
  switch (judged.verdict) {
    case "safe":
      return safeReading(name, lang);
    case "duplicate":
      return duplicateReading(name, rows, lang);
    case "stuck":
      return tIn(
        lang,
        "every retry was refused for {seconds} s and the operation was never done: the key is stuck",
        { seconds: ((judged.refused?.forMs ?? 0) / 1000).toFixed(1) },
      );
    case "leak":
      return tIn(
        lang,
        "the second caller got the first caller's stored answer: keys are not scoped to the caller",
      );
    case "error":
      return tIn(
        lang,
        "a request got the stored answer of another request under the same key, and its own work was never done",
      );
  }
}

/** The duplicate reading per case: how many rows, what was sent, and what follows. */
function duplicateReading(name: CaseName, rows: number, lang: Lang): string {
  const v = { rows };
  switch (name) {
    case "same-key-twice":
      return tIn(
        lang,
        "your service stored {rows} rows for one key sent twice: the key is not honoured",
        v,
      );
    case "different-body":
    case "different-path":
      return tIn(
        lang,
        "your service stored {rows} rows for two operations under one key: one of them was done twice",
        v,
      );
    case "concurrent":
      return tIn(
        lang,
        "your service stored {rows} rows for one key sent twice at once: a double submit duplicates",
        v,
      );
    case "lost-response":
      return tIn(
        lang,
        "your service stored {rows} rows for one key after a lost response: a retry duplicates",
        v,
      );
    case "handler-500":
      return tIn(
        lang,
        "your service stored {rows} rows for one key after a 500: the retry did the work again",
        v,
      );
    case "handler-throws":
      return tIn(
        lang,
        "your service stored {rows} rows for one key after a failure: the retry did the work again",
        v,
      );
    case "crash":
      return tIn(
        lang,
        "your service stored {rows} rows for one key across a crash and a restart: the key did not survive the restart",
        v,
      );
    case "other-caller":
      return tIn(
        lang,
        "your service stored {rows} rows for two callers: something was done twice",
        v,
      );
    case "quoted-key":
      return tIn(
        lang,
        "your service stored {rows} rows for one key sent quoted, then bare: the two forms of one key are two keys",
        v,
      );
  }
}

function safeReading(name: CaseName, lang: Lang): string {
  switch (name) {
    case "same-key-twice":
      return tIn(lang, "the second request was answered without doing the work again");
    case "different-body":
      return tIn(
        lang,
        "the reused key was refused, or the other report was filed as its own operation",
      );
    case "different-path":
      return tIn(lang, "the key on another route was refused, or done as its own operation");
    case "concurrent":
      return tIn(lang, "two requests at once with one key stored one row");
    case "lost-response":
      return tIn(lang, "the retry after a lost response got the stored answer: one row");
    case "handler-500":
      return tIn(lang, "after the 500 the retry did the work, once");
    case "handler-throws":
      return tIn(lang, "after the failure the retry did the work, once");
    case "crash":
      return tIn(lang, "after the crash and restart the retry did not do the work again");
    case "other-caller":
      return tIn(lang, "each caller got its own answer");
    case "quoted-key":
      return tIn(lang, "the quoted and the bare form were taken as one key");
  }
}
