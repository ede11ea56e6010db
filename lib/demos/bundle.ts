/**
 * The browser code, bundled with esbuild when the server starts, in memory (nothing written to
 * disk): one minified ES module per entry, with the workbook's own modules (the herd simulator,
 * the SVG writer) inlined, so the page runs the very code `npm run herd` runs.
 */

import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** lib/demos/: the folder bundle entries are relative to. */
export const DEMOS_DIR = dirname(fileURLToPath(import.meta.url));

const cache = new Map<string, Promise<string>>();

/**
 * The bundle of `entry` (relative to lib/demos/) as JavaScript text. Built once per process and
 * cached; a build error rejects with esbuild's message.
 */
export function bundle(entry: string): Promise<string> {
  let result = cache.get(entry);
  if (result === undefined) {
    result = buildOne(resolve(DEMOS_DIR, entry));
    cache.set(entry, result);
    result.catch(() => cache.delete(entry));
  }
  return result;
}

async function buildOne(entryPath: string): Promise<string> {
  const out = await build({
    entryPoints: [entryPath],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["chrome120", "firefox121", "safari17"],
    minify: true,
    write: false,
    legalComments: "none",
    logLevel: "silent",
    charset: "utf8",
  });
  const file = out.outputFiles[0];
  if (file === undefined) throw new Error(`esbuild produced nothing for ${entryPath}`);
  return file.text;
}
