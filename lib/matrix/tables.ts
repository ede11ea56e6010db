/**
 * The fault matrix as lesson 08 prints it: the table of counts (one row per variant, one column per
 * fault), its legend, which faults each variant got wrong, and a cell's verdict in a few words. All
 * of it is read from the cells' results (lib/matrix/matrix.ts); nothing here runs a cell.
 */
import { t } from "../core/i18n.ts";
import { displayWidth, padEnd } from "../core/text.ts";
import type { Trace } from "../core/trace.ts";
import type { VariantName } from "../tracker/variant.ts";
import {
  type CellResult,
  MATRIX_FAULTS,
  type MatrixFault,
  matrixFaultHelp,
  matrixVariants,
  policyFor,
  STEP_FAULTS,
  type StepFault,
} from "./matrix.ts";

/** A fault's column label, short enough for one line; the legend under the matrix says it in full. */
export function faultLabel(fault: StepFault): string {
  switch (fault) {
    case "none":
      return t("no fault");
    case "drop-request":
      return t("dropped");
    case "lose-response":
      return t("lost answer");
    case "slow":
      return t("slow");
    case "concurrent":
      return t("2 at once");
    case "crash-between-commits":
      return t("kill: commit");
    case "crash-after-claim":
      return t("kill: claim");
    case "pause-past-lease":
      return t("paused");
  }
}

/** The matrix of `results`: a row per variant, a column per fault, each cell "2 ✗", "1 ✓" or "1 –". */
export function printMatrix(trace: Trace, results: readonly CellResult[]): void {
  const policies = new Set(results.map((r) => r.policy));
  const variants = matrixVariants().filter((v) => results.some((r) => r.variant === v));
  const faults = STEP_FAULTS.filter((f) => results.some((r) => r.fault === f));
  trace.table(
    [t("variant"), t("policy"), ...faults.map(faultLabel)],
    variants.map((v) => [
      v,
      policies.size === 1 ? results[0]!.policy : policyFor(v),
      ...faults.map((f) => {
        const r = results.find((x) => x.variant === v && x.fault === f);
        return r ? cellMark(trace, r) : "";
      }),
    ]),
  );
}

/** A cell of the matrix: its count, and ✓ (one report), ✗ (not one) or – (the fault never fired). */
function cellMark(trace: Trace, r: CellResult): string {
  if (!r.fired) return trace.style("gray", `${r.reports} –`);
  return r.verdict === "ok"
    ? trace.style("green", `${r.reports} ✓`)
    : trace.style(["red", "bold"], `${r.reports} ✗`);
}

/** Under the matrix: each fault's label and what it does, then what the marks mean. */
export function printLegend(trace: Trace): void {
  const width = Math.max(12, ...MATRIX_FAULTS.map((f) => displayWidth(faultLabel(f))));
  for (const f of MATRIX_FAULTS)
    trace.line(
      `  ${padEnd(faultLabel(f), width)} ${t("{fault}: {help}", { fault: f, help: matrixFaultHelp(f) })}`,
    );
  trace.line(
    `  ${t("✓ one report   ✗ a duplicate or a lost report   – the fault's moment does not exist in this variant")}`,
  );
}

/** The faults under which a variant's cell did not leave one report. */
export function wrongUnder(results: readonly CellResult[], variant: VariantName): MatrixFault[] {
  return MATRIX_FAULTS.filter((f) =>
    results.some((r) => r.variant === variant && r.fault === f && r.verdict !== "ok"),
  );
}

/** One line per variant: the faults it got wrong, or that it left one report in every cell. */
export function printWrongUnder(trace: Trace, results: readonly CellResult[]): void {
  for (const v of matrixVariants()) {
    const bad = wrongUnder(results, v);
    const says =
      bad.length === 0
        ? t("one report in every cell")
        : t("wrong under {faults}", { faults: bad.join(", ") });
    trace.line(`  ${v.padEnd(10)} ${says}`);
  }
}

/** A cell's verdict in a few words: "one report", "DUPLICATE (1 extra)", "LOST: nothing filed". */
export function verdictText(r: CellResult): string {
  if (r.verdict === "ok") return t("one report");
  return r.verdict === "duplicate"
    ? t("DUPLICATE ({n} extra)", { n: r.reports - 1 })
    : t("LOST: nothing filed");
}

/** One call's attempts as the agent saw them: "timeout → 201 replayed". */
export function callText(attempts: readonly string[]): string {
  return attempts.map(outcomeWords).join(" → ");
}

/** An attempt's outcome (matrix.ts's statusOf: "timeout", "error", "201", "201 replayed"…) in words. */
function outcomeWords(outcome: string): string {
  if (outcome === "timeout") return t("timeout");
  if (outcome === "error") return t("error");
  const replayed = /^(\d+) replayed$/.exec(outcome);
  return replayed ? t("{status} replayed", { status: replayed[1] }) : outcome;
}
