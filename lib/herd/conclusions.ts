/**
 * The AWS blog's conclusions ("Exponential Backoff And Jitter", 2015), and the course's point about
 * Codex's ±10 % jitter, checked against a sweep's rows: the same tests lesson 02 applies in the
 * terminal, as data (a verdict and the numbers behind it), for the browser demo to print in its own
 * language. Each is tested at the largest client count (the blog's claims are about many clients).
 */
import type { HerdStrategy, PointResult } from "./simulator.ts";

export type ConclusionId =
  | "no-backoff-n-squared"
  | "exponential-work"
  | "exponential-time"
  | "full-equal-work"
  | "decorrelated-work"
  | "equal-slowest"
  | "jitter-default"
  | "codex-herd";

export interface Conclusion {
  id: ConclusionId;
  /** true: this run supports it; false: it does not; undefined: this run cannot test it. */
  holds: boolean | undefined;
  /** The numbers the verdict rests on, by name (calls, ms, ratios), for the text. */
  values: Record<string, number>;
  /** Strategies the test needs that the run left out (then `holds` is undefined). */
  missing: HerdStrategy[];
}

export interface Conclusions {
  /** The client count the tests are made at (the largest of the run). */
  clients: number;
  /** The smallest client count (for the N² test). */
  lowClients: number;
  conclusions: Conclusion[];
  /** Few clients or runs: the differences are small next to the noise. */
  noisy: boolean;
}

/** Checks each conclusion against `rows` (any strategies, any client counts, at least one row). */
export function checkConclusions(rows: readonly PointResult[]): Conclusions {
  if (rows.length === 0) throw new RangeError("no rows to check");
  const counts = [...new Set(rows.map((r) => r.clients))].sort((a, b) => a - b);
  const n = counts.at(-1)!;
  const nLow = counts[0]!;
  const row = (s: HerdStrategy, c = n): PointResult | undefined =>
    rows.find((r) => r.strategy === s && r.clients === c);
  const calls = (s: HerdStrategy, c = n): number => row(s, c)!.calls;
  const time = (s: HerdStrategy): number => row(s)!.completionMs;
  const present = (s: HerdStrategy): boolean => row(s) !== undefined;

  const conclusions: Conclusion[] = [];
  const add = (
    id: ConclusionId,
    needs: HerdStrategy[],
    test: () => { holds: boolean | undefined; values: Record<string, number> },
  ): void => {
    const missing = needs.filter((s) => !present(s));
    if (missing.length > 0) conclusions.push({ id, holds: undefined, values: {}, missing });
    else conclusions.push({ id, ...test(), missing });
  };

  add(
    "no-backoff-n-squared",
    ["no-backoff"],
    (): { holds: boolean | undefined; values: Record<string, number> } => {
      if (nLow === n) return { holds: undefined, values: { n } };
      const growth = calls("no-backoff") / calls("no-backoff", nLow);
      const exponent = Math.log(growth) / Math.log(n / nLow);
      return {
        holds: exponent >= 1.5,
        values: {
          nLow,
          n,
          low: calls("no-backoff", nLow),
          high: calls("no-backoff"),
          growth,
          clientsRatio: n / nLow,
          exponent,
          rounds: (n * (n + 1)) / 2,
        },
      };
    },
  );
  add("exponential-work", ["no-backoff", "exponential", "full"], () => ({
    holds: calls("no-backoff") - calls("exponential") < calls("exponential") - calls("full"),
    values: { exponential: calls("exponential"), none: calls("no-backoff"), full: calls("full") },
  }));
  add("exponential-time", ["no-backoff", "exponential", "full", "equal", "decorrelated"], () => {
    const others = rows.filter((r) => r.clients === n && r.strategy !== "exponential");
    const slowestJittered = Math.max(time("full"), time("equal"), time("decorrelated"));
    return {
      holds:
        others.every((r) => time("exponential") > r.completionMs) &&
        time("exponential") >= 2 * slowestJittered,
      values: { exponential: time("exponential"), full: time("full"), none: time("no-backoff") },
    };
  });
  add("full-equal-work", ["full", "equal"], () => ({
    holds: Math.abs(calls("equal") - calls("full")) / calls("full") <= 0.1,
    values: { full: calls("full"), equal: calls("equal") },
  }));
  add("decorrelated-work", ["decorrelated", "full", "equal"], () => ({
    holds: calls("decorrelated") > Math.max(calls("full"), calls("equal")),
    values: { decorrelated: calls("decorrelated"), full: calls("full"), equal: calls("equal") },
  }));
  add("equal-slowest", ["equal", "full", "decorrelated"], () => ({
    holds: time("equal") > time("full") && time("equal") > time("decorrelated"),
    values: { equal: time("equal"), full: time("full"), decorrelated: time("decorrelated") },
  }));
  add("jitter-default", ["full", "exponential", "no-backoff"], () => ({
    holds:
      calls("full") < calls("exponential") &&
      calls("full") < calls("no-backoff") &&
      time("full") < time("exponential"),
    values: {
      full: calls("full"),
      exponential: calls("exponential"),
      none: calls("no-backoff"),
      fullTime: time("full"),
      exponentialTime: time("exponential"),
    },
  }));
  add("codex-herd", ["codex-capped", "full", "exponential"], () => ({
    holds: time("codex-capped") >= 1.5 * time("full") && calls("codex-capped") > calls("full"),
    values: {
      codexTime: time("codex-capped"),
      fullTime: time("full"),
      codexCalls: calls("codex-capped"),
      fullCalls: calls("full"),
      exponentialTime: time("exponential"),
    },
  }));

  const runs = Math.min(...rows.map((r) => r.runs));
  return { clients: n, lowClients: nLow, conclusions, noisy: n < 10 || runs < 30 };
}
