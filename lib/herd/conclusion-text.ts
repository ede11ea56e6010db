/**
 * The blog's conclusions in the terminal's words: each claim with the numbers of this run behind its
 * verdict (the verdicts themselves: conclusions.ts, which the browser demo prints in its own words).
 */
import { formatNumber } from "./charts.ts";
import type { Conclusion, ConclusionId, Conclusions } from "./conclusions.ts";

/** One conclusion as lesson 02 prints it. */
export interface ConclusionText {
  claim: string;
  holds: boolean | undefined;
  /** The numbers behind the verdict, or why it could not be checked. */
  detail: string;
}

const CLAIMS: Record<ConclusionId, string> = {
  "no-backoff-n-squared": "Without backoff, work grows much faster than N (the blog: roughly N²).",
  "exponential-work": "Backoff without jitter barely helps with the work.",
  "exponential-time": "Backoff without jitter is the clear loser on time.",
  "full-equal-work": "Full and Equal jitter cost about the same work.",
  "decorrelated-work": "Decorrelated jitter costs somewhat more.",
  "equal-slowest": "Equal jitter is the slowest of the jittered ones.",
  "jitter-default": "Jittered backoff should be the default.",
  "codex-herd": "The course's point: ±10 % jitter does not break up the herd.",
};

const n = (x: number, decimals = 0): string => formatNumber(x, decimals);
const pct = (part: number, whole: number): string => `${n((100 * part) / whole)} %`;
const times = (a: number, b: number): string => `${n(a / b, 1)}×`;

function detail(c: Conclusion): string {
  const v = c.values as Record<string, number>;
  switch (c.id) {
    case "no-backoff-n-squared":
      if (v.growth === undefined)
        return `Needs two client counts to compare; this run has only ${v.n} (try --clients 10,50,100).`;
      return `no-backoff: ${n(v.low!, 1)} calls at ${v.nLow} clients, ${n(v.high!, 1)} at ${v.n}: ×${n(v.growth, 1)} for ×${n(v.clientsRatio!, 1)} clients, i.e. like N^${n(v.exponent!, 2)}: between linear (×${n(v.clientsRatio!, 1)}) and N² (×${n(v.clientsRatio! ** 2)}), so the check is that the exponent is at least 1.5, not that it is 2. Strict rounds, where all remaining clients collide every time, would give N(N+1)/2 = ${n(v.rounds!)}; the network's jitter spreads the clients a little and saves some of that.`;
    case "exponential-work":
      return `exponential used ${pct(v.exponential!, v.none!)} of no-backoff's calls (${n(v.exponential!, 1)} against ${n(v.none!, 1)}); full jitter used ${pct(v.full!, v.none!)}. Exponential is closer to doing nothing than to full jitter.`;
    case "exponential-time":
      return `exponential took ${n(v.exponential!)} ms to finish: ${times(v.exponential!, v.full!)} full jitter's ${n(v.full!)} ms and ${times(v.exponential!, v.none!)} no-backoff's ${n(v.none!)} ms.`;
    case "full-equal-work":
      return `full ${n(v.full!, 1)} calls, equal ${n(v.equal!, 1)}: ${pct(Math.abs(v.equal! - v.full!), v.full!)} apart.`;
    case "decorrelated-work":
      return `decorrelated ${n(v.decorrelated!, 1)} calls: ${pct(v.decorrelated!, v.full!)} of full's, ${pct(v.decorrelated!, v.equal!)} of equal's.`;
    case "equal-slowest":
      return `completion: equal ${n(v.equal!)} ms, full ${n(v.full!)} ms, decorrelated ${n(v.decorrelated!)} ms.`;
    case "jitter-default":
      return `full jitter used ${pct(v.full!, v.none!)} of no-backoff's calls and ${pct(v.full!, v.exponential!)} of exponential's, and finished in ${pct(v.fullTime!, v.exponentialTime!)} of exponential's time.`;
    case "codex-herd":
      return `codex-capped (exponential × uniform(0.9, 1.1)) took ${n(v.codexTime!)} ms, ${times(v.codexTime!, v.fullTime!)} full jitter's time, with ${pct(v.codexCalls!, v.fullCalls!)} of full's calls. It did better than no jitter (${pct(v.codexTime!, v.exponentialTime!)} of exponential's time), but nowhere near full jitter.`;
  }
}

/** Each conclusion's claim, verdict and numbers. */
export function conclusionTexts(checked: Conclusions): ConclusionText[] {
  return checked.conclusions.map((c) => ({
    claim: CLAIMS[c.id],
    holds: c.holds,
    detail:
      c.missing.length > 0 ? `Needs ${c.missing.join(", ")}, left out of this run.` : detail(c),
  }));
}

/** The warning for a run too small to tell the strategies apart. */
export function noisyNote(clients: number, runs: number): string {
  return `With ${clients} clients and ${runs} runs per point the differences between the strategies are small next to the noise of the simulation; read these verdicts with care.`;
}

/** "7 of 8 conclusions checked supported by this run." */
export function conclusionsTally(texts: readonly ConclusionText[]): string {
  const checked = texts.filter((c) => c.holds !== undefined).length;
  const supported = texts.filter((c) => c.holds === true).length;
  return `${supported} of ${checked} conclusions checked supported by this run.`;
}
