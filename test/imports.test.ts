// The grain of lib/: the READMEs' map puts each folder on a floor, and a module imports only from its
// own folder or from a folder on a lower floor, never sideways or up; and no modules import each other
// in a circle, between two files or through others, within a folder or across. Every import in lib/ is
// read (static, `import type` included, dynamic with a literal, and `new URL("./x.ts", import.meta.url)`
// for a module started as a process or a worker). No exemptions: an import against the grain is fixed
// by moving code.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../lib/runner/catalog.ts";
import {
  codeOnly,
  fileCycles,
  floorProblems,
  folderCycles,
  importGraph,
  importsOf,
} from "./import-graph.ts";
import { readmeMap } from "./lib-map.ts";

test("imports are found in every form, and not in comments, templates or patterns", () => {
  const source = [
    'import { a } from "./a.ts";',
    "import type { B } from './b.ts';",
    'import {\n  c,\n  type C,\n} from "./c.ts";',
    'import * as d from "./d.ts";',
    'import "./e.ts";',
    'export { f } from "./f.ts";',
    'export * from "./g.ts";',
    'export type { H } from "./h.ts";',
    'const i = await import("./i.ts");',
    'type J = typeof import("./j.ts");',
    'const k = new Worker(new URL("./k.ts", import.meta.url));',
    'const png = new URL("../picture.png", import.meta.url);',
    'import pg from "pg";',
    '// import { no } from "./comment.ts";',
    '/* export * from "./block.ts"; */',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a line of source with a template literal in it, for the scanner to skip
    'const t = `import { no } from "./template.ts" ${"x" + `nested ${1}`} import("./also-template.ts")`;',
    'const re = /import "\\.\\/pattern.ts"/;',
    'const half = 10 / 2; import { l } from "./l.ts";',
    "const s = \"export * from './string.ts'\";",
  ].join("\n");
  assert.deepEqual(
    importsOf(source).map((r) => `${r.kind} ${r.specifier}`),
    [
      "static ./a.ts",
      "static ./b.ts",
      "static ./c.ts",
      "static ./d.ts",
      "static ./e.ts",
      "static ./f.ts",
      "static ./g.ts",
      "static ./h.ts",
      "static pg",
      "static ./l.ts",
      "dynamic ./i.ts",
      "dynamic ./j.ts",
      "spawn ./k.ts",
    ],
  );
  assert.equal(codeOnly("a // b\nc").code.split("\n").length, 2, "newlines are kept");
});

/** Writes `files` (path → source) under a fresh folder; returns its lib/. */
function tree(files: Record<string, string>): { lib: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), "retry-workbook-imports-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { lib: join(root, "lib"), remove: () => rmSync(root, { recursive: true, force: true }) };
}

test("an import sideways or up, a folder on no floor and an import that names no file are each told, naming both files", () => {
  const t = tree({
    "lib/core/a.ts": 'import type { X } from "../client/x.ts";\n',
    "lib/client/x.ts": 'import { y } from "../server/y.ts";\nexport type X = 1;\n',
    "lib/server/y.ts":
      'import { a } from "../core/a.ts";\nconst w = new URL("./worker.ts", import.meta.url);\nexport const y = 1;\n',
    "lib/server/worker.ts": 'import { z } from "../tools/z.ts";\n',
    "lib/tools/z.ts": 'import { gone } from "./gone.ts";\nexport const z = 1;\n',
    "lib/stray/s.ts": "export const s = 1;\n",
  });
  try {
    const graph = importGraph(t.lib);
    assert.deepEqual(graph.unresolved, ["lib/tools/z.ts imports ./gone.ts, which does not exist"]);
    const floors = new Map([
      ["core", 1],
      ["client", 2],
      ["server", 2],
      ["tools", 3],
    ]);
    assert.deepEqual(floorProblems(graph, floors), [
      "lib/stray/ is on no floor of the map: place it in the READMEs' map of lib/",
      "lib/client/x.ts imports lib/server/y.ts: server/ is on floor 2, the same as client/ (floor 2)",
      "lib/core/a.ts imports lib/client/x.ts: client/ is on floor 2, above core/ (floor 1)",
      "lib/server/worker.ts imports lib/tools/z.ts: tools/ is on floor 3, above server/ (floor 2)",
    ]);
  } finally {
    t.remove();
  }
});

test("a circle of imports is told with its files, between two files, through others, through a type or a started module", () => {
  const t = tree({
    "lib/one/a.ts": 'import type { B } from "./b.ts";\nexport type A = 1;\n',
    "lib/one/b.ts": 'import type { A } from "./a.ts";\nexport type B = 1;\n',
    "lib/one/c.ts": 'import { d } from "./d.ts";\nexport const c = 1;\n',
    "lib/one/d.ts": 'import { e } from "../two/e.ts";\nexport const d = 1;\n',
    "lib/two/e.ts": 'import { c } from "../one/c.ts";\nexport const e = 1;\n',
    "lib/two/parent.ts":
      'const child = new URL("./child.ts", import.meta.url);\nexport type Config = 1;\n',
    "lib/two/child.ts": 'import type { Config } from "./parent.ts";\n',
    "lib/two/fine.ts": 'import { e } from "./e.ts";\n',
  });
  try {
    const graph = importGraph(t.lib);
    assert.deepEqual(fileCycles(graph), [
      "a circle of imports: lib/one/a.ts → lib/one/b.ts → lib/one/a.ts",
      "a circle of imports: lib/one/c.ts → lib/one/d.ts → lib/two/e.ts → lib/one/c.ts",
      "a circle of imports: lib/two/child.ts → lib/two/parent.ts → lib/two/child.ts",
    ]);
    assert.deepEqual(folderCycles(graph), [
      "a circle of folders: one/ → two/ → one/ (lib/one/d.ts → lib/two/e.ts; lib/two/e.ts → lib/one/c.ts)",
    ]);
  } finally {
    t.remove();
  }
});

const graph = importGraph(join(ROOT, "lib"));
const floors = new Map(readmeMap().map((e) => [e.folder, e.floor]));

test("every relative import in lib/ names a file that exists", () => {
  assert.ok(graph.edges.length > 200, `only ${graph.edges.length} imports found in lib/`);
  assert.ok(graph.unresolved.length === 0, graph.unresolved.join("\n"));
});

test("lib/ imports with the grain: each folder only from folders on lower floors of the README's map", () => {
  const problems = floorProblems(graph, floors);
  assert.ok(
    problems.length === 0,
    `${problems.length} imports against the floors:\n${problems.join("\n")}`,
  );
});

test("no circle of imports between files of lib/", () => {
  const problems = fileCycles(graph);
  assert.ok(problems.length === 0, `${problems.length} circles:\n${problems.join("\n")}`);
});

test("no circle of imports between folders of lib/", () => {
  const problems = folderCycles(graph);
  assert.ok(problems.length === 0, `${problems.length} circles:\n${problems.join("\n")}`);
});
