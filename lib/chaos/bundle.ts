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
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildSync } from "esbuild";

const ENTRY = fileURLToPath(new URL("../tracker/child-entry.ts", import.meta.url));
/** The project's node_modules, where the bundle's packages are found although it lives in a temp folder. */
const PACKAGES = fileURLToPath(new URL("../../node_modules", import.meta.url));

/** Writes the bundle into `dir` (a folder the run removes) and returns its path. */
export function bundleTrackerChild(dir: string): string {
  const outfile = join(dir, "tracker-child.cjs");
  // Only the project's own modules are joined; a package (pg, for a PostgreSQL store) is left to be
  // required from node_modules as usual, its optional native parts included.
  // The bundle lives in a temp folder: its require() looks in the project's node_modules first.
  const banner = `module.paths.unshift(${JSON.stringify(PACKAGES)});`;
  buildSync({
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    packages: "external",
    logLevel: "silent",
    banner: { js: banner },
    // CommonJS has no import.meta: every joined module's import.meta.url is the entry's own. The
    // modules that read it (lib/core/i18n.ts, which finds the catalogues from it) sit two folders
    // below the project's root, as the entry does.
    define: { "import.meta.url": JSON.stringify(pathToFileURL(ENTRY).href) },
  });
  return outfile;
}
