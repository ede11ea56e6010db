// Every import between the modules of lib/, read from the sources, and what is wrong with them: an
// import against the floors of the READMEs' map (test/lib-map.ts), and any circle of imports, between
// two files or through others. test/imports.test.ts runs it on lib/; its own tests run it on small trees.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** How one module names another. */
export type ImportKind = "static" | "dynamic" | "spawn";

export interface ModuleRef {
  specifier: string;
  kind: ImportKind;
}

/**
 * The source with its comments and the text of its template literals and regular expressions
 * blanked out (newlines kept), and each ordinary string literal replaced by its number in `strings`
 * (`"3"`): what is left is code in which an import can be found by its shape, and a word "import"
 * inside a comment, a string, a template or a pattern is no longer there.
 */
export function codeOnly(src: string): { code: string; strings: string[] } {
  const strings: string[] = [];
  let out = "";
  let i = 0;
  /** The last character of code written (not space), and the last word: they tell a division from a pattern. */
  let prev = "";
  let word = "";
  /** For each open `${` of a template, the brace depth at which it closes. */
  const templates: number[] = [];
  let depth = 0;
  const blank = (text: string): string => text.replace(/[^\n]/g, " ");

  /** From just after a template's opening backquote (or a `}` closing its `${`): its text, until `${` or the closing backquote. */
  const templateText = (): void => {
    let j = i;
    while (j < src.length) {
      if (src[j] === "\\") j += 2;
      else if (src[j] === "`") {
        out += blank(src.slice(i, j));
        out += "`";
        i = j + 1;
        prev = "`";
        return;
      } else if (src[j] === "$" && src[j + 1] === "{") {
        out += blank(src.slice(i, j));
        out += "${";
        i = j + 2;
        templates.push(depth);
        depth += 1;
        prev = "{";
        return;
      } else j += 1;
    }
    out += blank(src.slice(i));
    i = src.length;
  };

  while (i < src.length) {
    const c = src[i]!;
    const d = src[i + 1];
    if (c === "/" && d === "/") {
      const end = src.indexOf("\n", i);
      const stop = end < 0 ? src.length : end;
      out += blank(src.slice(i, stop));
      i = stop;
    } else if (c === "/" && d === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end < 0 ? src.length : end + 2;
      out += blank(src.slice(i, stop));
      i = stop;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      strings.push(src.slice(i + 1, j));
      out += `"${strings.length - 1}"`;
      i = j + 1;
      prev = c;
      word = "";
    } else if (c === "`") {
      out += "`";
      i += 1;
      templateText();
      word = "";
    } else if (c === "}" && templates.length > 0 && depth - 1 === templates[templates.length - 1]) {
      templates.pop();
      depth -= 1;
      out += "}";
      i += 1;
      templateText();
      word = "";
    } else if (
      c === "/" &&
      (prev === "" || "(,=:[!&|?{};+-*%<>~^".includes(prev) || PATTERN_AFTER.has(word))
    ) {
      // A regular expression literal: up to the unescaped "/" outside a character class.
      let j = i + 1;
      let inClass = false;
      while (j < src.length && src[j] !== "\n") {
        if (src[j] === "\\") j += 2;
        else if (src[j] === "[") {
          inClass = true;
          j++;
        } else if (src[j] === "]") {
          inClass = false;
          j++;
        } else if (src[j] === "/" && !inClass) break;
        else j++;
      }
      out += `/${blank(src.slice(i + 1, j))}/`;
      i = j + 1;
      prev = "/";
      word = "";
    } else {
      if (c === "{") depth += 1;
      if (c === "}") depth -= 1;
      out += c;
      i += 1;
      if (/[\w$]/.test(c)) word = /[\w$]/.test(src[i - 2] ?? "") ? word + c : c;
      else if (!/\s/.test(c)) word = "";
      if (!/\s/.test(c)) prev = /[\w$]/.test(c) ? "a" : c;
    }
  }
  return { code: out, strings };
}

/** Words after which a "/" begins a pattern, not a division. */
const PATTERN_AFTER = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "instanceof",
  "yield",
  "await",
]);

/**
 * What a module imports: `import … from "x"`, `import "x"`, `export … from "x"`, `import type …`,
 * `import("x")` with a literal, and `new URL("./x.ts", import.meta.url)`, a module it starts as a
 * process or a worker ("spawn").
 */
export function importsOf(source: string): ModuleRef[] {
  const { code, strings } = codeOnly(source);
  const refs: ModuleRef[] = [];
  for (const m of code.matchAll(
    /(?<![\w$.])(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+from\s*)?"(\d+)"/g,
  ))
    refs.push({ specifier: strings[Number(m[1])]!, kind: "static" });
  for (const m of code.matchAll(/(?<![\w$.])import\s*\(\s*"(\d+)"\s*[,)]/g))
    refs.push({ specifier: strings[Number(m[1])]!, kind: "dynamic" });
  for (const m of code.matchAll(/\bnew\s+URL\s*\(\s*"(\d+)"\s*,\s*import\.meta\.url\s*\)/g)) {
    const specifier = strings[Number(m[1])]!;
    if (specifier.endsWith(".ts")) refs.push({ specifier, kind: "spawn" });
  }
  return refs;
}

/** One import between two modules of the tree, paths relative to the tree's parent ("lib/core/trace.ts"). */
export interface Edge {
  from: string;
  to: string;
  kind: ImportKind;
}

export interface Graph {
  /** Every module, "lib/…/x.ts", sorted. */
  files: string[];
  edges: Edge[];
  /** Relative imports that name no file ("lib/a/x.ts imports ./gone.ts, which does not exist"). */
  unresolved: string[];
}

/** Every .ts file under `dir`, sorted. */
function tsFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...tsFiles(path));
    else if (name.endsWith(".ts")) found.push(path);
  }
  return found;
}

/** The imports between the modules under `libDir`; a bare specifier (node:fs, pg) is not one of them. */
export function importGraph(libDir: string): Graph {
  const base = dirname(libDir);
  const name = (path: string): string => relative(base, path).split(sep).join("/");
  const files = tsFiles(libDir);
  const edges: Edge[] = [];
  const unresolved: string[] = [];
  for (const file of files) {
    for (const ref of importsOf(readFileSync(file, "utf8"))) {
      if (!ref.specifier.startsWith(".")) continue;
      const target = resolve(dirname(file), ref.specifier);
      if (!existsSync(target) || !statSync(target).isFile())
        unresolved.push(`${name(file)} imports ${ref.specifier}, which does not exist`);
      else edges.push({ from: name(file), to: name(target), kind: ref.kind });
    }
  }
  return { files: files.map(name), edges, unresolved };
}

/** "lib/tracker/variants/keyed.ts" → "tracker"; outside lib/: undefined. */
export function folderOf(file: string): string | undefined {
  const parts = file.split("/");
  return parts[0] === "lib" && parts.length > 2 ? parts[1] : undefined;
}

const HOW: Record<ImportKind, string> = {
  static: "imports",
  dynamic: "imports (dynamically)",
  spawn: "starts",
};

/**
 * The imports against the floors: from a folder to another on the same floor or a higher one, or to
 * something outside lib/; and the folders that are on no floor. One sentence each, naming both files.
 */
export function floorProblems(graph: Graph, floors: ReadonlyMap<string, number>): string[] {
  const problems: string[] = [];
  const folders = [
    ...new Set(graph.files.map(folderOf).filter((f): f is string => f !== undefined)),
  ].sort();
  for (const f of folders)
    if (!floors.has(f))
      problems.push(`lib/${f}/ is on no floor of the map: place it in the READMEs' map of lib/`);
  for (const e of graph.edges) {
    const from = folderOf(e.from);
    const to = folderOf(e.to);
    if (from === undefined) continue;
    if (to === undefined) {
      problems.push(`${e.from} ${HOW[e.kind]} ${e.to}, outside lib/`);
      continue;
    }
    if (from === to) continue;
    const a = floors.get(from);
    const b = floors.get(to);
    if (a === undefined || b === undefined || b < a) continue;
    problems.push(
      `${e.from} ${HOW[e.kind]} ${e.to}: ${to}/ is on floor ${b}, ${b === a ? "the same as" : "above"} ${from}/ (floor ${a})`,
    );
  }
  return problems;
}

/** Strongly connected components of a graph given by its successor lists (Tarjan), in a stable order. */
function components(nodes: readonly string[], next: (n: string) => readonly string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      found.push(component.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return found;
}

/** A shortest circle through `start` inside `within`: start → … → start. */
function circleThrough(
  start: string,
  within: ReadonlySet<string>,
  next: (n: string) => readonly string[],
): string[] {
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of next(v)) {
      if (!within.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(from.get(path[0]!)!);
        return [...path, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** Every circle of imports between files: one sentence per knot of files that reach each other, with one circle in it. */
export function fileCycles(graph: Graph): string[] {
  const next = new Map<string, string[]>();
  for (const e of graph.edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const succ = (n: string): string[] => [...new Set(next.get(n) ?? [])].sort();
  const problems: string[] = [];
  for (const c of components(graph.files, succ)) {
    if (c.length === 1 && !succ(c[0]!).includes(c[0]!)) continue;
    const circle = circleThrough(c[0]!, new Set(c), succ);
    problems.push(
      `a circle of imports: ${circle.join(" → ")}${c.length > circle.length - 1 ? ` (${c.length} files reach each other: ${c.join(", ")})` : ""}`,
    );
  }
  return problems;
}

/** Every circle between folders of lib/, each step named by one import that makes it. */
export function folderCycles(graph: Graph): string[] {
  const witness = new Map<string, Edge>();
  for (const e of graph.edges) {
    const a = folderOf(e.from);
    const b = folderOf(e.to);
    if (a === undefined || b === undefined || a === b) continue;
    if (!witness.has(`${a}>${b}`)) witness.set(`${a}>${b}`, e);
  }
  const folders = [...new Set([...witness.keys()].flatMap((k) => k.split(">")))].sort();
  const succ = (f: string): string[] => folders.filter((g) => witness.has(`${f}>${g}`));
  const problems: string[] = [];
  const told = (circle: string[]): string => {
    const steps = circle.slice(1).map((f, i) => {
      const e = witness.get(`${circle[i]}>${f}`)!;
      return `${e.from} → ${e.to}`;
    });
    return `a circle of folders: ${circle.map((f) => `${f}/`).join(" → ")} (${steps.join("; ")})`;
  };
  for (const c of components(folders, succ)) {
    if (c.length === 1) continue;
    // Every two folders that import each other, and at least one circle for the knot.
    const pairs = c.flatMap((a, i) =>
      c
        .slice(i + 1)
        .filter((b) => witness.has(`${a}>${b}`) && witness.has(`${b}>${a}`))
        .map((b) => [a, b, a]),
    );
    const circles = pairs.length > 0 ? pairs : [circleThrough(c[0]!, new Set(c), succ)];
    for (const circle of circles) problems.push(told(circle));
    if (c.length > 2)
      problems.push(
        `these folders all reach each other through imports: ${c.map((f) => `${f}/`).join(", ")}`,
      );
  }
  return problems;
}
