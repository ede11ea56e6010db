/**
 * The scaffolding of lessons 04 and 05's experiments, so that a lesson shows the experiment and its
 * result: a fresh tracker whose events go to the trace, the agent's call against it, a POST sent by
 * hand with a key, a tracker process that a supervisor starts again after it is killed, the
 * Idempotency-Key header's forms tried one by one, and a clock moved by what the agent waited.
 */
import {
  type Attempt,
  type CallResult,
  describeOutcome,
  type FileReportOptions,
  fileReport,
  httpCall,
  type Outcome,
} from "../client/client.ts";
import { agentLog, agentLogAfter } from "../client/narrate.ts";
import { t } from "../core/i18n.ts";
import type { Trace } from "../core/trace.ts";
import { ANONYMOUS_CALLER } from "../protocol/caller.ts";
import type { StoredKey } from "../protocol/key-answers.ts";
import { type FaultName, Faults } from "./faults.ts";
import { keyStoreOf } from "./key-store.ts";
import { restartedLog, serverLog } from "./narrate.ts";
import { type PacedClock, pacedClock } from "./paced-clock.ts";
import { startTracker, type Tracker, type TrackerOptions } from "./service.ts";
import { ReportStore } from "./store.ts";
import { type SupervisedOptions, superviseTracker } from "./supervisor.ts";

/** The bug report every experiment files. */
export const REPORT = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' on /login has no effect.",
  module: "auth",
};

/** An answer that is a replay of a stored one (`Idempotent-Replayed: true`). */
export function isReplay(o: Outcome): boolean {
  return o.kind === "response" && o.headers["idempotent-replayed"] === "true";
}

/** An outcome in a word or two: "timeout", "error", "201", "201 replayed". */
export function shortOutcome(o: Outcome): string {
  if (o.kind === "timeout") return t("timeout");
  if (o.kind === "error") return t("error");
  return isReplay(o) ? t("{status} replayed", { status: o.status }) : String(o.status);
}

/**
 * What the first 409 among a call's attempts asked the agent to wait, as its two headers say it:
 * Retry-After (whole seconds) and retry-after-ms ("undefined" when no 409 came).
 */
export function retryAfterOf(call: { attempts: readonly Attempt[] }): { s: string; ms: string } {
  const conflict = call.attempts.find((a) => shortOutcome(a.outcome) === "409")?.outcome;
  const headers = conflict?.kind === "response" ? conflict.headers : {};
  return { s: String(headers["retry-after"]), ms: String(headers["retry-after-ms"]) };
}

/** The report id in an answer's body ({ id }), if it has one. */
export function reportIn(body: unknown): number | undefined {
  const id = (body as { id?: unknown } | undefined)?.id;
  return typeof id === "number" ? id : undefined;
}

/** A tracker for one experiment, with its faults by request number (`{ 1: "slow" }`). */
export interface ExperimentTracker extends Omit<TrackerOptions, "onEvent" | "postgres" | "faults"> {
  faults?: Record<number, FaultName>;
}

/**
 * Starts a tracker whose events go to `trace`, runs `run` against it (with the faults, to steer
 * request #1 by its gates), and closes it.
 */
export async function withTracker<T>(
  trace: Trace,
  options: ExperimentTracker,
  run: (tracker: Tracker, faults: Faults) => Promise<T>,
): Promise<T> {
  const faults = new Faults(options.faults);
  const tracker = await startTracker({ ...options, faults, onEvent: serverLog(trace) });
  try {
    return await run(tracker, faults);
  } finally {
    await tracker.close();
  }
}

/** The agent's call, filing REPORT at `url`, each attempt told in the trace. */
export function agentCall(
  trace: Trace,
  url: string,
  options: Omit<FileReportOptions, "url" | "report" | "onAttempt">,
): Promise<CallResult> {
  return fileReport({ ...options, url, report: REPORT, onAttempt: agentLog(trace) });
}

/**
 * The agent's call as a run against a tracker (for withTracker): its last answer's status, whether
 * that was a replay ("true"/"false"), and the reports the tracker stored.
 */
export function agentCallOn(
  trace: Trace,
  options: Omit<FileReportOptions, "url" | "report" | "onAttempt">,
): (
  tracker: Tracker,
  faults: Faults,
) => Promise<{ status: number; replayed: string; reports: number }> {
  return async ({ url, store }, faults) => {
    const { final } = await agentCall(trace, url, { ...patience(faults, options), ...options });
    const status = final.kind === "response" ? final.status : 0;
    return { status, replayed: String(isReplay(final)), reports: store.countReports() };
  };
}

/**
 * The agent alone against a tracker sends one request at a time, so its attempt n is the server's
 * request n: it gives up on an attempt `timeoutMs` after a fault struck it, and waits for one the
 * server answers, however busy the machine (lib/tracker/faults.ts, noAnswer).
 */
function patience(
  faults: Faults,
  call: Pick<FileReportOptions, "timeoutMs">,
): Pick<FileReportOptions, "giveUp"> {
  return { giveUp: (n) => faults.noAnswer(n, call.timeoutMs) };
}

/** A `beforeRetry` that moves `clock` by what the agent waited, without a word in the trace. */
export function advancing(clock: PacedClock): NonNullable<FileReportOptions["beforeRetry"]> {
  return async (_retry, last, waitedMs) => {
    clock.advance(last, waitedMs);
  };
}

/**
 * One POST /reports sent by hand with `key` (as a quoted sf-string), told in the trace as `what`
 * leaves and as its answer comes back. The first line is printed before this returns.
 */
export function sendWithKey(
  trace: Trace,
  url: string,
  what: string,
  key: string,
  options: { body?: object; timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<Outcome> {
  trace.event(
    "agent",
    t("{what} → POST /reports (Idempotency-Key {key}…)", { what, key: key.slice(0, 8) }),
  );
  return httpCall({
    method: "POST",
    url: `${url}/reports`,
    body: options.body ?? REPORT,
    headers: { "idempotency-key": `"${key}"`, ...options.headers },
    timeoutMs: options.timeoutMs ?? 5_000,
  }).then((o) => {
    trace.event(
      "agent",
      t("{what} ← {outcome}", { what, outcome: describeOutcome(o) }),
      o.kind === "response" && o.status < 300 ? "ok" : "bad",
    );
    return o;
  });
}

/**
 * A tracker on a clock that moves only by what the agent waited (paced-clock.ts), with its faults
 * by request number, and the agent's same-key call against it. Before each retry `steer` runs (the
 * lesson opens or holds its gates), then the clock moves; `after` runs once the call has ended.
 */
export async function pacedRun<T>(
  trace: Trace,
  options: Omit<ExperimentTracker, "now">,
  call: Pick<FileReportOptions, "maxAttempts" | "timeoutMs" | "random">,
  steer: (retry: number, faults: Faults) => Promise<void>,
  after: (tracker: Tracker, faults: Faults, result: CallResult) => Promise<T>,
): Promise<T> {
  const clock = pacedClock();
  const pace = pacer(trace, clock);
  return withTracker(trace, { ...options, now: clock.now }, async (tracker, faults) => {
    const result = await agentCall(trace, tracker.url, {
      ...patience(faults, call),
      ...call,
      policy: "same-key",
      beforeRetry: async (retry, last, waited) => {
        await steer(retry, faults);
        await pace(last, waited);
      },
    });
    return after(tracker, faults, result);
  });
}

/** The fencing token the anonymous caller's `key` holds in the SQLite file `db`, read afresh. */
export function fenceInFile(db: string, key: string): number | undefined {
  const store = new ReportStore(db);
  try {
    return keyStoreOf(store).get(ANONYMOUS_CALLER, key)?.fence;
  } finally {
    store.close();
  }
}

/**
 * Lesson 04's key misused: a first request with `key` held at its gate (its fault is `slow`), then
 * another report with the same key, then the same report again with its fields in another order;
 * then the first is let go. The two answers, and the reports stored at the end.
 */
export async function otherThenSameWhileHeld(
  trace: Trace,
  tracker: Tracker,
  faults: Faults,
  key: string,
): Promise<{ other: string; same: string; reports: number }> {
  const first = sendWithKey(trace, tracker.url, t("first"), key);
  await faults.reached(1, "held");
  const other = await sendWithKey(trace, tracker.url, t("another report, same key"), key, {
    body: { ...REPORT, title: "Logout button does nothing" },
  });
  const { title, body, module } = REPORT;
  const same = await sendWithKey(trace, tracker.url, t("same report, same key"), key, {
    body: { module, body, title },
  });
  faults.release(1);
  await first;
  return {
    other: shortOutcome(other),
    same: shortOutcome(same),
    reports: tracker.store.countReports(),
  };
}

/** What the key table holds for the anonymous caller's `key`, read from the tracker's store. */
export function storedKey(tracker: Tracker, key: string): StoredKey | undefined {
  return keyStoreOf(tracker.store).get(ANONYMOUS_CALLER, key);
}

export interface KilledRunOptions
  extends Pick<SupervisedOptions, "variant" | "db" | "faults" | "leaseMs" | "clockMs"> {
  db: string;
  /** The agent's call, same-key (its report, url and trace are given). */
  call: Omit<FileReportOptions, "url" | "report" | "onAttempt" | "policy" | "beforeRetry">;
  /** Runs before each retry, once the process that died has a successor listening. */
  beforeRetry?: (
    retry: number,
    last: Attempt,
    waitedMs: number,
    setClock: (ms: number) => Promise<void>,
  ) => Promise<void>;
}

/**
 * Codex's reset button over HTTP: `key` made once, on confirm, then one send per label ("confirm",
 * "Try again"), each with a new `x-request-id` (1, 2, …), until one is answered. A row per send:
 * the request id, the key, the outcome.
 */
export async function sendUntilAnswered(
  trace: Trace,
  url: string,
  key: string,
  labels: readonly string[],
  timeoutMs: number,
): Promise<string[][]> {
  const rows: string[][] = [];
  for (const [i, label] of labels.entries()) {
    const id = String(i + 1);
    const what = t("{label}, request id {id}", { label, id });
    const headers = { "x-request-id": id };
    const o = await sendWithKey(trace, url, what, key, { timeoutMs, headers });
    const outcome = isReplay(o)
      ? t("{outcome}: success", { outcome: shortOutcome(o) })
      : shortOutcome(o);
    rows.push([id, `${key.slice(0, 8)}…`, outcome]);
    if (o.kind === "response") break;
  }
  return rows;
}

/**
 * A real tracker process (a child of this one, over the SQLite file `db`) with a crash fault
 * planned; the agent's same-key call against it. When the fault kills the process (SIGKILL), a supervisor
 * starts a fresh one on the same file and port before the agent's first retry. The process's events
 * come through a pipe and may trail the answer: the agent's lines wait for them.
 */
export async function killedAndRestarted(
  trace: Trace,
  options: KilledRunOptions,
): Promise<Attempt[]> {
  const { call, beforeRetry, ...supervised } = options;
  const tracker = await superviseTracker({ ...supervised, onEvent: restartedLog(trace) });
  trace.event(
    "lesson",
    options.leaseMs === undefined
      ? t("tracker process started ({variant}) over {file}", {
          variant: options.variant ?? "naive",
          file: fileName(options.db),
        })
      : t("tracker process started ({variant}) over {file}, lease {ms} ms", {
          variant: options.variant ?? "naive",
          file: fileName(options.db),
          ms: String(options.leaseMs),
        }),
  );
  const agent = agentLogAfter(trace, () => tracker.current.flush());
  try {
    const result = await fileReport({
      ...call,
      url: tracker.url,
      report: REPORT,
      policy: "same-key",
      onAttempt: agent.onAttempt,
      beforeRetry: async (retry, last, waitedMs) => {
        await agent.settled();
        if (retry === 1) {
          const exit = await tracker.restartAfterExit();
          trace.event(
            "lesson",
            t("the tracker process is gone ({how}); a new one listens on the same file and port", {
              how: exit.signal ?? t("exit code {code}", { code: String(exit.code) }),
            }),
            "warn",
          );
        }
        await beforeRetry?.(retry, last, waitedMs, (ms) => tracker.setClock(ms));
      },
    });
    await agent.settled();
    return result.attempts;
  } finally {
    await tracker.close();
  }
}

function fileName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * A `beforeRetry` that moves the tracker's paced clock by what the agent waited after its last
 * attempt (its timeout when no answer came, the wait a 409 asked for), and says so in the trace.
 * `setClock` tells a tracker in another process.
 */
export function pacer(
  trace: Trace,
  clock: PacedClock,
  setClock?: (ms: number) => Promise<void>,
): (last: Attempt, waitedMs: number) => Promise<void> {
  return async (last, waitedMs) => {
    const before = clock.now();
    const now = clock.advance(last, waitedMs);
    await setClock?.(now);
    if (now !== before)
      trace.event(
        "lesson",
        t("the tracker's clock: {before} → {now} ms (what the agent waited)", {
          before: String(before),
          now: String(now),
        }),
      );
  };
}

/** A form of the Idempotency-Key header to try: its name, and the header line(s) (none: absent). */
export type KeyForm = [form: string, value: string | string[] | undefined];

/**
 * The forms lesson 04 tries, with `key` (a UUID): the draft's sf-string and Stripe's bare value
 * (one key), an sf-string with escapes (another), and what the tracker refuses with 400 (RFC 9651
 * §3.3.3: quoted, printable ASCII, \" and \\ its only escapes; 255 characters at most, Stripe's
 * limit).
 */
export function keyForms(key: string): KeyForm[] {
  return [
    [t("draft: sf-string"), `"${key}"`],
    [t("Stripe: bare"), key],
    [t("sf-string with escapes"), '"say \\"hi\\" \\\\o/"'],
    [t("missing"), undefined],
    [t("empty"), '""'],
    [t("256 characters"), `"${"k".repeat(256)}"`],
    [t("not printable ASCII"), '"clé"'],
    [t("no closing quote"), `"${key}`],
    [t("bare with a space"), "two words"],
    [t("two header lines"), [key, key]],
  ];
}

/**
 * Sends REPORT once per form, in order, to a keyed tracker of its own over the SQLite file `db`
 * (its events are not traced): a row per form with the value as sent (cut to 24 characters) and the
 * answer ("201", "201 (replay)", "400"), and what the file holds at the end.
 */
export async function tryKeyForms(
  db: string,
  forms: readonly KeyForm[],
): Promise<{ rows: string[][]; reports: number; keys: number }> {
  const tracker = await startTracker({ variant: "keyed", db });
  try {
    const rows: string[][] = [];
    for (const [form, value] of forms) {
      const o = await httpCall({
        method: "POST",
        url: `${tracker.url}/reports`,
        body: REPORT,
        headers: value === undefined ? {} : { "idempotency-key": value },
        timeoutMs: 5_000,
      });
      const shown =
        value === undefined
          ? t("(none)")
          : [value]
              .flat()
              .map((v) => (v.length > 24 ? `${v.slice(0, 21)}…` : v))
              .join(" / ");
      const answer =
        o.kind !== "response"
          ? o.kind
          : isReplay(o)
            ? t("{status} (replay)", { status: o.status })
            : String(o.status);
      rows.push([form, shown, answer]);
    }
    return {
      rows,
      reports: tracker.store.countReports(),
      keys: keyStoreOf(tracker.store).count(),
    };
  } finally {
    await tracker.close();
  }
}
