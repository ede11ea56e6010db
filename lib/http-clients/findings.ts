/**
 * What lesson 09's measurements mean, in sentences built from them: the close-up of one lost POST as
 * the server logged it, which libraries would file a bug report twice, and stripe-node, the one that
 * keys its own POSTs. Every name and number in them comes from the run (lib/http-clients/measure.ts).
 */
import { currentLang, t } from "../core/i18n.ts";
import type { Trace } from "../core/trace.ts";
import {
  changingHeaders,
  keyUse,
  type Observation,
  postsProcessed,
  reportsAtKeyedTracker,
} from "./analysis.ts";
import { type ProbeReport, versionsOf } from "./measure.ts";
import { kyProbe } from "./probes/ky.ts";
import { stripeDefaultRetries } from "./probes/stripe.ts";
import type { LoggedAttempt } from "./server.ts";

/** Attempts the server logged in every observation the lesson keeps (get-503 is also a repeat). */
export function attemptsLogged(reports: readonly ProbeReport[]): number {
  let n = 0;
  for (const r of reports) {
    const kept = new Set<Observation>([
      ...r.repeats,
      ...Object.values(r.cases),
      r.retryAfter.delay,
      r.retryAfter.date,
      r.retryAfter.long,
    ]);
    for (const o of kept) n += o.log.length;
  }
  return n;
}

/** ky's default timeout, read from its installed source: the shortest of the defaults measured. */
export function kyTimeout(): string {
  const found = kyProbe.defaultTimeout();
  return "text" in found ? found.text : t("a few seconds");
}

/** How the server ended an attempt, in words: a reset, no answer, or the status it answered. */
function answerWords(answer: string): string {
  if (answer === "reset") return t("connection reset");
  if (answer === "hang") return t("no answer");
  return answer;
}

/** One line per attempt, as the server saw it: when, what it read, how it answered, what marks a retry. */
export function serverLogLines(trace: Trace, log: readonly LoggedAttempt[]): string[] {
  const t0 = log[0]?.arrivedAt ?? 0;
  return log.map((a) => {
    const marks = Object.entries(a.headers)
      .filter(([h]) => /idempotency|retry-count|retry-attempt/i.test(h))
      .map(([h, v]) => `${h}: ${String(v)}`);
    const note = marks.length
      ? marks.join(", ")
      : t("no Idempotency-Key, nothing marks it as a retry");
    const at = trace.style("gray", `+${String(Math.round(a.arrivedAt - t0)).padStart(5)} ms`);
    const said = t("#{n} {method} {path}: {bytes} bytes read (report filed), {answer}; {note}", {
      n: a.n,
      method: a.method,
      path: a.path,
      bytes: String(a.bodyBytes),
      answer: answerWords(a.answer),
      note,
    });
    return `  ${at}  ${trace.style("magenta", t("server"))}  ${said}`;
  });
}

/** What the close-up's POST, its answer lost every time, comes to. */
export function closeUpVerdict(log: readonly LoggedAttempt[]): string {
  const filed = postsProcessed(log);
  if (filed <= 1)
    return t(
      "It did not resend the POST: one call, one report, and the caller gets an error it must handle.",
    );
  if (keyUse(log).kind !== "none")
    return t("One call, {n} POSTs, each with the library's own key: see part 3.", { n: filed });
  const counter = changingHeaders(log)[0];
  return counter
    ? t(
        `One call, {n} reports. {header} tells the server "this is a retry", but not of which
        request: with no Idempotency-Key, the server cannot find the report it already filed.`,
        { n: filed, header: counter.name },
      )
    : t(
        `One call, {n} reports. With no Idempotency-Key, the server cannot find the report it
        already filed.`,
        { n: filed },
      );
}

/** The libraries that filed one POST more than once, after a lost answer or a timeout. */
export function duplicators(reports: readonly ProbeReport[]): ProbeReport[] {
  return reports.filter(
    (r) =>
      postsProcessed(r.cases["post-reset"].log) > 1 || postsProcessed(r.cases["post-hang"].log) > 1,
  );
}

/**
 * Library names as a list in a sentence: "got, ky" in English; in Chinese each name set off as code
 * (`got`、`ky`), since a run of bare Latin names inside a Chinese sentence reads as English left over.
 */
export function libraryNames(list: readonly string[]): string {
  return currentLang() === "zh" ? list.map((n) => `\`${n}\``).join("、") : list.join(", ");
}

const names = (rs: readonly ProbeReport[]): string => libraryNames(rs.map((r) => r.probe.name));

/** Who would file one report several times, and whether any sent a key of its own. */
function duplicatesSentence(reports: readonly ProbeReport[]): string {
  const dup = duplicators(reports);
  if (dup.length === 0) return t("None of these resent the POST.");
  const ownKey = dup.filter(
    (r) =>
      keyUse(r.cases["post-reset"].log).kind !== "none" ||
      keyUse(r.cases["post-hang"].log).kind !== "none",
  );
  if (ownKey.length > 0)
    return t(
      "Would file one report several times: {names}. Of these, {own} sent a key of its own (part 3).",
      { names: names(dup), own: names(ownKey) },
    );
  return dup.length === 1
    ? t(
        `Would file one report several times: {names}. It sent no Idempotency-Key of its own, so
        the tracker cannot tell the copies apart.`,
        { names: names(dup) },
      )
    : t(
        `Would file one report several times: {names}. None of them sent an Idempotency-Key of its
        own, so the tracker cannot tell the copies apart.`,
        { names: names(dup) },
      );
}

/**
 * Who would file a bug report twice, who would not, whether the caller's own key survived the
 * retries, and what the LLM SDKs offer: a paragraph each, those that apply to this run.
 */
export function duplicateFindings(reports: readonly ProbeReport[]): string[] {
  const paragraphs = [duplicatesSentence(reports)];
  const dup = duplicators(reports);
  const careful = reports.filter((r) => !dup.includes(r));
  if (careful.length)
    paragraphs.push(
      t(
        `Did not resend the POST: {names}. The caller still gets an error that means "unknown"
        (lesson 01), not "failed": retrying it by hand has the same problem.`,
        { names: names(careful) },
      ),
    );
  const retried = reports.filter((r) => r.cases["post-reset-keyed"].log.length > 1);
  const keptKey = retried.filter((r) => keyUse(r.cases["post-reset-keyed"].log).kind === "same");
  if (retried.length)
    paragraphs.push(
      keptKey.length === retried.length
        ? t(`Every library that resent the POST sent the caller's own Idempotency-Key unchanged on
          every attempt: a key made once per logical call and put in the request headers is all a
          keyed server (lesson 04) needs to file one report.`)
        : t("Not every library kept the caller's key on its retries: {names}.", {
            names: names(retried.filter((r) => !keptKey.includes(r))),
          }),
    );
  if (reports.some((r) => r.probe.name === "openai" || r.probe.name === "anthropic"))
    paragraphs.push(
      t(`The LLM SDKs have no key of their own to offer: the OpenAI SDK only adds one when a header
        name is set (openai client.js, "if (this.idempotencyHeader && method !== 'get')"), and none
        is by default; this Anthropic SDK has no such code at all.`),
    );
  return paragraphs;
}

/**
 * stripe-node, the counterexample: the key it made for the lost POST and kept on every retry, and its
 * default number of retries as its code, its CHANGELOG and its README state them, beside what the run
 * measured. Nothing when stripe was not measured.
 */
export function stripeFindings(reports: readonly ProbeReport[]): string[] {
  const stripe = reports.find((r) => r.probe.name === "stripe");
  if (!stripe) return [];
  const log = stripe.cases["post-reset"].log;
  const own = keyUse(log);
  const keyless = duplicators(reports).filter(
    (r) => r !== stripe && keyUse(r.cases["post-reset"].log).kind === "none",
  );
  let first: string;
  if (own.kind === "same")
    first = t(
      `stripe is the counterexample, by design: the SDK of an API whose server honours keys. It
      made one key for the call, {header}: {key}, and sent it unchanged on all {attempts} attempts,
      so where this keyless server filed {filed} reports a keyed tracker keeps {kept}. Its source
      says why (stripe esm/RequestSender.js, _defaultIdempotencyKey): "Key every POST, including
      when maxNetworkRetries is 0. Closed-connection errors are retried regardless of that
      setting".{others, select, none {} other { The others that resent the POST ({others}) sent no
      key of their own.}}`,
      {
        header: own.header,
        key: own.values[0]!.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/i, "<uuid>"),
        attempts: log.length,
        filed: postsProcessed(log),
        kept: String(reportsAtKeyedTracker(log)),
        others: keyless.length ? names(keyless) : "none",
      },
    );
  else if (own.kind === "none")
    first = t("stripe's own key: none was sent (stripe {versions}).", {
      versions: versionsOf(stripe.probe),
    });
  else
    first = t("stripe's own key: {header}, {kind} (stripe {versions}).", {
      header: own.header,
      kind: own.kind === "changes" ? t("changes") : t("not on every attempt"),
      versions: versionsOf(stripe.probe),
    });
  const retries = stripeDefaultRetries();
  const path = (s: { source: string }): string => s.source.replace(/^stripe /, "");
  const defaults = t(
    `stripe-node's default number of retries: {same, select, yes {{node} in its code (stripe
    {nodePath}, the build Node loads, and {platformPath})} other {{node} in the build Node loads
    (stripe {nodePath}), {platform} in {platformPath}}}, and its CHANGELOG at 17.0.0 says "max
    retries: 1 -> 2"; {readmeAgrees, select, yes {its README agrees} other {its README says
    {readme} (maxNetworkRetries)}}. This run measured the code: {attempts} attempts, {retried}
    retries.`,
    {
      same: retries.node.text === retries.platform.text ? "yes" : "no",
      node: retries.node.text,
      nodePath: path(retries.node),
      platform: retries.platform.text,
      platformPath: path(retries.platform),
      readmeAgrees: retries.readme.text === retries.node.text ? "yes" : "no",
      readme: retries.readme.text,
      attempts: log.length,
      retried: log.length - 1,
    },
  );
  return [first, defaults];
}
