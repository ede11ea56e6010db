/**
 * The fault matrix as lesson 08 prints it: the table of counts (one row per variant, one column per
 * fault), its legend, which faults each variant got wrong, and a cell's verdict in a few words. All
 * of it is read from the cells' results (lib/matrix/matrix.ts); nothing here runs a cell.
 */
import type { Trace } from "../core/trace.ts";
import type { VariantName } from "../tracker/variant.ts";
import {
  type CellResult,
  MATRIX_FAULT_HELP,
  MATRIX_FAULTS,
  type MatrixFault,
  matrixVariants,
  policyFor,
  STEP_FAULTS,
  type StepFault,
} from "./matrix.ts";

/** Column labels short enough for one line; the legend under the matrix names each fault in full. */
export const FAULT_LABEL: Record<StepFault, string> = {
  none: "no fault",
  "drop-request": "dropped",
  "lose-response": "lost answer",
  slow: "slow",
  concurrent: "2 at once",
  "crash-between-commits": "kill: commit",
  "crash-after-claim": "kill: claim",
  "pause-past-lease": "paused",
};

/** The matrix of `results`: a row per variant, a column per fault, each cell "2 ✗", "1 ✓" or "1 –". */
export function printMatrix(trace: Trace, results: readonly CellResult[]): void {
  const policies = new Set(results.map((r) => r.policy));
  const variants = matrixVariants().filter((v) => results.some((r) => r.variant === v));
  const faults = STEP_FAULTS.filter((f) => results.some((r) => r.fault === f));
  trace.table(
    ["variant", "policy", ...faults.map((f) => FAULT_LABEL[f])],
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
  for (const f of MATRIX_FAULTS)
    trace.line(`  ${FAULT_LABEL[f].padEnd(12)} ${f}: ${MATRIX_FAULT_HELP[f]}`);
  trace.line(
    "  ✓ one report   ✗ a duplicate or a lost report   – the fault's moment does not exist in this variant",
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
    trace.line(
      `  ${v.padEnd(10)} ${bad.length === 0 ? "one report in every cell" : `wrong under ${bad.join(", ")}`}`,
    );
  }
}

/** A cell's verdict in a few words: "one report", "DUPLICATE (1 extra)", "LOST: nothing filed". */
export function verdictText(r: CellResult): string {
  if (r.verdict === "ok") return "one report";
  return r.verdict === "duplicate" ? `DUPLICATE (${r.reports - 1} extra)` : "LOST: nothing filed";
}
