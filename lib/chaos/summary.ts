/**
 * The chaos run's printout: one column per variant, the verdict for `fenced`, and on a failure the
 * seed and the command that replays it. Every line a person reads goes through t() (Chinese with
 * `--lang zh`); the variants' and the faults' names stay as the code spells them.
 */
import { t } from "../core/i18n.ts";
import type { Trace } from "../core/trace.ts";
import type { VariantName } from "../tracker/variant.ts";
import { type ChaosResult, listOf } from "./run.ts";
import { CHAOS_FAULTS } from "./schedule.ts";
import { isClean } from "./tally.ts";

/** The variant the run holds to its promise: exactly once, whatever the faults. */
export const STRICT_VARIANT: VariantName = "fenced";

/** Whether the run fails: `fenced` stored an operation twice, lost one or left one unanswered. */
export function failed(results: readonly ChaosResult[]): ChaosResult[] {
  return results.filter(
    (r) => r.variant === STRICT_VARIANT && !(isClean(r.tally) && r.changedAnswers === 0),
  );
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

export function printSummary(
  trace: Trace,
  results: readonly ChaosResult[],
  replay: (variant: VariantName) => string,
): void {
  const first = results[0];
  if (!first) return;
  const planned = CHAOS_FAULTS.filter((f) => first.planned[f] > 0).map(
    (f) => `${f} ${first.planned[f]}`,
  );
  trace.line(
    t(
      "chaos run, seed {seed}: {ops} logical operations by {agents} agents, {inFlight} at a time each,",
      {
        seed: first.seed,
        ops: first.tally.operations,
        agents: first.agents,
        inFlight: first.inFlight,
      },
    ),
  );
  trace.line(
    t("same-key clients ({ms} ms per attempt), against {processes} tracker processes", {
      ms: first.timeoutMs,
      processes: first.processes,
    }),
  );
  trace.line(
    first.store === "postgres"
      ? t("over one PostgreSQL schema (READ COMMITTED), lease {ms} ms", { ms: first.leaseMs })
      : t("over one SQLite file (WAL), lease {ms} ms", { ms: first.leaseMs }),
  );
  const total = sum(CHAOS_FAULTS.map((f) => first.planned[f]));
  const [atFirst = 0, atSecond = 0] = first.plannedByArrival;
  trace.line(
    total === 0
      ? t("plan {digest}: no faults planned", { digest: first.digest })
      : t(
          "plan {digest}: {total} faults planned ({first} on first requests, {second} on second):",
          { digest: first.digest, total, first: atFirst, second: atSecond },
        ),
  );
  if (total > 0) trace.line(`  ${listOf(planned)}`);
  trace.line();
  const col = (f: (r: ChaosResult) => string | number): string[] =>
    results.map((r) => String(f(r)));
  const rows: string[][] = [
    [t("logical operations"), ...col((r) => r.tally.operations)],
    [t("acknowledged (2xx)"), ...col((r) => r.tally.acknowledged)],
    [t("reports stored"), ...col((r) => r.tally.stored)],
    [t("duplicates"), ...col((r) => mark(trace, r.tally.duplicates))],
    [t("lost"), ...col((r) => mark(trace, r.tally.lost))],
    [`  ${t("acknowledged, not stored")}`, ...col((r) => r.tally.lostAcknowledged)],
    [`  ${t("never stored")}`, ...col((r) => r.tally.lostUnacknowledged)],
    [t("unanswered after settling"), ...col((r) => mark(trace, r.tally.unanswered))],
    [
      t("stored answer ≠ acknowledged"),
      ...col((r) => (r.variant === "naive" ? "–" : mark(trace, r.changedAnswers))),
    ],
    [t("faults injected"), ...col((r) => sum(CHAOS_FAULTS.map((f) => r.injected[f])))],
    [`  ${t("at a first request")}`, ...col((r) => r.injectedByArrival[0] ?? 0)],
    [`  ${t("at a second request")}`, ...col((r) => r.injectedByArrival[1] ?? 0)],
    ...CHAOS_FAULTS.map((f) => [`  ${f}`, ...col((r) => r.injected[f])]),
    [t("processes killed, restarted"), ...col((r) => r.restarts)],
    [t("HTTP attempts"), ...col((r) => r.attempts)],
    [t("calls that gave up, retried"), ...col((r) => r.gaveUp)],
    [t("operations in flight, mean"), ...col((r) => r.inFlightMean.toFixed(0))],
    [t("answered only when settling"), ...col((r) => r.settled)],
    [t("time"), ...col((r) => `${(r.ms / 1000).toFixed(1)} s`)],
  ];
  if (results.some((r) => r.tally.refused > 0 || r.tally.strays > 0 || r.watchdogKills > 0)) {
    rows.push([t("refused (final 4xx)"), ...col((r) => mark(trace, r.tally.refused))]);
    rows.push([t("reports of no operation"), ...col((r) => mark(trace, r.tally.strays))]);
    rows.push([t("watchdog restarts"), ...col((r) => r.watchdogKills)]);
  }
  trace.table(["", ...results.map((r) => r.variant)], rows);
  // Why fewer faults struck than were planned: said whenever it is so.
  if (results.some((r) => sum(CHAOS_FAULTS.map((f) => r.injected[f])) < total)) {
    trace.line();
    trace.prose(
      t(
        "Fewer faults are injected than planned: a fault planned for an operation's second request strikes only if that operation sends a second request while faults are on. An operation answered at its first request never does, and once every operation has had its turn the faults stop (settling).",
      ),
    );
  }
  for (const r of results) {
    if (r.examples.length === 0) continue;
    trace.line();
    trace.line(t("{variant}, the first operations stored twice or lost:", { variant: r.variant }));
    for (const e of r.examples) trace.line(`  ${e}`);
  }
  trace.line();
  const bad = failed(results);
  for (const r of results.filter((x) => x.variant === STRICT_VARIANT)) {
    if (bad.includes(r)) {
      trace.line(
        trace.style(
          ["red", "bold"],
          t(
            "FAIL {variant}: {duplicates} duplicates, {lost} lost, {unanswered} unanswered, {changed} changed answers (seed {seed})",
            {
              variant: r.variant,
              duplicates: r.tally.duplicates,
              lost: r.tally.lost,
              unanswered: r.tally.unanswered,
              changed: r.changedAnswers,
              seed: r.seed,
            },
          ),
        ),
      );
      trace.line(t("replay: {command}", { command: replay(r.variant) }));
    } else {
      trace.line(
        trace.style(
          "green",
          t("PASS {variant}: every operation stored exactly once and answered, in {s} s", {
            variant: r.variant,
            s: (r.ms / 1000).toFixed(1),
          }),
        ),
      );
    }
  }
}

function mark(trace: Trace, n: number): string {
  return n === 0 ? "0" : trace.style(["red", "bold"], String(n));
}
