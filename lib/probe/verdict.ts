/**
 * What a service's idempotency is made of, checked from outside: ten cases (fixed names), each a
 * few logical operations sent with one Idempotency-Key, and one function that turns what the client
 * saw and what the database stored into a verdict. Lesson 11 runs the cases against installed
 * middleware; `npm run probe` runs the same ones against any endpoint.
 */

/** The cases, in the order every table lists them (fixed names: `--json` prints them). */
export const CASES = [
  "same-key-twice",
  "different-body",
  "different-path",
  "concurrent",
  "lost-response",
  "handler-500",
  "handler-throws",
  "crash",
  "other-caller",
  "quoted-key",
] as const;
export type CaseName = (typeof CASES)[number];

export function isCaseName(s: string): s is CaseName {
  return (CASES as readonly string[]).includes(s);
}

/** The verdicts (fixed names). */
export const VERDICTS = ["safe", "duplicate", "stuck", "leak", "error"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** What one attempt came to, as the client saw it: a status, or no answer at all. */
export type Seen = number | "lost" | "reset" | "timeout";

/** One answer (or its absence) to one attempt of one logical operation. */
export interface Attempted {
  /**
   * Which operation of the case (0, 1): two requests of one operation are one operation retried or
   * doubled.
   */
  op: number;
  seen: Seen;
  /** The answer's body as text ("" when none). */
  body: string;
  /** When the answer came (or the attempt ended), ms since the case began. */
  atMs: number;
}

/** One logical operation of a case. */
export interface Operation {
  /** Who asks: the caller's name, from its Authorization header ("" for none). */
  caller: string;
  /**
   * A misuse the service may refuse (the key reused for another body or path): a 4xx for it is a
   * right answer. Every other operation must be done once.
   */
  mayRefuse: boolean;
}

/** Everything a verdict is computed from. */
export interface CaseFacts {
  case: CaseName;
  operations: Operation[];
  /** Every attempt, in the order the answers came. */
  attempts: Attempted[];
  /** Rows the service stored during the case (counted in its database). */
  rows: number;
}

/** A verdict and the evidence for it, for the sentence that reads it. */
export interface Judged {
  verdict: Verdict;
  /** duplicate: rows beyond one per operation. */
  extraRows?: number;
  /** leak, error: the operation that got an answer belonging to another one, and whose. */
  misdirected?: { op: number; from: number };
  /** stuck: how many answers refused the operation, and from the first of them to the last. */
  refused?: { count: number; forMs: number };
}

export const isSuccess = (s: Seen): boolean => typeof s === "number" && s >= 200 && s < 300;

/**
 * The body as compared between answers: canonical JSON where it parses (a replay may reorder
 * nothing, but a proxy or framework may respace), else the text. Empty bodies prove nothing.
 */
function sameBody(a: string, b: string): boolean {
  if (a.trim() === "" || b.trim() === "") return false;
  const canon = (t: string): string => {
    try {
      return JSON.stringify(sortKeys(JSON.parse(t)));
    } catch {
      return t.trim();
    }
  };
  return canon(a) === canon(b);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/**
 * The verdict, worst first:
 * - leak: an operation got a success whose body is another caller's answer;
 * - duplicate: more rows than operations;
 * - error: an operation got a success whose body is another operation's answer, same caller (it was
 *   told "done" and nothing was done for it);
 * - stuck: an operation that must be done got no success, every attempt refused or unanswered;
 * - safe: none of these.
 */
export function judge(facts: CaseFacts): Judged {
  let leak: Judged["misdirected"];
  let wrong: Judged["misdirected"];
  const successes = facts.attempts.filter((a) => isSuccess(a.seen));
  for (const [i, a] of successes.entries()) {
    const earlier = successes.slice(0, i).find((b) => b.op !== a.op && sameBody(a.body, b.body));
    if (!earlier) continue;
    const crossCaller = facts.operations[a.op]?.caller !== facts.operations[earlier.op]?.caller;
    if (crossCaller) leak ??= { op: a.op, from: earlier.op };
    else wrong ??= { op: a.op, from: earlier.op };
  }
  if (leak) return { verdict: "leak", misdirected: leak };
  if (facts.rows > facts.operations.length)
    return { verdict: "duplicate", extraRows: facts.rows - facts.operations.length };
  if (wrong) return { verdict: "error", misdirected: wrong };
  for (const [op, operation] of facts.operations.entries()) {
    if (operation.mayRefuse) continue;
    const mine = facts.attempts.filter((a) => a.op === op);
    if (mine.some((a) => isSuccess(a.seen))) continue;
    const refusals = mine.filter((a) => typeof a.seen === "number");
    const first = refusals[0]?.atMs ?? 0;
    const last = refusals.at(-1)?.atMs ?? 0;
    return {
      verdict: "stuck",
      refused: { count: refusals.length, forMs: Math.round(last - first) },
    };
  }
  return { verdict: "safe" };
}
