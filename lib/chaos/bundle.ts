/**
 * The tracker's child entry (lib/tracker/child-entry.ts) bundled into one CommonJS file, for a run
 * that starts hundreds of tracker processes (a long chaos run restarts one every few dozen
 * operations). Started from its TypeScript sources, a child spends most of its start-up stripping
 * types (Node loads its WebAssembly type stripper for each process) and, as an ES module, builds
 * `node:http`'s module namespace, which loads Node's bundled fetch; the bundle does neither, and
 * starts in about a fifth of the CPU time (measured in the note on this change). It is the same code:
 * esbuild only joins the modules and drops the types.
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";

const ENTRY = fileURLToPath(new URL("../tracker/child-entry.ts", import.meta.url));
/** The project's node_modules, where the bundle's packages are found although it lives in a temp folder. */
const PACKAGES = fileURLToPath(new URL("../../node_modules", import.meta.url));

/**
 * Each module keeps its own `import.meta.url`, the URL of its source file: a CommonJS bundle has no
 * import.meta (esbuild would leave an empty object), and lib/core/i18n.ts finds the Chinese
 * catalogues from its own URL (so does anything that reads a file beside its module).
 */
const keepModuleUrls: Plugin = {
  name: "keep-module-urls",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      return {
        contents: source.replaceAll(
          "import.meta.url",
          JSON.stringify(pathToFileURL(args.path).href),
        ),
        loader: "ts",
      };
    });
  },
};

/**
 * `entry` (a TypeScript module of the project) and the project's modules it imports, joined into
 * one CommonJS file at `outfile`. Only the project's own modules are joined; a package (pg, for a
 * PostgreSQL store) is left to be required from node_modules as usual, its optional native parts
 * included. The bundle lives in a temp folder: its require() looks in the project's node_modules
 * first.
 */
export async function bundleEntry(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    packages: "external",
    logLevel: "silent",
    banner: { js: `module.paths.unshift(${JSON.stringify(PACKAGES)});` },
    plugins: [keepModuleUrls],
  });
  return outfile;
}

/** Writes the tracker child's bundle into `dir` (a folder the run removes) and returns its path. */
export function bundleTrackerChild(dir: string): Promise<string> {
  return bundleEntry(ENTRY, join(dir, "tracker-child.cjs"));
}
