/**
 * What `npm run probe` prints: each check with its evidence and a one-line reading, the checks it
 * could not run and why, and a closing count; or the same as JSON (`--json`). A check holds when
 * its verdict is safe.
 */
import { t } from "../core/i18n.ts";
import type { CaseRun } from "./checks.ts";
import type { ProbeResult } from "./probe.ts";
import { evidence, reading, skipText } from "./texts.ts";

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
  return t("probe: POST {url}, keys from seed {seed}", { url, seed: String(seed) });
}

/**
 * One check as lines: its mark and name with the evidence, then the reading (or why it did not
 * run).
 */
export function checkLines(run: CaseRun): { mark: string; name: string; lines: string[] } {
  const state = stateOf(run);
  const mark = state === "held" ? "✓" : state === "failed" ? "✗" : "–";
  if (!run.ran)
    return { mark, name: run.case, lines: [t("not run: {why}", { why: skipText(run.skip) })] };
  // The concurrent case, when the probe could not hold the handler: say what the evidence is worth.
  const seen =
    run.note === "uncontrolled-timing"
      ? t(
          "{evidence} (sent together; whether they overlapped depends on how fast the service answers)",
          { evidence: evidence(run) },
        )
      : evidence(run);
  return { mark, name: run.case, lines: [seen, reading(run.case, run.judged, run.facts.rows)] };
}

/** The closing line. Never "N passed, N failed" alone, which CI logs read as a test runner's. */
export function closingLine(tally: Tally): string {
  return tally.failed > 0
    ? t("checks: {held} held, {failed} failed, {notRun} not run (exit code 1)", { ...tally })
    : t("checks: {held} held, {failed} failed, {notRun} not run", { ...tally });
}

/** The result as JSON, its readings in English whatever the language: the same on every machine. */
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
          reading: reading(run.case, run.judged, run.facts.rows, "en"),
        }
      : { case: run.case, ran: false, reason: skipText(run.skip, "en") },
  );
  return JSON.stringify({ url: result.url, seed: result.seed, checks, ...tally(result.runs) });
}
