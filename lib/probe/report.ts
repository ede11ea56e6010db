/**
 * What `npm run probe` prints: each check with its evidence and a one-line reading, the checks it
 * could not run and why, and a closing count; or the same as JSON (`--json`). A check holds when
 * its verdict is safe.
 */
import type { CaseRun } from "./checks.ts";
import type { ProbeResult } from "./probe.ts";
import { evidence, reading, SKIP_TEXT } from "./texts.ts";

export type CheckState = "held" | "failed" | "not run";

export function stateOf(run: CaseRun): CheckState {
  if (!run.ran) return "not run";
  return run.judged.verdict === "safe" ? "held" : "failed";
}

export interface Tally {
  held: number;
  failed: number;
  notRun: number;
}

export function tally(runs: readonly CaseRun[]): Tally {
  const n = (s: CheckState): number => runs.filter((r) => stateOf(r) === s).length;
  return { held: n("held"), failed: n("failed"), notRun: n("not run") };
}

/** The header line. */
export function probeHeading(url: string, seed: number): string {
  return `probe: POST ${url}, keys from seed ${seed}`;
}

/** Note added to the concurrent case's evidence when the probe could not hold the handler. */
const UNCONTROLLED =
  "sent together; whether they overlapped depends on how fast the service answers";

/**
 * One check as lines: its mark and name with the evidence, then the reading (or why it did not
 * run).
 */
export function checkLines(run: CaseRun): { mark: string; name: string; lines: string[] } {
  const state = stateOf(run);
  const mark = state === "held" ? "✓" : state === "failed" ? "✗" : "–";
  if (!run.ran) return { mark, name: run.case, lines: [`not run: ${SKIP_TEXT[run.skip]}`] };
  const seen =
    run.note === "uncontrolled-timing" ? `${evidence(run)} (${UNCONTROLLED})` : evidence(run);
  return { mark, name: run.case, lines: [seen, reading(run.case, run.judged, run.facts.rows)] };
}

/** The closing line. Never "N passed, N failed" alone, which CI logs read as a test runner's. */
export function closingLine(t: Tally): string {
  return (
    `checks: ${t.held} held, ${t.failed} failed, ${t.notRun} not ` +
    `run${t.failed > 0 ? " (exit code 1)" : ""}`
  );
}

/** The result as JSON. */
export function probeJson(result: ProbeResult): string {
  const checks = result.runs.map((run) =>
    run.ran
      ? {
          case: run.case,
          ran: true,
          held: run.judged.verdict === "safe",
          verdict: run.judged.verdict,
          statuses: run.facts.attempts.map((a) => a.seen),
          rows: run.facts.rows,
          reading: reading(run.case, run.judged, run.facts.rows),
        }
      : { case: run.case, ran: false, reason: SKIP_TEXT[run.skip] },
  );
  return JSON.stringify({ url: result.url, seed: result.seed, checks, ...tally(result.runs) });
}
