/**
 * The tracker's child entry (lib/tracker/child-entry.ts) bundled into one CommonJS file, for a run
 * that starts hundreds of tracker processes (a long chaos run restarts one every few dozen
 * operations). Started from its TypeScript sources, a child spends most of its start-up stripping
 * types (Node loads its WebAssembly type stripper for each process) and, as an ES module, builds
 * `node:http`'s module namespace, which loads Node's bundled fetch; the bundle does neither, and
 * starts in about a fifth of the CPU time (measured in the note on this change). It is the same code:
 * esbuild only joins the modules and drops the types.
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const ENTRY = fileURLToPath(new URL("../tracker/child-entry.ts", import.meta.url));
/** The project's node_modules, where the bundle's packages are found although it lives in a temp folder. */
const PACKAGES = fileURLToPath(new URL("../../node_modules", import.meta.url));
/** The project's root. */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Writes the bundle into `dir` (a folder the run removes) and returns its path. */
export function bundleTrackerChild(dir: string): string {
  return bundleForNode(ENTRY, join(dir, "tracker-child.cjs"));
}

/**
 * Bundles the module `entry` and the project's modules it imports into one CommonJS file,
 * `outfile`, that runs anywhere on this machine; returns `outfile`.
 */
export function bundleForNode(entry: string, outfile: string): string {
  // Only the project's own modules are joined; a package (pg, for a PostgreSQL store) is left to be
  // required from node_modules as usual, its optional native parts included.
  // The bundle lives in a temp folder: its require() looks in the project's node_modules first.
  // It has no import.meta either: lib/core/i18n.ts finds the catalogues through WORKBOOK_ROOT.
  const banner = `module.paths.unshift(${JSON.stringify(PACKAGES)}); process.env.WORKBOOK_ROOT ||= ${JSON.stringify(ROOT)};`;
  buildSync({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    packages: "external",
    logLevel: "silent",
    banner: { js: banner },
  });
  return outfile;
}
