/**
 * Lesson 08 one cell at a time (`--variant`, `--fault`, `--policy`, `--step`): the cells named, each
 * run with its whole trace printed as it happens (with `--step`, Enter by Enter), what the agent knew
 * beside what happened, and the count. Demo 2 of the course; the demo page (lib/demos/step) runs the
 * same cells and draws the same steps.
 */
import { POLICY_NAMES, type PolicyName } from "../client/client.ts";
import { UsageError } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
import type { Trace } from "../core/trace.ts";
import { isVariantName, type VariantName } from "../tracker/variant.ts";
import {
  type CellOptions,
  type CellResult,
  isStepFault,
  MATRIX_FAULTS,
  matrixVariants,
  runCell,
  STEP_FAULTS,
  type StepFault,
} from "./matrix.ts";
import { callText, printMatrix } from "./tables.ts";

/** The cells a command line names: a variant, a fault, a client policy, each optional. */
export interface CellChoice {
  variant?: VariantName;
  fault?: StepFault;
  policy?: PolicyName;
}

/** The help lines of the three flags. */
export function cellFlagHelp(): { variant: string; fault: string; policy: string } {
  return {
    variant: t("run only this variant's cells, each with its full trace ({variants})", {
      variants: matrixVariants().join(", "),
    }),
    fault: t(
      "run only this fault's cells, each with its full trace ({faults}); with --step, Enter by Enter (--step alone: naive × lose-response)",
      { faults: STEP_FAULTS.join(", ") },
    ),
    policy: t(
      "the agent's client in those cells ({policies}; default: blind-retry for naive, same-key for the others)",
      { policies: POLICY_NAMES.join(", ") },
    ),
  };
}

/** The flags' values checked; a UsageError names what is wrong and what would be right. */
export function cellChoice(values: {
  variant?: string | boolean;
  fault?: string | boolean;
  policy?: string | boolean;
}): CellChoice {
  const { variant: v, fault: f, policy: p } = values;
  if (typeof v === "string" && !isVariantName(v))
    throw new UsageError(
      t('there is no variant "{name}"; the variants are {variants}', {
        name: v,
        variants: matrixVariants().join(", "),
      }),
    );
  if (typeof v === "string" && !matrixVariants().includes(v))
    throw new UsageError(
      t('the "{name}" variant is not built yet (available: {variants})', {
        name: v,
        variants: matrixVariants().join(", "),
      }),
    );
  if (typeof f === "string" && !isStepFault(f))
    throw new UsageError(
      t('there is no fault "{name}" in the matrix; the faults are {faults}', {
        name: f,
        faults: STEP_FAULTS.join(", "),
      }),
    );
  if (typeof p === "string" && !(POLICY_NAMES as readonly string[]).includes(p))
    throw new UsageError(
      t('there is no policy "{name}"; the policies are {policies}', {
        name: p,
        policies: POLICY_NAMES.join(", "),
      }),
    );
  return {
    ...(typeof v === "string" ? { variant: v as VariantName } : {}),
    ...(typeof f === "string" ? { fault: f as StepFault } : {}),
    ...(typeof p === "string" ? { policy: p as PolicyName } : {}),
  };
}

/**
 * The named cells, one after the other, each with its full trace (and, with `stepped`, Enter by
 * Enter); no variant and no fault: naive × lose-response. Several cells end with their small matrix.
 */
export async function traceCells(
  trace: Trace,
  choice: CellChoice,
  options: Omit<CellOptions, "trace" | "stepped" | "policy"> & { stepped: boolean },
): Promise<void> {
  const started = performance.now();
  let { variant, fault } = choice;
  if (variant === undefined && fault === undefined) {
    variant = "naive";
    fault = "lose-response";
    trace.prose(
      t(`Stepping through one cell: naive × lose-response. Pick another with --variant and
        --fault, e.g. npm run lesson 8 -- --step --variant keyed --fault pause-past-lease.`),
    );
  }
  const cells = matrixVariants()
    .filter((v) => variant === undefined || v === variant)
    .flatMap((v) =>
      (fault === undefined ? MATRIX_FAULTS : [fault]).map((f) => ({ variant: v, fault: f })),
    );
  const results: CellResult[] = [];
  for (const c of cells) {
    // runCell opens a section for the cell; its events are printed as they happen.
    const r = await runCell(c.variant, c.fault, {
      ...options,
      trace,
      ...(choice.policy ? { policy: choice.policy } : {}),
    });
    const calls = r.calls.map(callText);
    trace.knows(
      calls.length === 1
        ? t("calls: {call}", { call: calls[0] })
        : t("calls: {first} and {second}", { first: calls[0], second: calls[1] }),
      describeCell(r),
    );
    trace.count(r.reports, r.expected);
    results.push(r);
  }
  if (results.length > 1) {
    trace.section(t("These cells, as measured in this run"));
    printMatrix(trace, results);
  }
  trace.prose(
    t("The whole matrix: npm run lesson 8. (This run took {ms} ms.)", {
      ms: String(Math.round(performance.now() - started)),
    }),
  );
}

/** What happened in a cell, in a sentence, from what it measured. */
export function describeCell(r: CellResult): string {
  if (
    !r.fired &&
    r.fault === "crash-after-claim" &&
    (r.variant === "naive" || r.variant === "key-after")
  ) {
    return t(
      "the fault's moment never came: this variant claims no key, so nothing was there to crash after",
    );
  }
  if (!r.fired)
    return t("the fault's moment never came: the request was answered {status} before it", {
      status: callText([r.calls[0]!.at(-1)!]),
    });
  if (r.verdict === "ok")
    return r.fault === "none"
      ? t("one logical call, one report, nothing went wrong")
      : t("one logical call, one report");
  return r.verdict === "duplicate"
    ? t("one logical call, {n} reports: the report was filed twice", { n: r.reports })
    : t("one logical call, and no report");
}
