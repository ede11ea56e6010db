/**
 * An evaluation-side judge for duplicate reports: after a run, it compares the stored reports of
 * each (run, module) pair by pairs and flags those whose titles look alike. No key catches a title
 * the model rewrote; this runs after the fact, over what was stored, and flags for review.
 *
 * The measure is the Jaccard index of the two titles' word sets, after the tracker's normalisation
 * (lower case, punctuation dropped): |A ∩ B| / |A ∪ B|, 1 for the same words in any order, 0 for no
 * word in common. It is simple and explainable, and it is wrong both ways on short titles: one word
 * changed in four ("login" → "logout") still scores 0.6, and a paraphrase with other words scores 0.
 * A flagged pair is a suspect for a person (or a stronger judge) to confirm, not a verdict.
 */
import { httpCall } from "../client/client.ts";
import { t } from "../core/i18n.ts";
import { normalizeTitle, type Report } from "../tracker/store.ts";

/** Pairs at or above this similarity are flagged. */
export const JUDGE_THRESHOLD = 0.6;

/** The set of words of a title, normalised as the tracker does. */
export function titleWords(title: string): Set<string> {
  return new Set(
    normalizeTitle(title)
      .split(" ")
      .filter((w) => w !== ""),
  );
}

/** |A ∩ B| / |A ∪ B| of the two titles' word sets (1 when both are empty). */
export function titleSimilarity(a: string, b: string): number {
  const wa = titleWords(a);
  const wb = titleWords(b);
  let common = 0;
  for (const w of wa) if (wb.has(w)) common++;
  const union = wa.size + wb.size - common;
  return union === 0 ? 1 : common / union;
}

export interface Suspect {
  first: Report;
  second: Report;
  similarity: number;
}

/** Pairs of reports in the same run and module whose titles score at least `threshold`, most alike first. */
export function judgeDuplicates(
  reports: readonly Report[],
  threshold = JUDGE_THRESHOLD,
): Suspect[] {
  const suspects: Suspect[] = [];
  for (let i = 0; i < reports.length; i++) {
    for (let j = i + 1; j < reports.length; j++) {
      const a = reports[i]!;
      const b = reports[j]!;
      if (a.run !== b.run || normalizeTitle(a.module ?? "") !== normalizeTitle(b.module ?? ""))
        continue;
      const similarity = titleSimilarity(a.title, b.title);
      if (similarity >= threshold) suspects.push({ first: a, second: b, similarity });
    }
  }
  return suspects.sort(
    (x, y) => y.similarity - x.similarity || x.first.id - y.first.id || x.second.id - y.second.id,
  );
}

/**
 * The judge on the evaluation side: it reads the stored reports over the tracker's API (GET
 * /reports), after the agent has stopped, and judges them. No answer: no suspects.
 */
export async function judgeTracker(url: string, threshold = JUDGE_THRESHOLD): Promise<Suspect[]> {
  const listed = await httpCall({ method: "GET", url: `${url}/reports`, timeoutMs: 5_000 });
  return listed.kind === "response" && Array.isArray(listed.body)
    ? judgeDuplicates(listed.body as Report[], threshold)
    : [];
}

/**
 * The pairs the judge flagged, with their similarity ("none" when it flagged nothing): a pair takes
 * two rows, one report each, so that a title is not cut between two lines of a narrow terminal.
 */
export function suspectTable(suspects: readonly Suspect[]): [string[], string[][]] {
  return [
    [t("flagged pair"), t("similarity")],
    suspects.length === 0
      ? [[t("none"), "-"]]
      : suspects.flatMap((s) => [
          [`#${s.first.id} "${s.first.title}" /`, s.similarity.toFixed(2)],
          [`  #${s.second.id} "${s.second.title}"`, ""],
        ]),
  ];
}

/** What the judge makes of `title` beside each of `others` (a title and what it really is). */
export function similarityTable(
  title: string,
  others: ReadonlyArray<readonly [other: string, really: string]>,
): [string[], string[][]] {
  return [
    [
      t('"{title}" beside', { title }),
      t("really"),
      t("similarity"),
      t("flagged (≥ {threshold})", { threshold: JUDGE_THRESHOLD }),
    ],
    others.map(([other, really]) => {
      const s = titleSimilarity(title, other);
      return [
        JSON.stringify(other),
        really,
        s.toFixed(2),
        s >= JUDGE_THRESHOLD ? t("yes") : t("no"),
      ];
    }),
  ];
}
