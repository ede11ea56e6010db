/**
 * What lesson 09's measurements mean, in sentences built from them: the close-up of one lost POST as
 * the server logged it, which libraries would file a bug report twice, and stripe-node, the one that
 * keys its own POSTs. Every name and number in them comes from the run (lib/http-clients/measure.ts).
 */
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
  const t = kyProbe.defaultTimeout();
  return "text" in t ? `ky's ${t.text}` : "ky's few seconds";
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
      : "no Idempotency-Key, nothing marks it as a retry";
    const at = trace.style("gray", `+${String(Math.round(a.arrivedAt - t0)).padStart(5)} ms`);
    return `  ${at}  ${trace.style("magenta", "server")}  #${a.n} ${a.method} ${a.path}: ${a.bodyBytes} bytes read (report filed), ${a.answer}; ${note}`;
  });
}

/** What the close-up's POST, its answer lost every time, comes to. */
export function closeUpVerdict(log: readonly LoggedAttempt[]): string {
  const filed = postsProcessed(log);
  if (filed <= 1)
    return "It did not resend the POST: one call, one report, and the caller gets an error it must handle.";
  if (keyUse(log).kind !== "none")
    return `One call, ${filed} POSTs, each with the library's own key: see part 3.`;
  const counter = changingHeaders(log)[0];
  return `One call, ${filed} reports. ${counter ? `${counter.name} tells the server "this is a retry", but not of which request: ` : ""}with no Idempotency-Key, the server cannot find the report it already filed.`;
}

/** The libraries that filed one POST more than once, after a lost answer or a timeout. */
export function duplicators(reports: readonly ProbeReport[]): ProbeReport[] {
  return reports.filter(
    (r) =>
      postsProcessed(r.cases["post-reset"].log) > 1 || postsProcessed(r.cases["post-hang"].log) > 1,
  );
}

const names = (rs: readonly ProbeReport[]): string => rs.map((r) => r.probe.name).join(", ");

/**
 * Who would file a bug report twice, who would not, whether the caller's own key survived the
 * retries, and what the LLM SDKs offer: a paragraph each, those that apply to this run.
 */
export function duplicateFindings(reports: readonly ProbeReport[]): string[] {
  const paragraphs: string[] = [];
  const dup = duplicators(reports);
  const careful = reports.filter((r) => !dup.includes(r));
  const ownKey = dup.filter(
    (r) =>
      keyUse(r.cases["post-reset"].log).kind !== "none" ||
      keyUse(r.cases["post-hang"].log).kind !== "none",
  );
  paragraphs.push(
    dup.length
      ? `Would file one report several times: ${names(dup)}. ${
          ownKey.length === 0
            ? `${dup.length === 1 ? "It sent no" : "None of them sent an"} Idempotency-Key of its own, so the tracker cannot tell the copies apart.`
            : `Of these, ${names(ownKey)} sent a key of its own (part 3).`
        }`
      : "None of these resent the POST.",
  );
  if (careful.length)
    paragraphs.push(`Did not resend the POST: ${names(careful)}. The caller still gets an error that
      means "unknown" (lesson 01), not "failed": retrying it by hand has the same problem.`);
  const retried = reports.filter((r) => r.cases["post-reset-keyed"].log.length > 1);
  const keptKey = retried.filter((r) => keyUse(r.cases["post-reset-keyed"].log).kind === "same");
  if (retried.length)
    paragraphs.push(
      keptKey.length === retried.length
        ? `Every library that resent the POST sent the caller's own Idempotency-Key unchanged on
          every attempt: a key made once per logical call and put in the request headers is all a
          keyed server (lesson 04) needs to file one report.`
        : `Not every library kept the caller's key on its retries: ${names(
            retried.filter((r) => !keptKey.includes(r)),
          )}.`,
    );
  if (reports.some((r) => r.probe.name === "openai" || r.probe.name === "anthropic"))
    paragraphs.push(`The LLM SDKs have no key of their own to offer: the OpenAI SDK only adds one
      when a header name is set (openai client.js, "if (this.idempotencyHeader && method !==
      'get')"), and none is by default; this Anthropic SDK has no such code at all.`);
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
  const shown =
    own.kind === "none"
      ? "none"
      : own.values[0]!.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/i, "<uuid>");
  const first =
    own.kind === "same"
      ? `stripe is the counterexample, by design: the SDK of an API whose server honours keys. It
        made one key for the call, ${own.header}: ${shown}, and sent it unchanged on all
        ${log.length} attempts, so where this keyless server filed ${postsProcessed(log)} reports a
        keyed tracker keeps ${reportsAtKeyedTracker(log)}. Its source says why (stripe
        esm/RequestSender.js, _defaultIdempotencyKey): "Key every POST, including when
        maxNetworkRetries is 0. Closed-connection errors are retried regardless of that setting".${
          keyless.length
            ? ` The others that resent the POST (${names(keyless)}) sent no key of their own.`
            : ""
        }`
      : `stripe's own key: ${own.kind === "none" ? "none was sent" : `${own.header}, ${own.kind}`} (stripe ${versionsOf(stripe.probe)}).`;
  const retries = stripeDefaultRetries();
  const path = (s: { source: string }): string => s.source.replace(/^stripe /, "");
  const code =
    retries.node.text === retries.platform.text
      ? `${retries.node.text} in its code (stripe ${path(retries.node)}, the build Node loads, and ${path(retries.platform)})`
      : `${retries.node.text} in the build Node loads (stripe ${path(retries.node)}), ${retries.platform.text} in ${path(retries.platform)}`;
  const readme =
    retries.readme.text === retries.node.text
      ? "its README agrees"
      : `its README says ${retries.readme.text} (maxNetworkRetries)`;
  return [
    first,
    `stripe-node's default number of retries: ${code}, and its CHANGELOG at 17.0.0 says "max
    retries: 1 -> 2"; ${readme}. This run measured the code: ${log.length} attempts,
    ${log.length - 1} retries.`,
  ];
}
