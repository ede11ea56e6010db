/**
 * The JSDoc header of a lesson or an exercise: its first line and its @tags. A lesson's title,
 * summary and run line are written once, there, and read by the lesson itself (lessonSetup, for its
 * --help and its title) and by the runner's catalog.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";

/** Reads the first JSDoc block: the first text line and the @tags (a tag's text runs to the next tag or blank line). */
export function parseHeader(source: string): { first: string; tags: Map<string, string[]> } {
  const m = /\/\*\*([\s\S]*?)\*\//.exec(source);
  const tags = new Map<string, string[]>();
  if (!m) return { first: "", tags };
  const lines = m[1]!.split("\n").map((l) => l.replace(/^\s*\*\s?/, "").trimEnd());
  let first = "";
  let current: { name: string; text: string[] } | undefined;
  const flush = (): void => {
    if (!current) return;
    const list = tags.get(current.name) ?? [];
    list.push(current.text.join(" ").replace(/\s+/g, " ").trim());
    tags.set(current.name, list);
    current = undefined;
  };
  for (const line of lines) {
    const tag = /^@(\w+)\s*(.*)$/.exec(line.trim());
    if (tag) {
      flush();
      current = { name: tag[1]!, text: [tag[2]!] };
    } else if (line.trim() === "") flush();
    else if (current) current.text.push(line.trim());
    else if (!first) first = line.trim();
  }
  flush();
  return { first, tags };
}

/** What a lesson's header says of it. */
export interface LessonHeader {
  /** "01", from the file's name. */
  number: string;
  title: string;
  summary: string;
  /** How to run it: "npm run lesson 1". */
  run: string;
}

/** The header of the lesson file at `path` (a path or a file: URL). */
export function readLessonHeader(path: string): LessonHeader {
  const file = path.startsWith("file:") ? fileURLToPath(path) : path;
  const { tags } = parseHeader(readFileSync(file, "utf8"));
  const number = basename(file).slice(0, 2);
  return {
    number,
    title: tags.get("title")?.[0] ?? basename(file),
    summary: tags.get("summary")?.[0] ?? "",
    run: tags.get("run")?.[0] ?? `npm run lesson ${Number(number)}`,
  };
}
