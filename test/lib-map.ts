// The READMEs' map of lib/ (README.md "How it is built", README.zh-CN.md "项目结构"), read as data:
// the floors, lowest first, and on each floor its folders with the modules each line names. The map is
// where the order of lib/'s folders is declared, once: test/readme-map.test.ts holds it against lib/,
// test/imports.test.ts holds every import in lib/ against its floors.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../lib/runner/catalog.ts";

export interface MapEntry {
  /** "core" */
  folder: string;
  /** The floor the folder stands on: 1 is the lowest. */
  floor: number;
  /** What the line names inside the folder, in order: "trace.ts", "variants/". The first is the main module. */
  modules: string[];
}

/**
 * The entries of the map: under the heading `heading`, the list item "- `lib/`…", its floor items
 * "  - <words with the floor's number>…" and under each floor its folder items "    - `<folder>/`…"
 * (a folder item may go on over lines indented further). Floors are numbered 1, 2, 3… in order.
 */
export function libMap(markdown: string, heading: string): MapEntry[] {
  const lines = markdown.split("\n");
  const from = lines.findIndex((l) => l.trim() === heading);
  if (from < 0) throw new Error(`no heading "${heading}"`);
  const section: string[] = [];
  for (const line of lines.slice(from + 1)) {
    if (/^#/.test(line)) break;
    section.push(line);
  }
  const lib = section.findIndex((l) => l.startsWith("- `lib/`"));
  if (lib < 0) throw new Error(`no "- \`lib/\`" item under "${heading}"`);
  const entries: { folder: string; floor: number; text: string }[] = [];
  let floor = 0;
  for (const line of section.slice(lib + 1)) {
    const floorItem = /^ {2}- (.*)$/.exec(line);
    const item = /^ {4}- `([^`/]+)\/`(.*)$/.exec(line);
    if (floorItem) {
      const n = /\d+/.exec(floorItem[1]!);
      if (!n || Number(n[0]) !== floor + 1)
        throw new Error(
          `under "${heading}", the floor item "${line.trim()}" should name floor ${floor + 1}`,
        );
      floor += 1;
    } else if (item) {
      if (floor === 0) throw new Error(`under "${heading}", lib/${item[1]}/ is on no floor`);
      entries.push({ folder: item[1]!, floor, text: item[2]! });
    } else if (/^ {6,}\S/.test(line) && entries.length > 0)
      entries[entries.length - 1]!.text += ` ${line.trim()}`;
    else if (/^ {2}\S/.test(line) && floor === 0)
      continue; // the lib/ item's own text, wrapped
    else break;
  }
  return entries.map(({ folder, floor, text }) => ({
    folder,
    floor,
    modules: [...text.matchAll(/`([^`]+)`/g)]
      .map((m) => m[1]!)
      .filter((t) => /^[\w.-]+(\.ts|\/)$/.test(t)),
  }));
}

/** The map of README.md, the one the floors are read from. */
export function readmeMap(): MapEntry[] {
  return libMap(readFileSync(join(ROOT, "README.md"), "utf8"), "## How it is built");
}
