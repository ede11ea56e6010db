/**
 * The herd's rows as CSV, `strategy,clients,calls,completion_ms`: what `npm run herd -- --csv`
 * prints and what the browser demo's "download CSV" link gives, from this one function.
 */
import type { PointResult } from "./simulator.ts";

/** A number for CSV: at most one decimal, no grouping. */
export function csvNumber(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** One header line, then one line per row, each ending in a newline. */
export function herdCsv(rows: readonly PointResult[]): string {
  const lines = ["strategy,clients,calls,completion_ms"];
  for (const r of rows)
    lines.push(`${r.strategy},${r.clients},${csvNumber(r.calls)},${csvNumber(r.completionMs)}`);
  return `${lines.join("\n")}\n`;
}
