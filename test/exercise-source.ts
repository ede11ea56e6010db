// Reading an exercise's source as the project's tests need it: its TODO comments (in English and in
// Chinese) with the function each stands in, its Chinese header, the modules it imports and what
// they export, and the names an answer uses. Parsed with @babel/parser, as the catalogue check parses
// the code for its messages.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parse } from "@babel/parser";
import { flowText } from "../lib/runner/manifest.ts";

/** A node of Babel's tree, as far as these helpers look at it. */
export type Node = {
  type: string;
  start?: number | null;
  end?: number | null;
  loc?: { start: { line: number } } | null;
  [key: string]: unknown;
};

function isNode(x: unknown): x is Node {
  return typeof x === "object" && x !== null && typeof (x as { type?: unknown }).type === "string";
}

/** Calls `fn` on every node, depth first, with the nodes around it (outermost first). */
export function walk(node: unknown, fn: (n: Node, around: readonly Node[]) => void): void {
  const go = (x: unknown, around: Node[]): void => {
    if (Array.isArray(x)) {
      for (const y of x) go(y, around);
      return;
    }
    if (!isNode(x)) return;
    fn(x, around);
    for (const [key, value] of Object.entries(x))
      if (key !== "loc" && key !== "leadingComments" && key !== "trailingComments")
        if (typeof value === "object") go(value, [...around, x]);
  };
  go(node, []);
}

/** The source's tree, comments included (`program`, `comments`). */
export function parseSource(source: string): { program: Node; comments: Node[] } {
  const file = parse(source, { sourceType: "module", plugins: ["typescript"] });
  return {
    program: file.program as unknown as Node,
    comments: (file.comments ?? []) as unknown as Node[],
  };
}

/** The name of a declaration a TODO stands in: `f`, `Class.method`, or `Class`. */
function nameOf(around: readonly Node[]): string | undefined {
  const names: string[] = [];
  for (const n of around) {
    if (n.type === "ClassDeclaration") names.push((n.id as { name: string }).name);
    if (n.type === "FunctionDeclaration") names.push((n.id as { name: string }).name);
    if (n.type === "ClassMethod" || n.type === "ClassPrivateMethod")
      names.push((n.key as { name: string }).name);
  }
  return names.length > 0 ? names.join(".") : undefined;
}

export interface TodoComment {
  /** The declaration it stands in, as the stub's error names it: `f`, `Class.method` or `Class`. */
  name: string;
  /** "TODO" for the English comment, "待办" for the Chinese one. */
  label: "TODO" | "待办";
  /** The comment's words, its lines run together. */
  text: string;
  line: number;
}

/**
 * The `// TODO:` and `// 待办：` comments of an exercise file, each with the lines that go on from it
 * (`//   more words`), and the declaration it stands in.
 */
export function todoComments(source: string): TodoComment[] {
  const { program, comments } = parseSource(source);
  const lineComments = comments.filter((c) => c.type === "CommentLine");
  // The innermost function, method or class around a position.
  const around = (at: number): string | undefined => {
    let best: readonly Node[] = [];
    walk(program, (n, outer) => {
      if (
        (n.type === "FunctionDeclaration" ||
          n.type === "ClassMethod" ||
          n.type === "ClassPrivateMethod" ||
          n.type === "ClassDeclaration") &&
        (n.start ?? 0) <= at &&
        at <= (n.end ?? 0)
      )
        best = [...outer, n];
    });
    return nameOf(best);
  };
  const out: TodoComment[] = [];
  for (let i = 0; i < lineComments.length; i++) {
    const c = lineComments[i]!;
    const m = /^ (TODO|待办)[:：] ?(.*)$/.exec(c.value as string);
    if (!m) continue;
    const parts = [m[2]!];
    let line = c.loc!.start.line;
    for (let j = i + 1; j < lineComments.length; j++) {
      const next = lineComments[j]!;
      const more = /^ {3,}(\S.*)$/.exec(next.value as string);
      if (!more || next.loc!.start.line !== line + 1) break;
      parts.push(more[1]!);
      line += 1;
    }
    out.push({
      name: around(c.start ?? 0) ?? "",
      label: m[1] as "TODO" | "待办",
      text: flowText(parts.join("\n")),
      line: c.loc!.start.line,
    });
  }
  return out;
}

/** The lines of the first JSDoc block, the leading " * " taken off. */
function headerLines(source: string): string[] {
  const m = /\/\*\*([\s\S]*?)\*\//.exec(source);
  return m ? m[1]!.split("\n").map((l) => l.replace(/^\s*\*\s?/, "")) : [];
}

/**
 * The Chinese header of an exercise file: its title line ("练习 01a · …") and its paragraphs by
 * label ("目标", "约束"), flowed as the manifest's texts are.
 */
export function chineseHeader(source: string): { first?: string; paragraphs: Map<string, string> } {
  const lines = headerLines(source);
  const first = lines.map((l) => l.trim()).find((l) => l.startsWith("练习 "));
  const paragraphs = new Map<string, string>();
  for (const [i, line] of lines.entries()) {
    const m = /^([\u4e00-\u9fff]{2})：/.exec(line.trim());
    if (!m) continue;
    const end = lines.findIndex((l, k) => k > i && l.trim() === "");
    const text = flowText(lines.slice(i, end < 0 ? undefined : end).join("\n"));
    paragraphs.set(m[1]!, text.slice(m[0].length));
  }
  return first === undefined ? { paragraphs } : { first, paragraphs };
}

/** The relative modules a source imports (values or types), as paths relative to `root`. */
export function importsOf(
  source: string,
  file: string,
  root: string,
): { module: string; typeOnly: boolean; line: number }[] {
  const { program } = parseSource(source);
  const out: { module: string; typeOnly: boolean; line: number }[] = [];
  for (const n of program.body as Node[]) {
    if (n.type !== "ImportDeclaration" && n.type !== "ExportNamedDeclaration") continue;
    const from = (n.source as { value?: string } | null)?.value;
    if (from === undefined || !from.startsWith(".")) continue;
    const specifiers = (n.specifiers ?? []) as Node[];
    const typeOnly =
      n.importKind === "type" ||
      n.exportKind === "type" ||
      (specifiers.length > 0 &&
        specifiers.every((s) => s.importKind === "type" || s.exportKind === "type"));
    out.push({
      module: relative(root, resolve(dirname(join(root, file)), from)),
      typeOnly,
      line: n.loc?.start.line ?? 0,
    });
  }
  return out;
}

/**
 * The names a module exports as values (functions, classes, constants; not types), its `export *`
 * and value re-exports followed.
 */
export function valueExports(module: string, root: string, seen = new Set<string>()): string[] {
  if (seen.has(module) || !existsSync(join(root, module))) return [];
  seen.add(module);
  const { program } = parseSource(readFileSync(join(root, module), "utf8"));
  const names: string[] = [];
  const follow = (from: string): string =>
    relative(root, resolve(dirname(join(root, module)), from));
  for (const n of program.body as Node[]) {
    if (n.type === "ExportAllDeclaration" && n.exportKind !== "type") {
      names.push(...valueExports(follow((n.source as { value: string }).value), root, seen));
      continue;
    }
    if (n.type !== "ExportNamedDeclaration" || n.exportKind === "type") continue;
    const d = n.declaration as Node | null;
    if (d?.type === "FunctionDeclaration" || d?.type === "ClassDeclaration")
      names.push((d.id as { name: string }).name);
    if (d?.type === "VariableDeclaration")
      for (const v of d.declarations as Node[])
        if ((v.id as Node).type === "Identifier") names.push((v.id as { name: string }).name);
    for (const s of (n.specifiers ?? []) as Node[]) {
      if (s.exportKind === "type") continue;
      const exported = s.exported as { name?: string; value?: string };
      names.push(exported.name ?? exported.value ?? "");
    }
  }
  return names;
}

/**
 * The identifiers an answer's code uses: its own, and those of the lib/ modules it re-exports from
 * (a reference answer may be the workbook's own code, re-exported).
 */
export function answerIdentifiers(solution: string, root: string): Set<string> {
  const names = new Set<string>();
  const read = (file: string): void => {
    const { program } = parseSource(readFileSync(join(root, file), "utf8"));
    walk(program, (n) => {
      if (n.type === "Identifier") names.add(n.name as string);
      if (n.type === "PrivateName") names.add((n.id as { name: string }).name);
      if (
        n.type === "ExportNamedDeclaration" &&
        (n.source as { value?: string } | null)?.value?.startsWith(".")
      )
        read(
          relative(root, resolve(dirname(join(root, file)), (n.source as { value: string }).value)),
        );
    });
  };
  read(solution);
  return names;
}
