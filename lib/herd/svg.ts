/**
 * The herd's charts as SVG files: the documents of svg-docs.ts (the same ones the browser demo
 * draws in its page), written into a folder.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SweepRow } from "./charts.ts";
import { herdSvgs } from "./svg-docs.ts";
import type { HerdWriteTimes } from "./write-times.ts";

export { HERD_SVG_FILES, herdSvgs, type SvgFile } from "./svg-docs.ts";

/**
 * Writes the herd's charts into `dir` (created if missing) and returns the paths written:
 * herd-calls.svg, herd-completion.svg and, given `writeTimes`, herd-write-times.svg.
 * `rows` are a sweep's rows (`simulateMany` / `simulateManyParallel`); `writeTimes` comes from
 * `herdWriteTimes` (lib/herd/write-times.ts).
 */
export function writeHerdSvgs(
  dir: string,
  rows: readonly SweepRow[],
  writeTimes?: HerdWriteTimes,
): string[] {
  mkdirSync(dir, { recursive: true });
  return herdSvgs(rows, writeTimes).map((file) => {
    const path = join(dir, file.name);
    writeFileSync(path, file.svg);
    return path;
  });
}
