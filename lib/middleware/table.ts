/**
 * Lesson 11's table as data and as text: one row per server and case, every field from the run. The
 * JSON (fixed names: `--json`) is `{"rows":[{"server","case","statuses","rows","verdict"}]}`, plus
 * `stuckForMs` on a stuck row: how long its retries were refused.
 */
import type { CaseRun } from "../probe/checks.ts";
import type { CaseName, Seen, Verdict } from "../probe/verdict.ts";
import type { ServerName } from "./servers.ts";

export interface TableRow {
  server: ServerName;
  case: CaseName;
  statuses: Seen[];
  rows: number;
  verdict: Verdict;
  stuckForMs?: number;
}

/** The rows of one server's runs (every case runs against a server built here: none is skipped). */
export function tableRows(server: ServerName, runs: readonly CaseRun[]): TableRow[] {
  return runs.map((r) => {
    if (!r.ran) throw new Error(`${server} × ${r.case} did not run (${r.skip})`);
    const row: TableRow = {
      server,
      case: r.case,
      statuses: r.facts.attempts.map((a) => a.seen),
      rows: r.facts.rows,
      verdict: r.judged.verdict,
    };
    if (r.judged.refused) row.stuckForMs = r.judged.refused.forMs;
    return row;
  });
}

export function tableJson(rows: readonly TableRow[]): string {
  return JSON.stringify({ rows });
}

/** "201 201", "lost 201", "500 409 409 409". */
export function statusesCell(statuses: readonly Seen[]): string {
  return statuses.join(" ");
}

/** The verdict as the table shows it; a stuck one says for how long its retries were refused. */
export function verdictCell(row: Pick<TableRow, "verdict" | "stuckForMs">): string {
  if (row.verdict === "stuck" && row.stuckForMs !== undefined)
    return `stuck ${(row.stuckForMs / 1000).toFixed(1)} s`;
  return row.verdict;
}

/** What each verdict means, one sentence each, for the legend under the table. */
export const VERDICT_MEANING: Record<Verdict, string> = {
  safe: "every operation done once, or a misuse refused",
  duplicate: "more reports stored than operations: something was done twice",
  stuck:
    "an operation never done: every retry refused, for as long as shown (then the client gave up)",
  leak: "a caller got another caller's stored answer",
  error: "an operation was told it was done (another operation's answer) and was not done",
};

/** The verdicts side by side: a row per case, a column per server. */
export function verdictGrid(
  servers: readonly ServerName[],
  rows: readonly TableRow[],
): { header: string[]; body: string[][] } {
  const cases = [...new Set(rows.map((r) => r.case))];
  return {
    header: ["case", ...servers],
    body: cases.map((c) => [
      c,
      ...servers.map((s) => rows.find((r) => r.server === s && r.case === c)?.verdict ?? ""),
    ]),
  };
}

/** How many of a server's cells are not safe, and which, for the closing summary. */
export function notSafe(server: ServerName, rows: readonly TableRow[]): TableRow[] {
  return rows.filter((r) => r.server === server && r.verdict !== "safe");
}
