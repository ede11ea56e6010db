/**
 * The blog's conclusions in the terminal's words: each claim with the numbers of this run behind its
 * verdict (the verdicts themselves: conclusions.ts, which the browser demo prints in its own words).
 */
import { t } from "../core/i18n.ts";
import type { Conclusion, ConclusionId, Conclusions } from "./conclusions.ts";
import { formatNumber } from "./series.ts";

/** One conclusion as lesson 02 prints it. */
export interface ConclusionText {
  claim: string;
  holds: boolean | undefined;
  /** The numbers behind the verdict, or why it could not be checked. */
  detail: string;
}

function claim(id: ConclusionId): string {
  switch (id) {
    case "no-backoff-n-squared":
      return t("Without backoff, work grows much faster than N (the blog: roughly N²).");
    case "exponential-work":
      return t("Backoff without jitter barely helps with the work.");
    case "exponential-time":
      return t("Backoff without jitter is the clear loser on time.");
    case "full-equal-work":
      return t("Full and Equal jitter cost about the same work.");
    case "decorrelated-work":
      return t("Decorrelated jitter costs somewhat more.");
    case "equal-slowest":
      return t("Equal jitter is the slowest of the jittered ones.");
    case "jitter-default":
      return t("Jittered backoff should be the default.");
    case "codex-herd":
      return t("The course's point: ±10 % jitter does not break up the herd.");
  }
}

const n = (x: number, decimals = 0): string => formatNumber(x, decimals);
const pct = (part: number, whole: number): string => n((100 * part) / whole);
const times = (a: number, b: number): string => n(a / b, 1);

function detail(c: Conclusion): string {
  const v = c.values as Record<string, number>;
  switch (c.id) {
    case "no-backoff-n-squared":
      if (v.growth === undefined)
        return t(
          "Needs two client counts to compare; this run has only {n} (try --clients 10,50,100).",
          { n: v.n },
        );
      return t(
        `no-backoff: {low} calls at {nLow} clients, {high} at {n}: ×{growth} for ×{ratio} clients,
        i.e. like N^{exponent}: between linear (×{ratio}) and N² (×{squared}), so the check is that
        the exponent is at least 1.5, not that it is 2. Strict rounds, where all remaining clients
        collide every time, would give N(N+1)/2 = {rounds}; the network's jitter spreads the clients
        a little and saves some of that.`,
        {
          low: n(v.low!, 1),
          nLow: v.nLow,
          high: n(v.high!, 1),
          n: v.n,
          growth: n(v.growth, 1),
          ratio: n(v.clientsRatio!, 1),
          exponent: n(v.exponent!, 2),
          squared: n(v.clientsRatio! ** 2),
          rounds: n(v.rounds!),
        },
      );
    case "exponential-work":
      return t(
        `exponential used {share} % of no-backoff's calls ({exponential} against {none}); full
        jitter used {fullShare} %. Exponential is closer to doing nothing than to full jitter.`,
        {
          share: pct(v.exponential!, v.none!),
          exponential: n(v.exponential!, 1),
          none: n(v.none!, 1),
          fullShare: pct(v.full!, v.none!),
        },
      );
    case "exponential-time":
      return t(
        `exponential took {exponential} ms to finish: {toFull}× full jitter's {full} ms and
        {toNone}× no-backoff's {none} ms.`,
        {
          exponential: n(v.exponential!),
          toFull: times(v.exponential!, v.full!),
          full: n(v.full!),
          toNone: times(v.exponential!, v.none!),
          none: n(v.none!),
        },
      );
    case "full-equal-work":
      return t("full {full} calls, equal {equal}: {apart} % apart.", {
        full: n(v.full!, 1),
        equal: n(v.equal!, 1),
        apart: pct(Math.abs(v.equal! - v.full!), v.full!),
      });
    case "decorrelated-work":
      return t("decorrelated {decorrelated} calls: {ofFull} % of full's, {ofEqual} % of equal's.", {
        decorrelated: n(v.decorrelated!, 1),
        ofFull: pct(v.decorrelated!, v.full!),
        ofEqual: pct(v.decorrelated!, v.equal!),
      });
    case "equal-slowest":
      return t("completion: equal {equal} ms, full {full} ms, decorrelated {decorrelated} ms.", {
        equal: n(v.equal!),
        full: n(v.full!),
        decorrelated: n(v.decorrelated!),
      });
    case "jitter-default":
      return t(
        `full jitter used {ofNone} % of no-backoff's calls and {ofExponential} % of exponential's,
        and finished in {time} % of exponential's time.`,
        {
          ofNone: pct(v.full!, v.none!),
          ofExponential: pct(v.full!, v.exponential!),
          time: pct(v.fullTime!, v.exponentialTime!),
        },
      );
    case "codex-herd":
      return t(
        `codex-capped (exponential × uniform(0.9, 1.1)) took {codex} ms, {toFull}× full jitter's
        time, with {calls} % of full's calls. It did better than no jitter ({ofExponential} % of
        exponential's time), but nowhere near full jitter.`,
        {
          codex: n(v.codexTime!),
          toFull: times(v.codexTime!, v.fullTime!),
          calls: pct(v.codexCalls!, v.fullCalls!),
          ofExponential: pct(v.codexTime!, v.exponentialTime!),
        },
      );
  }
}

/** Each conclusion's claim, verdict and numbers. */
export function conclusionTexts(checked: Conclusions): ConclusionText[] {
  return checked.conclusions.map((c) => ({
    claim: claim(c.id),
    holds: c.holds,
    detail:
      c.missing.length > 0
        ? t("Needs {strategies}, left out of this run.", { strategies: c.missing.join(", ") })
        : detail(c).replace(/\s+/g, " "),
  }));
}

/** The warning for a run too small to tell the strategies apart. */
export function noisyNote(clients: number, runs: number): string {
  return t(
    `With {clients} clients and {runs} runs per point the differences between the strategies are
    small next to the noise of the simulation; read these verdicts with care.`,
    { clients, runs },
  ).replace(/\s+/g, " ");
}

/** "7 of 8 conclusions checked supported by this run." */
export function conclusionsTally(texts: readonly ConclusionText[]): string {
  const checked = texts.filter((c) => c.holds !== undefined).length;
  const supported = texts.filter((c) => c.holds === true).length;
  return t("{supported} of {checked} conclusions checked supported by this run.", {
    supported,
    checked,
  });
}
