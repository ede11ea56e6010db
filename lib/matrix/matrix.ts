/**
 * The fault matrix (lesson 08): every tracker variant against every fault, with the client policy
 * that goes with it, each cell run live and counted in its own SQLite file. One logical call ("file
 * this report") should leave exactly one report; a cell says how many it left.
 *
 *   lose-response           the report is committed, the answer never leaves; the agent times out
 *   slow                    the handler stalls past the agent's timeout, the retry runs beside it
 *   concurrent              two calls with one key at once (two workers, a double submit): no timeout
 *   crash-between-commits   the process is killed (SIGKILL) right after the report's commit
 *   crash-after-claim       the process is killed right after claiming the key (keyed variants only)
 *   pause-past-lease        the holder stops until another request has taken its key over and is done
 *
 * The crash cells run the tracker in a child process under a supervisor that restarts it on the same
 * file; the others run it in this process. Every wait that orders events is a gate (Faults.reached,
 * release, beforeRetry), never a sleep. The tracker's clock is paced by the agent's waits
 * (lib/tracker/paced-clock.ts), so a lease runs out exactly when the agent has waited long enough, on
 * any machine.
 */

import {
  type Attempt,
  type CallResult,
  type FileReportOptions,
  fileReport,
  type PolicyName,
} from "../client/client.ts";
import { attemptEndText, attemptOk, attemptStartText } from "../client/narrate.ts";
import { t } from "../core/i18n.ts";
import { seeded, uuid } from "../core/random.ts";
import { Trace } from "../core/trace.ts";
import { type NotifyConfig, notifyEffects, notifyPlugin } from "../outbox/notify-effects.ts";
import { type FaultName, Faults } from "../tracker/faults.ts";
import type { TrackerEvent } from "../tracker/narrate.ts";
import { type PacedClock, pacedClock } from "../tracker/paced-clock.ts";
import { startTracker } from "../tracker/service.ts";
import { countReportsIn } from "../tracker/store.ts";
import { superviseTracker } from "../tracker/supervisor.ts";
import { VARIANT_NAMES, type VariantName } from "../tracker/variant.ts";
import { availableVariants } from "../tracker/variants/index.ts";
import {
  type CellEvent,
  classify,
  type NewCellEvent,
  receiveEvent,
  sendEvent,
  statusOf,
} from "./cell-events.ts";

export type { CellEvent };
export { statusOf };

/** The matrix's faults, in column order. `concurrent` is not a server fault: it is two calls at once. */
export const MATRIX_FAULTS = [
  "lose-response",
  "slow",
  "concurrent",
  "crash-between-commits",
  "crash-after-claim",
  "pause-past-lease",
] as const;
export type MatrixFault = (typeof MATRIX_FAULTS)[number];

/**
 * Every fault one cell can be stepped through with (lesson 08's --fault, the demo page): the
 * matrix's six, plus no fault at all and a request dropped before any handler ran.
 */
export const STEP_FAULTS = ["none", "drop-request", ...MATRIX_FAULTS] as const;
export type StepFault = (typeof STEP_FAULTS)[number];

export function isStepFault(s: string): s is StepFault {
  return (STEP_FAULTS as readonly string[]).includes(s);
}

/** What each fault does, in a line: the legend under the matrix. */
export function matrixFaultHelp(fault: MatrixFault): string {
  switch (fault) {
    case "lose-response":
      return t("committed, then the answer is lost; the agent times out and retries");
    case "slow":
      return t("the handler stalls past the agent's timeout; the retry runs beside it");
    case "concurrent":
      return t("two calls for one report at once, with one key (none for naive)");
    case "crash-between-commits":
      return t("the tracker process is killed (SIGKILL) right after the report's commit");
    case "crash-after-claim":
      return t("the tracker process is killed right after claiming the key");
    case "pause-past-lease":
      return t("the holder stops until another request has taken its key over, then goes on");
  }
}

/**
 * What runCell can run: the matrix's faults, and `crash-before-commit` (lesson 07: the process is
 * killed after the handler's work, a call to another service included, before the report's commit).
 */
export type CellFault = StepFault | "crash-before-commit";
const CRASHES: readonly CellFault[] = [
  "crash-between-commits",
  "crash-after-claim",
  "crash-before-commit",
];

/** The variants that exist, in the matrix's row order. */
export function matrixVariants(): VariantName[] {
  const built = availableVariants();
  return VARIANT_NAMES.filter((v) => built.includes(v));
}

/** The client policy a variant is meant for: a keyless blind retry for naive, one key reused for the rest. */
export function policyFor(variant: VariantName): PolicyName {
  return variant === "naive" ? "blind-retry" : "same-key";
}

export interface CellOptions {
  /** Where the cell's SQLite file goes (a scratch path for a name). */
  dbPath: (name: string) => string;
  /** Seed for the agent's keys (default 1). */
  seed?: number;
  /** Default: policyFor(variant). */
  policy?: PolicyName;
  /** Where the cell's events go; default: a trace kept in `CellResult.events`. */
  trace?: Trace;
  /** Colour in the kept trace (default none). */
  color?: boolean;
  /**
   * The kept trace's width, for a caller that prints its lines: a long event wraps there as a live
   * trace wraps it, its continuation lines under its text (default: every line whole).
   */
  width?: number;
  /** The section heading opened on `trace` (default "<variant> × <fault> (the agent: <policy>)"); false: none. */
  heading?: string | false;
  /** The agent's patience, ms, where a timeout is the point (default 150). */
  timeoutMs?: number;
  /** The keyed variants' lease, ms (default 400). */
  leaseMs?: number;
  /** How the tracker tells a maintainer of each new report (lesson 07); default: it does not. */
  notify?: NotifyConfig;
  /** Crash cells: called once the killed process is gone, before the restart (to look at the file then). */
  atCrash?: (db: string) => Promise<void> | void;
  /**
   * Receives each step of the cell as data, just before the trace prints it (and, with --step,
   * pauses after it): lesson 08's stepper and the demo page read the same steps.
   */
  onEvent?: (event: CellEvent) => void;
  /**
   * The trace pauses after each event (--step): the crash cells' tracker processes then wait after
   * each of theirs too, so that the file holds exactly what the events so far say.
   */
  stepped?: boolean;
}

export interface CellResult {
  variant: VariantName;
  fault: CellFault;
  policy: PolicyName;
  /** The cell's SQLite file (it stays until the caller's scratch folder is removed). */
  db: string;
  /** Reports in the cell's database at the end. */
  reports: number;
  /** What one logical call should leave: one report. */
  expected: 1;
  verdict: "ok" | "duplicate" | "lost";
  /** False when the variant has no such moment (no claim to crash after): the fault never fired. */
  fired: boolean;
  /** Each call's attempts, as "timeout", "error", "201", "409", "201 replayed". */
  calls: string[][];
  /** The cell's trace, line by line (empty when the caller gave its own trace). */
  events: string[];
  ms: number;
}

const DEFAULT_TIMEOUT_MS = 150;
const DEFAULT_LEASE_MS = 400;
/** Where no timeout is meant to happen, the agent waits this long (a process start-up may be slow). */
const PATIENT_MS = 5_000;
const report = {
  title: "Login button does nothing",
  body: "Clicking 'Log in' on /login has no effect.",
  module: "auth",
};

/** The name of a cell's SQLite file, given to `CellOptions.dbPath`. */
export function cellDbName(variant: VariantName, fault: CellFault, policy: PolicyName): string {
  return `${variant}-${fault}-${policy}.sqlite`;
}

/** Runs one cell live and counts what it left. */
export async function runCell(
  variant: VariantName,
  fault: CellFault,
  options: CellOptions,
): Promise<CellResult> {
  const started = performance.now();
  const events: string[] = [];
  // The kept trace is a record, not a screen: its lines stay whole unless the caller gives the width it prints them at.
  const trace =
    options.trace ??
    new Trace({
      color: options.color ?? false,
      step: false,
      width: options.width ?? Number.MAX_SAFE_INTEGER,
      write: (line) => events.push(line),
    });
  const policy = options.policy ?? policyFor(variant);
  if (options.trace && options.heading !== false)
    trace.section(
      options.heading ?? t("{variant} × {fault} (the agent: {policy})", { variant, fault, policy }),
    );
  let seq = 0;
  const cell: Cell = {
    variant,
    fault,
    policy,
    trace,
    random: seeded(options.seed ?? 1),
    db: options.dbPath(cellDbName(variant, fault, policy)),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    options,
    // Every step goes to the listener first, then to the trace (which, with --step, pauses after it).
    emit(e) {
      options.onEvent?.({ seq: ++seq, ...e });
      trace.event(e.actor, e.text, e.mark);
    },
  };
  const run = CRASHES.includes(fault) ? crashCell : inProcessCell;
  const { reports, fired, results } = await run(cell);
  return {
    variant,
    fault,
    policy,
    db: cell.db,
    reports,
    expected: 1,
    verdict: reports === 1 ? "ok" : reports > 1 ? "duplicate" : "lost",
    fired,
    calls: results.map((r) => r.attempts.map((a) => statusOf(a.outcome))),
    events,
    ms: Math.round(performance.now() - started),
  };
}

/** Runs `cells` at most `concurrency` at a time; results in the order given. */
export async function runCells(
  cells: Array<{ variant: VariantName; fault: MatrixFault }>,
  options: Omit<CellOptions, "trace">,
  concurrency = 4,
): Promise<CellResult[]> {
  const results: CellResult[] = new Array(cells.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cells.length) {
      const i = next++;
      results[i] = await runCell(cells[i]!.variant, cells[i]!.fault, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, cells.length) }, worker));
  return results;
}

interface Cell {
  variant: VariantName;
  fault: CellFault;
  policy: PolicyName;
  trace: Trace;
  random: () => number;
  db: string;
  timeoutMs: number;
  leaseMs: number;
  options: CellOptions;
  /** One step of the cell: to `options.onEvent`, then to the trace. */
  emit(e: NewCellEvent): void;
}

interface Ran {
  reports: number;
  fired: boolean;
  results: CallResult[];
}

/** A step the lesson itself takes (start, restart, the clock, letting a request go). */
function lessonStep(
  cell: Cell,
  what: NewCellEvent["what"],
  text: string,
  mark?: "warn",
  extra: Partial<NewCellEvent> = {},
): void {
  cell.emit({ actor: "lesson", what, text, ...(mark ? { mark } : {}), ...extra });
}

/** A tracker event as a step (the generation and PID of its process, in the crash cells). */
function serverStep(
  cell: Cell,
  e: TrackerEvent,
  process?: { generation: number; pid: number },
): void {
  const step = classify(e, cell.variant);
  // A restarted process's lines say so.
  if (process && process.generation > 1)
    step.text = t("#{request} [restarted] {text}", { request: e.requestNo, text: e.text });
  cell.emit({ ...step, ...(process ?? {}) });
}

/** Each attempt of the agent's call `callNo` as it starts and ends. */
function agentSteps(cell: Cell, callNo: number): NonNullable<FileReportOptions["onAttempt"]> {
  return (e) => {
    if (e.phase === "start") cell.emit(sendEvent(callNo, e.n, e.key, attemptStartText(e.n, e.key)));
    else
      cell.emit(receiveEvent(callNo, e.attempt, attemptEndText(e.attempt), attemptOk(e.attempt)));
  };
}

/** Moves the tracker's clock by what the agent waited after `last`, and says so in the trace. */
function pacer(cell: Cell, clock: PacedClock, setClock?: (ms: number) => Promise<void>) {
  return async (last: Attempt, waitedMs: number): Promise<void> => {
    const before = clock.now();
    const now = clock.advance(last, waitedMs);
    await setClock?.(now);
    if (now !== before)
      lessonStep(
        cell,
        "clock",
        t("the tracker's clock: {before} → {now} ms (what the agent waited)", {
          before: String(before),
          now: String(now),
        }),
        undefined,
        { from: before, to: now },
      );
  };
}

/** The agent's call: one report, the cell's policy. */
function call(
  cell: Cell,
  extra: Partial<FileReportOptions> & Pick<FileReportOptions, "url">,
  callNo = 1,
): Promise<CallResult> {
  return fileReport({
    report,
    policy: cell.policy,
    maxAttempts: 4,
    timeoutMs: cell.timeoutMs,
    random: cell.random,
    onAttempt: agentSteps(cell, callNo),
    ...extra,
  });
}

/** Resolves when `gate` opens or `done` settles, whichever is first: true for the gate. */
function gateOrDone(gate: Promise<void>, done: Promise<unknown>): Promise<boolean> {
  return Promise.race([
    gate.then(() => true),
    done.then(
      () => false,
      () => false,
    ),
  ]);
}

/** none, drop-request, lose-response, slow, concurrent, pause-past-lease: the tracker in this process. */
async function inProcessCell(cell: Cell): Promise<Ran> {
  const clock = pacedClock();
  // concurrent holds #1 as `slow` does; none plans no fault.
  const planned = cell.fault === "concurrent" ? "slow" : (cell.fault as FaultName);
  const faults = new Faults(planned === "none" ? {} : { 1: planned });
  const tracker = await startTracker({
    variant: cell.variant,
    db: cell.db,
    faults,
    leaseMs: cell.leaseMs,
    now: clock.now,
    onEvent: (e) => serverStep(cell, e),
    ...(cell.options.notify ? { sideEffects: notifyEffects(cell.options.notify) } : {}),
  });
  const pace = pacer(cell, clock);
  // One agent sends one request at a time, so its attempt n is the server's request n: it gives up on
  // the attempts a fault holds or loses, and waits for the ones answered, however busy the machine.
  const giveUp = (n: number): Promise<void> => faults.noAnswer(n, cell.timeoutMs);
  /** A request held at its gate (slow, pause-past-lease) when the agent needs nothing more: let it go. */
  const letGo = (text: string): void => {
    if (faults.hasReached(1, "held") && !faults.hasReached(1, "handled")) {
      lessonStep(cell, "release", text, "warn");
      faults.release(1);
    }
  };
  try {
    const results: CallResult[] = [];
    switch (cell.fault) {
      case "none":
      case "drop-request":
      case "lose-response":
        results.push(
          await call(cell, {
            url: tracker.url,
            giveUp,
            beforeRetry: (_, last, waited) => pace(last, waited),
          }),
        );
        break;
      case "slow": {
        // #1 stalls; the agent times out and retries. Once the retry is answered, #1 is let go; a
        // further retry (after a 409) waits until #1 is done. An agent that does not retry (or is
        // refused before #1 stalls) is done first: then #1 is let go.
        const agent = call(cell, {
          url: tracker.url,
          giveUp,
          beforeRetry: async (retry, last, waited) => {
            if (retry >= 2) await faults.reached(1, "handled");
            await pace(last, waited);
          },
        });
        if (await gateOrDone(faults.reached(2, "answered"), agent))
          letGo(t("#2 has its answer: the lesson lets #1 go on"));
        else letGo(t("the agent is done: the lesson lets #1 go on"));
        results.push(await agent);
        break;
      }
      case "concurrent": {
        // Two calls for one report, one key between them (a keyless blind retry for naive). #1 is
        // held at its gate until #2 has its answer, so the two overlap on every machine; neither
        // times out. A 409 sends #2's caller back once #1 is done.
        const key = cell.policy === "same-key" ? uuid(cell.random) : undefined;
        const shared = { ...(key ? { key } : {}), timeoutMs: PATIENT_MS };
        const first = call(cell, { url: tracker.url, ...shared });
        // A request refused before its work (no key where one is required) never reaches the gate.
        await gateOrDone(faults.reached(1, "held"), first);
        const second = call(
          cell,
          {
            url: tracker.url,
            ...shared,
            beforeRetry: async (_, last, waited) => {
              await gateOrDone(faults.reached(1, "handled"), first);
              await pace(last, waited);
            },
          },
          2,
        );
        if (await gateOrDone(faults.reached(2, "answered"), second))
          letGo(t("#2 has its answer: the lesson lets #1 go on"));
        else letGo(t("the second call is done: the lesson lets #1 go on"));
        results.push(await first, await second);
        break;
      }
      case "pause-past-lease":
        // The holder wakes by itself once another request took its key over and is done
        // (lib/tracker/faults.ts). A variant without a claim has nothing to take over: the retry simply
        // ran beside the paused #1, so the lesson lets #1 go once the agent is done.
        results.push(
          await call(cell, {
            url: tracker.url,
            giveUp,
            beforeRetry: (_, last, waited) => pace(last, waited),
          }),
        );
        if (!faults.hasReached(1, "taken-over") && !faults.hasReached(1, "handled")) {
          lessonStep(
            cell,
            "release",
            t("the agent is done, and nothing took #1's key over: the lesson lets #1 go on"),
            "warn",
          );
          faults.release(1);
        }
        break;
      default:
        throw new Error(`not an in-process fault: ${cell.fault}`);
    }
    // The held request #1 must be done before counting (a dropped one never gets a handler).
    await faults.reached(1, cell.fault === "drop-request" ? "finished" : "handled");
    const fired =
      cell.fault === "none"
        ? true
        : faults.hasReached(
            1,
            cell.fault === "lose-response"
              ? "lost"
              : cell.fault === "drop-request"
                ? "dropped"
                : "held",
          );
    return { reports: tracker.store.countReports(), fired, results };
  } finally {
    await tracker.close();
  }
}

/** The crash faults: the tracker in a child process, restarted on the same file. */
async function crashCell(cell: Cell): Promise<Ran> {
  const clock = pacedClock();
  const pids: number[] = [];
  let killed = false;
  const tracker = await superviseTracker({
    variant: cell.variant,
    db: cell.db,
    faults: { 1: cell.fault as FaultName },
    ...(cell.options.notify ? { sideEffects: notifyPlugin(cell.options.notify) } : {}),
    leaseMs: cell.leaseMs,
    clockMs: clock.now(),
    ...(cell.options.stepped ? { stepped: true } : {}),
    onEvent: (e, generation) => {
      if (classify(e, cell.variant).what === "crash") killed = true;
      serverStep(cell, e, { generation, pid: pids[generation - 1] ?? 0 });
    },
  });
  pids.push(tracker.current.pid);
  lessonStep(
    cell,
    "process-start",
    t("tracker process started ({variant}), lease {ms} ms", {
      variant: cell.variant,
      ms: String(cell.leaseMs),
    }),
    undefined,
    { generation: 1, pid: tracker.current.pid },
  );
  const pace = pacer(cell, clock, (ms) => tracker.setClock(ms));
  // The process's events come through a pipe and may trail the answer the agent already has: each
  // attempt's end is told once every event the process wrote before it answered has been delivered.
  const steps = agentSteps(cell, 1);
  let pending = Promise.resolve();
  const settled = (): Promise<void> => pending;
  /** Waits for the first process to die, restarts it on the same file and port, and says so. */
  const restart = async (): Promise<void> => {
    await tracker.current.exited;
    await cell.options.atCrash?.(cell.db);
    const oldPid = tracker.current.pid;
    const exit = await tracker.restartAfterExit();
    pids.push(tracker.current.pid);
    lessonStep(
      cell,
      "restart",
      exit.signal
        ? t("the process is gone ({signal}); a new one listens on the same file and port", {
            signal: exit.signal,
          })
        : t("the process is gone (exit code {code}); a new one listens on the same file and port", {
            code: String(exit.code),
          }),
      "warn",
      {
        generation: tracker.generation,
        pid: tracker.current.pid,
        oldPid,
        ...(exit.signal ? { signal: exit.signal } : {}),
      },
    );
  };
  let result: CallResult;
  try {
    // No attempt here is meant to time out: the crash cuts the connection at once.
    result = await call(cell, {
      url: tracker.url,
      timeoutMs: PATIENT_MS,
      onAttempt: (e) => {
        if (e.phase === "start") steps(e);
        else pending = pending.then(() => tracker.current.flush()).then(() => steps(e));
      },
      beforeRetry: async (_, last, waited) => {
        await settled();
        if (tracker.generation === 1) await restart();
        await pace(last, waited);
      },
    });
    await settled();
    // An agent that does not retry leaves the dead process behind; the service manager restarts it
    // all the same, on the same file.
    if (killed && tracker.generation === 1) await restart();
  } finally {
    await tracker.close();
  }
  return { reports: countReportsIn(cell.db), fired: tracker.generation > 1, results: [result] };
}
