// The READMEs' map of lib/ (README.md "How it is built", README.zh-CN.md "项目结构") against lib/ itself:
// lib/ holds folders only, every folder has its line in the map and every line names a folder that
// exists; each module a line names is in its folder, and the first one, the folder's main module, opens
// with a comment (whose first line says what the folder is for). Both READMEs put the same folders on
// the same floors and name the same modules (the floors themselves: test/imports.test.ts).
import assert from "node:assert/strict";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../lib/runner/catalog.ts";
import { libMap, type MapEntry } from "./lib-map.ts";

/** What is wrong between a map and the lib/ folder `libDir`, one sentence each (none: they match). */
function mapProblems(entries: MapEntry[], libDir: string, readme: string): string[] {
  const problems: string[] = [];
  const top = readdirSync(libDir).sort();
  const folders = top.filter((n) => statSync(join(libDir, n)).isDirectory());
  for (const file of top.filter((n) => !folders.includes(n)))
    problems.push(`lib/ has a file at its top level: ${file} (move it into a folder)`);
  const mapped = entries.map((e) => e.folder);
  for (const f of folders)
    if (!mapped.includes(f)) problems.push(`${readme}'s map of lib/ lacks lib/${f}/`);
  for (const [i, e] of entries.entries()) {
    if (mapped.indexOf(e.folder) !== i)
      problems.push(`${readme}'s map of lib/ lists lib/${e.folder}/ twice`);
    if (!folders.includes(e.folder)) {
      problems.push(`${readme}'s map of lib/ names lib/${e.folder}/, which does not exist`);
      continue;
    }
    if (e.modules.length === 0)
      problems.push(`${readme}'s line for lib/${e.folder}/ names none of its modules`);
    for (const m of e.modules) {
      const path = join(libDir, e.folder, m);
      let ok = false;
      try {
        ok = m.endsWith("/") ? statSync(path).isDirectory() : statSync(path).isFile();
      } catch {
        ok = false;
      }
      if (!ok)
        problems.push(`${readme}'s line for lib/${e.folder}/ names ${m}, which is not there`);
    }
    const main = e.modules[0];
    if (main?.endsWith(".ts") && problems.every((p) => !p.includes(`names ${main},`))) {
      const [first = "", second = ""] = readFileSync(join(libDir, e.folder, main), "utf8").split(
        "\n",
      );
      const opening = first.startsWith("/**")
        ? first.slice(3).trim() ||
          (second.trim().startsWith("*/") ? "" : second.trim().replace(/^\*/, ""))
        : first.startsWith("//")
          ? first.slice(2)
          : "";
      if (opening.trim() === "" || opening.trim() === "*/")
        problems.push(
          `lib/${e.folder}/${main}, the folder's main module, does not open with a comment saying what the folder is for`,
        );
    }
  }
  return problems;
}

test("the map is read from its section: floors in order, their folders, wrapped lines included, modules in order", () => {
  const md = [
    "## Other",
    "- `lib/`: not this one",
    "  - Floor 1:",
    "    - `elsewhere/`: `x.ts`",
    "## How it is built",
    "- `lessons/`: …",
    "- `lib/`: the machinery, one folder per subject",
    "  and no file at its top.",
    "  - Floor 1, the ground:",
    "    - `core/`: `trace.ts` (the trace), `--step` and `npm run x` are not modules,",
    "      `clock.ts`.",
    "  - 第 2 层：",
    "    - `tracker/` (`npm run tracker`): `service.ts`, `variants/`.",
    "    - `client/`: `client.ts`.",
    "- `test/`: `a.ts` is not in lib/",
    "  - `nope/`: `b.ts`",
    "## Next",
  ].join("\n");
  assert.deepEqual(libMap(md, "## How it is built"), [
    { folder: "core", floor: 1, modules: ["trace.ts", "clock.ts"] },
    { folder: "tracker", floor: 2, modules: ["service.ts", "variants/"] },
    { folder: "client", floor: 2, modules: ["client.ts"] },
  ]);
  assert.throws(() => libMap(md, "## Missing"), /no heading/);
  assert.throws(
    () => libMap(md.replace("第 2 层", "第 3 层"), "## How it is built"),
    /should name floor 2/,
  );
  assert.throws(
    () => libMap(md.replace("  - Floor 1, the ground:\n", ""), "## How it is built"),
    /lib\/core\/ is on no floor/,
  );
});

test("a map that does not match its lib/ is told apart, problem by problem", () => {
  const root = mkdtempSync(join(tmpdir(), "retry-workbook-map-"));
  try {
    const lib = join(root, "lib");
    for (const d of ["core", "quiet", "unmapped", "core/sub"])
      mkdirSync(join(lib, d), { recursive: true });
    writeFileSync(join(lib, "core", "trace.ts"), "/**\n * What every lesson shares.\n */\n");
    writeFileSync(join(lib, "quiet", "main.ts"), "export const x = 1;\n");
    writeFileSync(join(lib, "stray.ts"), "// at the top\n");
    const ok: MapEntry[] = [
      { folder: "core", floor: 1, modules: ["trace.ts", "sub/"] },
      { folder: "quiet", floor: 2, modules: ["main.ts"] },
      { folder: "unmapped", floor: 2, modules: [] },
    ];
    assert.deepEqual(mapProblems(ok, lib, "R"), [
      "lib/ has a file at its top level: stray.ts (move it into a folder)",
      "lib/quiet/main.ts, the folder's main module, does not open with a comment saying what the folder is for",
      "R's line for lib/unmapped/ names none of its modules",
    ]);
    const bad: MapEntry[] = [
      { folder: "core", floor: 1, modules: ["gone.ts", "trace.ts"] },
      { folder: "core", floor: 1, modules: ["trace.ts"] },
      { folder: "ghost", floor: 2, modules: ["a.ts"] },
    ];
    assert.deepEqual(mapProblems(bad, lib, "R"), [
      "lib/ has a file at its top level: stray.ts (move it into a folder)",
      "R's map of lib/ lacks lib/quiet/",
      "R's map of lib/ lacks lib/unmapped/",
      "R's line for lib/core/ names gone.ts, which is not there",
      "R's map of lib/ lists lib/core/ twice",
      "R's map of lib/ names lib/ghost/, which does not exist",
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

const READMES = [
  { file: "README.md", heading: "## How it is built" },
  { file: "README.zh-CN.md", heading: "## 项目结构" },
];

for (const { file, heading } of READMES) {
  test(`${file}'s map of lib/ matches lib/: folders only at the top, each on the map, each module named there`, () => {
    const entries = libMap(readFileSync(join(ROOT, file), "utf8"), heading);
    assert.ok(entries.length >= 5, `${file}: only ${entries.length} folders found in the map`);
    const problems = mapProblems(entries, join(ROOT, "lib"), file);
    assert.ok(problems.length === 0, problems.join("\n"));
  });
}

test("README.zh-CN.md's map puts the same folders on the same floors and names the same modules as README.md's, in the same order", () => {
  const [en, zh] = READMES.map(({ file, heading }) =>
    libMap(readFileSync(join(ROOT, file), "utf8"), heading),
  );
  assert.deepEqual(zh, en);
});
