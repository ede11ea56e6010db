/**
 * What the faulty server's logs say about a client, as pure functions: how many attempts, the gaps
 * between them, whether they jitter, whether a Retry-After was honoured, which idempotency key and
 * which changing headers were sent. The lesson's table is made only of these.
 */
import type { IncomingHttpHeaders } from "node:http";
import { t } from "../core/i18n.ts";
import { median } from "../core/stats.ts";
import type { LoggedAttempt } from "./server.ts";

/** How an observation of one logical call ended. */
export interface Observation {
  log: readonly LoggedAttempt[];
  /** The library's final word: success, or its error message. */
  outcome: { ok: true } | { ok: false; error: string };
  /** Set when the lesson stopped the call: after `cap` attempts, when it was still waiting after a window, or past the budget (a safety net). */
  stopped?: "cap" | "window" | "budget";
}

/** Margin for timer rounding when comparing a wait with what the server asked for. */
export const RETRY_AFTER_TOLERANCE_MS = 20;

/** Spread of the gaps at one retry, across repeated runs, beyond which we call it jitter. */
export const JITTER_THRESHOLD_MS = 25;

/**
 * The gaps before each retry: from the end of attempt n (answer sent, connection reset, or the
 * client gone) to the arrival of attempt n+1. That is the client's own wait, plus connecting.
 */
export function gapsMs(log: readonly LoggedAttempt[]): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < log.length; i++) {
    const prev = log[i - 1]!;
    gaps.push(log[i]!.arrivedAt - (prev.endedAt ?? prev.arrivedAt));
  }
  return gaps;
}

/** The median, kept here too for the callers that import it from this module. */
export { median };

/** Per retry index, the gaps seen in each of several runs of the same case. */
export function gapsByRetry(runs: readonly (readonly LoggedAttempt[])[]): number[][] {
  const byIndex: number[][] = [];
  for (const log of runs) {
    for (const [i, g] of gapsMs(log).entries()) {
      byIndex[i] ??= [];
      byIndex[i].push(g);
    }
  }
  return byIndex;
}

/** The median gap before each retry, over runs. */
export function medianGaps(runs: readonly (readonly LoggedAttempt[])[]): number[] {
  return gapsByRetry(runs).map(median);
}

/**
 * Jitter, seen from outside: the same case run several times at once; if the gap before the same
 * retry differs between runs by more than `thresholdMs`, the client randomises its waits. A busy
 * machine can only make a timer late, never early, so at each retry the slowest run is left out
 * before the spread is taken: one late timer is not jitter. Undefined when there are no three gaps
 * at the same retry to compare (it did not retry).
 */
export function jitter(
  runs: readonly (readonly LoggedAttempt[])[],
  thresholdMs = JITTER_THRESHOLD_MS,
): { jitters: boolean; spreadMs: number } | undefined {
  const spreads = gapsByRetry(runs)
    .filter((gs) => gs.length >= 3)
    .map((gs) => {
      const kept = [...gs].sort((a, b) => a - b).slice(0, -1);
      return kept.at(-1)! - kept[0]!;
    });
  if (spreads.length === 0) return undefined;
  const spreadMs = Math.max(...spreads);
  return { jitters: spreadMs > thresholdMs, spreadMs };
}

/**
 * The Retry-After to send so that honouring it cannot be mistaken for the client's own backoff:
 * whole seconds, at least 1, and well above the longest first gap the client showed on its own.
 */
export function retryAfterSecondsFor(ownFirstGapMaxMs: number | undefined): number {
  const floor = 1.5 * (ownFirstGapMaxMs ?? 0) + 200;
  return Math.max(1, Math.ceil(floor / 1000));
}

export type RetryAfterVerdict =
  | { kind: "honoured"; waitedMs: number }
  | { kind: "ignored"; waitedMs: number }
  | { kind: "not-retried" }
  | { kind: "waiting"; windowMs: number };

/**
 * Whether the first retry came no earlier than the first answer's Retry-After asked: `seconds`
 * after that answer, or at its HTTP-date (compared in wall-clock time).
 */
export function retryAfterVerdict(obs: Observation, windowMs: number): RetryAfterVerdict {
  const [first, second] = obs.log;
  if (!first) throw new Error("no attempt reached the server");
  if (!second)
    return obs.stopped === "window" ? { kind: "waiting", windowMs } : { kind: "not-retried" };
  const waitedMs = second.arrivedAt - (first.endedAt ?? first.arrivedAt);
  const ra = first.retryAfter;
  if (!ra) throw new Error("the first answer carried no Retry-After");
  const honoured =
    ra.dateWall !== undefined
      ? second.arrivedWall >= ra.dateWall - RETRY_AFTER_TOLERANCE_MS
      : waitedMs >= Number(ra.header) * 1000 - RETRY_AFTER_TOLERANCE_MS;
  return { kind: honoured ? "honoured" : "ignored", waitedMs };
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/** The idempotency key a client sent (any header named like one), and whether retries reused it. */
export function keyUse(
  log: readonly LoggedAttempt[],
):
  | { kind: "none" }
  | { kind: "same" | "changes" | "not on every attempt"; header: string; values: string[] } {
  const names = new Set(
    log.flatMap((a) => Object.keys(a.headers).filter((h) => /idempotency/i.test(h))),
  );
  if (names.size === 0) return { kind: "none" };
  const header = [...names][0]!;
  const values = log.map((a) => headerValue(a.headers, header) ?? "");
  if (values.includes("")) return { kind: "not on every attempt", header, values };
  return { kind: new Set(values).size === 1 ? "same" : "changes", header, values };
}

/** Headers whose value is not the same on every attempt: how a client marks its retries. */
export function changingHeaders(
  log: readonly LoggedAttempt[],
): { name: string; values: string[] }[] {
  if (log.length < 2) return [];
  const names = new Set(log.flatMap((a) => Object.keys(a.headers)));
  const out: { name: string; values: string[] }[] = [];
  for (const name of [...names].sort()) {
    const values = log.map((a) => headerValue(a.headers, name) ?? "(absent)");
    if (new Set(values).size > 1) out.push({ name, values });
  }
  return out;
}

/** POST attempts whose body the server read in full: each one did the work (filed the report). */
export function postsProcessed(log: readonly LoggedAttempt[]): number {
  return log.filter((a) => a.method === "POST" && a.bodyBytes > 0).length;
}

/**
 * Reports a keyed tracker (lesson 04) would hold after these attempts: it files a report for the
 * first processed POST of each Idempotency-Key (quoted or bare, the same key) and replays the stored
 * answer for the others. It refuses a POST without a key (400, nothing stored), so when any
 * processed POST had none the answer is undefined: that client cannot use the keyed tracker as it
 * is. The faulty server itself keeps no keys: this applies the keyed rule to its log.
 */
export function reportsAtKeyedTracker(log: readonly LoggedAttempt[]): number | undefined {
  const keys = new Set<string>();
  for (const a of log) {
    if (a.method !== "POST" || a.bodyBytes === 0) continue;
    const name = Object.keys(a.headers).find((h) => h.toLowerCase() === "idempotency-key");
    const key = name === undefined ? undefined : headerValue(a.headers, name);
    if (key === undefined || key === "") return undefined;
    keys.add(key.replace(/^"(.*)"$/, "$1"));
  }
  return keys.size;
}

// ---- cells for the lesson's table ----

/** "3", or "≥12 (stopped)" when the lesson had to stop a client that would not. */
export function attemptsCell(obs: Observation): string {
  return obs.stopped === "cap" || obs.stopped === "budget"
    ? t("≥{n} (stopped)", { n: String(obs.log.length) })
    : String(obs.log.length);
}

/** "85 ms", "1.0 s" or "12 s": rounded first, so that 999.6 ms reads 1.0 s, not 1000 ms. */
export function ms(value: number): string {
  if (Math.round(value) < 1000) return `${Math.round(value)} ms`;
  const tenths = Math.round(value / 100) / 10;
  return tenths < 10 ? `${tenths.toFixed(1)} s` : `${Math.round(value / 1000)} s`;
}

/** The median gaps in ms, e.g. "51, 101, 202, 403, 808 ms"; a long list keeps its first three and its last. */
export function gapsCell(runs: readonly (readonly LoggedAttempt[])[]): string {
  const gaps = medianGaps(runs).map((g) => String(Math.round(g)));
  if (gaps.length === 0) return "–";
  const shown = gaps.length > 5 ? [...gaps.slice(0, 3), "…", gaps.at(-1)!] : gaps;
  return `${shown.join(", ").replace(", …,", " …")} ms`;
}

export function jitterCell(runs: readonly (readonly LoggedAttempt[])[]): string {
  const j = jitter(runs);
  if (!j) return "–";
  const spread = String(Math.round(j.spreadMs / 2));
  return j.jitters ? t("yes ±{spread} ms", { spread }) : t("no ±{spread} ms", { spread });
}

/** A Retry-After verdict in a few words; `long` for the one-hour case, where "ignored" means it fell back on its own backoff. */
export function retryAfterCell(v: RetryAfterVerdict, long = false): string {
  switch (v.kind) {
    case "honoured":
      return long ? t("waited {time}", { time: ms(v.waitedMs) }) : `✓ ${ms(v.waitedMs)}`;
    case "ignored":
      return long
        ? t("own backoff {time}", { time: ms(v.waitedMs) })
        : t("✗ after {time}", { time: ms(v.waitedMs) });
    case "not-retried":
      return t("not retried");
    case "waiting":
      return t("waiting at {time}", { time: ms(v.windowMs) });
  }
}

export function keyCell(log: readonly LoggedAttempt[]): string {
  const k = keyUse(log);
  switch (k.kind) {
    case "none":
      return t("none");
    case "same":
      return t("{header}, same on all {n}", { header: k.header, n: k.values.length });
    case "changes":
      return t("{header}, changes", { header: k.header });
    case "not on every attempt":
      return t("{header}, not on every attempt", { header: k.header });
  }
}

export function changingCell(log: readonly LoggedAttempt[]): string {
  const changing = changingHeaders(log);
  if (log.length < 2) return t("– (no retry)");
  if (changing.length === 0) return t("none");
  return changing.map((c) => `${c.name}: ${c.values.join(",")}`).join("; ");
}
