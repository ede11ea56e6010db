/**
 * Lesson 09's tables, read from what the faulty server logged (lib/http-clients/measure.ts): one row
 * per library, each cell computed by lib/http-clients/analysis.ts. Each function returns a table's
 * heading row and its rows, for `trace.table(...)`; nothing here measures.
 */

import { t } from "../core/i18n.ts";
import {
  attemptsCell,
  changingCell,
  gapsCell,
  jitterCell,
  keyCell,
  keyUse,
  type Observation,
  postsProcessed,
  reportsAtKeyedTracker,
  retryAfterCell,
  retryAfterVerdict,
} from "./analysis.ts";
import {
  ATTEMPT_CAP,
  HANG_TIMEOUT_MS,
  JITTER_RUNS,
  LONG_RETRY_AFTER_S,
  type ProbeReport,
} from "./measure.ts";
import type { Sourced } from "./probe.ts";
import type { LoggedAttempt } from "./server.ts";

/** A table: its heading row, then its rows. */
export type Table = [header: string[], rows: string[][]];

/** What the faulty server does in each case, to every attempt. */
export function serverCasesTable(): Table {
  return [
    [t("case"), t("the server answers every attempt with")],
    [
      ["503 / 429", t("503 Service Unavailable or 429 Too Many Requests, no Retry-After")],
      ["reset", t("reads the whole body (a POST is filed), then resets the connection (TCP RST)")],
      [
        "hang",
        t("reads the whole body and never answers; the client gives up after {ms} ms", {
          ms: String(HANG_TIMEOUT_MS),
        }),
      ],
      [
        "Retry-After",
        t("503 with Retry-After (seconds, an HTTP-date, or one hour) once, then 200"),
      ],
    ],
  ];
}

/** Attempts for one call, "≥12*" for a client the lesson had to stop. */
function attemptsStarred(o: Observation): string {
  return o.stopped === "cap" || o.stopped === "budget" ? `≥${o.log.length}*` : attemptsCell(o);
}

/** Part 1: attempts the server received for one logical call, case by case. */
export function attemptsTable(reports: readonly ProbeReport[]): Table {
  const cases = [
    "get-503",
    "get-429",
    "get-reset",
    "get-hang",
    "post-503",
    "post-reset",
    "post-hang",
  ] as const;
  return [
    [
      t("library"),
      "GET 503",
      "GET 429",
      "GET reset",
      "GET hang",
      "POST 503",
      "POST reset",
      "POST hang",
    ],
    reports.map((r) => [r.probe.name, ...cases.map((c) => attemptsStarred(r.cases[c]))]),
  ];
}

/** The footnote under part 1 when a library had to be stopped; undefined when none was. */
export function stoppedNote(reports: readonly ProbeReport[]): string | undefined {
  return reports.some((r) => Object.values(r.cases).some((o) => o.stopped))
    ? `  ${t("* still retrying at {n} attempts, stopped by the lesson: the library itself sets no limit.", { n: ATTEMPT_CAP })}`
    : undefined;
}

/** Part 2: the gaps between attempts, whether they jitter, and the three Retry-After cases. */
export function waitsTable(reports: readonly ProbeReport[]): Table {
  return [
    [
      t("library"),
      t("gaps after 503 (median of {n})", { n: JITTER_RUNS }),
      t("jitter"),
      t("RA seconds"),
      t("RA date"),
      t("RA {h} h", { h: LONG_RETRY_AFTER_S / 3600 }),
    ],
    reports.map((r) => {
      const runs = r.repeats.map((o) => o.log);
      const ra = r.retryAfter;
      return [
        r.probe.name,
        gapsCell(runs),
        jitterCell(runs),
        t("{verdict} ({s} s asked)", {
          verdict: retryAfterCell(retryAfterVerdict(ra.delay, ra.windowMs)),
          s: ra.seconds,
        }),
        retryAfterCell(retryAfterVerdict(ra.date, ra.windowMs)),
        retryAfterCell(retryAfterVerdict(ra.long, ra.windowMs), true),
      ];
    }),
  ];
}

/** Part 3: the key a library sends of its own, the headers that mark a retry, its default timeout. */
export function sendsTable(
  reports: readonly ProbeReport[],
  timeouts: ReadonlyMap<string, Sourced>,
): Table {
  return [
    [
      t("library"),
      t("own Idempotency-Key (POST, answer lost)"),
      t("headers that change on a retry"),
      t("default timeout"),
    ],
    reports.map((r) => [
      r.probe.name,
      keyCell(r.cases["post-reset"].log),
      changingCell(r.cases["get-503"].log),
      timeouts.get(r.probe.name)!.text,
    ]),
  ];
}

/** Reports at lesson 04's keyed tracker, or why there are none to count. */
function keyedCell(log: readonly LoggedAttempt[]): string {
  const n = reportsAtKeyedTracker(log);
  return n === undefined ? t("– (no key: 400)") : String(n);
}

/** Reports filed for one POST, marked when more than one. */
function reportsCell(o: Observation): string {
  const n = postsProcessed(o.log);
  return n > 1 ? t("{n}  ✗ duplicate", { n: `${n}${o.stopped ? "*" : ""}` }) : `${n}`;
}

/** Whether the caller's own key went out unchanged on every attempt of the lost-answer POST. */
function ownKeyCell(log: readonly LoggedAttempt[]): string {
  const keyed = keyUse(log);
  if (keyed.kind === "same")
    return log.length > 1
      ? t("same key on all {n}", { n: log.length })
      : t("{n, plural, one {# attempt} other {# attempts}}", { n: log.length });
  if (keyed.kind === "none") return t("key dropped");
  return keyed.kind === "changes" ? t("changes") : t("not on every attempt");
}

/**
 * What follows for the agent: reports filed after a lost answer and after a timeout, what lesson
 * 04's keyed tracker would keep, and whether the caller's own key survived the retries.
 */
export function reportsTable(reports: readonly ProbeReport[]): Table {
  return [
    [
      t("library"),
      t("reports after a lost answer"),
      t("after a timeout"),
      t("lost answer, at a keyed tracker"),
      t("your own key on every attempt"),
    ],
    reports.map((r) => [
      r.probe.name,
      reportsCell(r.cases["post-reset"]),
      reportsCell(r.cases["post-hang"]),
      keyedCell(r.cases["post-reset"].log),
      ownKeyCell(r.cases["post-reset-keyed"].log),
    ]),
  ];
}
