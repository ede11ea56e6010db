/**
 * The chaos run's printout: one column per variant, the verdict for `fenced`, and on a failure the
 * seed and the command that replays it.
 */
import type { Trace } from "../core/trace.ts";
import type { VariantName } from "../tracker/variant.ts";
import type { ChaosResult } from "./run.ts";
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
    `chaos run, seed ${first.seed}: ${first.tally.operations} logical operations by ${first.agents} agents, ${first.inFlight} at a time each,`,
  );
  const over =
    first.store === "postgres" ? "one PostgreSQL schema (READ COMMITTED)" : "one SQLite file (WAL)";
  trace.line(
    `same-key clients (${first.timeoutMs} ms per attempt), against ${first.processes} tracker processes`,
  );
  trace.line(`over ${over}, lease ${first.leaseMs} ms`);
  const total = CHAOS_FAULTS.reduce((n, f) => n + first.planned[f], 0);
  trace.line(`plan ${first.digest}: ${total} faults planned${total > 0 ? ":" : ""}`);
  if (total > 0) trace.line(`  ${planned.join(", ")}`);
  trace.line();
  const col = (f: (r: ChaosResult) => string | number): string[] =>
    results.map((r) => String(f(r)));
  const rows: string[][] = [
    ["logical operations", ...col((r) => r.tally.operations)],
    ["acknowledged (2xx)", ...col((r) => r.tally.acknowledged)],
    ["reports stored", ...col((r) => r.tally.stored)],
    ["duplicates", ...col((r) => mark(trace, r.tally.duplicates))],
    ["lost", ...col((r) => mark(trace, r.tally.lost))],
    ["  acknowledged, not stored", ...col((r) => r.tally.lostAcknowledged)],
    ["  never stored", ...col((r) => r.tally.lostUnacknowledged)],
    ["unanswered after settling", ...col((r) => mark(trace, r.tally.unanswered))],
    [
      "stored answer ≠ acknowledged",
      ...col((r) => (r.variant === "naive" ? "–" : mark(trace, r.changedAnswers))),
    ],
    ["faults injected", ...col((r) => CHAOS_FAULTS.reduce((n, f) => n + r.injected[f], 0))],
    ...CHAOS_FAULTS.map((f) => [`  ${f}`, ...col((r) => r.injected[f])]),
    ["processes killed, restarted", ...col((r) => r.restarts)],
    ["HTTP attempts", ...col((r) => r.attempts)],
    ["calls that gave up, retried", ...col((r) => r.gaveUp)],
    ["operations in flight, mean", ...col((r) => r.inFlightMean.toFixed(0))],
    ["answered only when settling", ...col((r) => r.settled)],
    ["time", ...col((r) => `${(r.ms / 1000).toFixed(1)} s`)],
  ];
  if (results.some((r) => r.tally.refused > 0 || r.tally.strays > 0 || r.watchdogKills > 0)) {
    rows.push(["refused (final 4xx)", ...col((r) => mark(trace, r.tally.refused))]);
    rows.push(["reports of no operation", ...col((r) => mark(trace, r.tally.strays))]);
    rows.push(["watchdog restarts", ...col((r) => r.watchdogKills)]);
  }
  trace.table(["", ...results.map((r) => r.variant)], rows);
  for (const r of results) {
    if (r.examples.length === 0) continue;
    trace.line();
    trace.line(`${r.variant}, the first operations stored twice or lost:`);
    for (const e of r.examples) trace.line(`  ${e}`);
  }
  trace.line();
  const bad = failed(results);
  for (const r of results.filter((x) => x.variant === STRICT_VARIANT)) {
    if (bad.includes(r)) {
      trace.line(
        trace.style(
          ["red", "bold"],
          `FAIL ${r.variant}: ${r.tally.duplicates} duplicates, ${r.tally.lost} lost, ${r.tally.unanswered} unanswered, ${r.changedAnswers} changed answers (seed ${r.seed})`,
        ),
      );
      trace.line(`replay: ${replay(r.variant)}`);
    } else {
      trace.line(
        trace.style(
          "green",
          `PASS ${r.variant}: every operation stored exactly once and answered, in ${(r.ms / 1000).toFixed(1)} s`,
        ),
      );
    }
  }
}

function mark(trace: Trace, n: number): string {
  return n === 0 ? "0" : trace.style(["red", "bold"], String(n));
}
