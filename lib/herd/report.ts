/**
 * A sweep's results as the terminal shows them, in lesson 02 and in `npm run herd`: a table of the
 * mean write calls and one of the mean completion time (a row per client count, a column per
 * strategy), then, with more than one client count, each as a chart across the client counts.
 */
import { sweepChart, sweepTable } from "./charts.ts";
import type { PointResult } from "./simulator.ts";

/** A heading and the text under it. */
export interface Block {
  title: string;
  body: string;
}

/** The tables of a sweep, and its charts when it has more than one client count. */
export function sweepBlocks(rows: readonly PointResult[]): Block[] {
  const blocks: Block[] = [
    {
      title: "Write calls per run (mean): the work the server does",
      body: sweepTable(rows, "calls", 1),
    },
    {
      title: "Completion time (mean, ms): until the last client has written",
      body: sweepTable(rows, "completionMs"),
    },
  ];
  if (new Set(rows.map((r) => r.clients)).size > 1) {
    blocks.push({ title: "Calls versus clients", body: sweepChart(rows, "calls") });
    blocks.push({
      title: "Completion time versus clients",
      body: sweepChart(rows, "completionMs", " ms"),
    });
  }
  return blocks;
}
