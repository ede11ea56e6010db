/**
 * Lesson 11's table as data and as text: one row per server and case, every field from the run. The
 * JSON (fixed names: `--json`) is `{"rows":[{"server","case","statuses","rows","verdict"}]}`, plus
 * `stuckForMs` on a stuck row: how long its retries were refused.
 */
import { currentLang, t } from "../core/i18n.ts";
import type { CaseRun } from "../probe/checks.ts";
import { seenText } from "../probe/texts.ts";
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

/** "201 201", "lost 201", "500 409 409 409" (the JSON keeps the fixed names; a table speaks). */
export function statusesCell(statuses: readonly Seen[]): string {
  return statuses.map((s) => seenText(s)).join(" ");
}

/** A verdict's name as a person reads it (the JSON keeps the fixed names). */
export function verdictName(verdict: Verdict): string {
  return t(
    "{verdict, select, safe {safe} duplicate {duplicate} stuck {stuck} leak {leak} other {error}}",
    { verdict },
  );
}

/** The verdict as the table shows it; a stuck one says for how long its retries were refused. */
export function verdictCell(row: Pick<TableRow, "verdict" | "stuckForMs">): string {
  if (row.verdict === "stuck" && row.stuckForMs !== undefined)
    return t("stuck {seconds} s", { seconds: (row.stuckForMs / 1000).toFixed(1) });
  return verdictName(row.verdict);
}

/** What each verdict means, one sentence each, for the legend under the table. */
export function verdictMeaning(verdict: Verdict): string {
  switch (verdict) {
    case "safe":
      return t("every operation done once, or a misuse refused");
    case "duplicate":
      return t("more reports stored than operations: something was done twice");
    case "stuck":
      return t(
        "an operation never done: every retry refused, for as long as shown (then the client gave up)",
      );
    case "leak":
      return t("a caller got another caller's stored answer");
    case "error":
      return t("an operation was told it was done (another operation's answer) and was not done");
  }
}

/** The verdicts side by side: a row per case, a column per server. */
export function verdictGrid(
  servers: readonly ServerName[],
  rows: readonly TableRow[],
): { header: string[]; body: string[][] } {
  const cases = [...new Set(rows.map((r) => r.case))];
  return {
    header: [t("case"), ...servers],
    body: cases.map((c) => [
      c,
      ...servers.map((s) => {
        const row = rows.find((r) => r.server === s && r.case === c);
        return row ? verdictName(row.verdict) : "";
      }),
    ]),
  };
}

/** How many of a server's cells are not safe, and which, for the closing summary. */
export function notSafe(server: ServerName, rows: readonly TableRow[]): TableRow[] {
  return rows.filter((r) => r.server === server && r.verdict !== "safe");
}

/** The closing summary's line for one server: "4 of 10 cases not safe: crash (duplicate), …". */
export function notSafeLine(server: ServerName, rows: readonly TableRow[]): string {
  const bad = notSafe(server, rows);
  if (bad.length === 0) return t("every case safe");
  const list = bad
    .map((r) => t("{case} ({verdict})", { case: r.case, verdict: verdictName(r.verdict) }))
    .join(currentLang() === "zh" ? "、" : ", ");
  return t("{count} of {total} cases not safe: {list}", {
    count: bad.length,
    total: rows.filter((r) => r.server === server).length,
    list,
  });
}
