/**
 * The workbook's commands (npm start, lesson, check, hint, progress, reset) and what they read. This
 * module is the catalog: which lessons and exercises exist, read from their files' headers. A lesson is
 * `lessons/NN-slug.ts` with `@title`, `@summary` and `@run` in its JSDoc header; an exercise is
 * `exercises/NNx-slug.ts` with `@lesson NN` in its header (its hint is in hints.ts), a test beside it
 * (`NNx-slug.test.ts`) and a reference answer `solutions/NNx-slug.ts`.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hintFor } from "./hints.ts";

/** The project's root folder. */
export const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

export interface Lesson {
  /** "01" */
  number: string;
  /** "timeout-truths" */
  slug: string;
  /** Path relative to the root, e.g. "lessons/01-timeout-truths.ts". */
  file: string;
  title: string;
  summary: string;
  run: string;
}

export interface Exercise {
  /** "01a" */
  id: string;
  /** "01" */
  lesson: string;
  /** "01a-retry-rule" */
  name: string;
  title: string;
  hint: string;
  /** The header's "Goal: …" paragraph, without the label ("" when there is none). */
  goal?: string;
  /** Paths relative to the root. */
  file: string;
  test: string;
  solution: string;
}

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

/**
 * The paragraph of the first JSDoc block that starts with `label:` (e.g. "Goal"), label removed.
 * Lines indented in the source (a formula, one per line) stay lines: they, and the line after them,
 * start on a new line ("\n"); everything else runs together as prose.
 */
export function headerParagraph(source: string, label: string): string {
  const m = /\/\*\*([\s\S]*?)\*\//.exec(source);
  if (!m) return "";
  const raw = m[1]!.split("\n").map((l) => l.replace(/^\s*\*\s?/, ""));
  const lines = raw.map((l) => l.trim());
  const start = lines.findIndex((l) => l.startsWith(`${label}:`));
  if (start < 0) return "";
  const end = lines.findIndex((l, i) => i > start && (l === "" || l.startsWith("@")));
  const indented = (i: number): boolean => /^\s{2,}\S/.test(raw[i]!);
  let text = "";
  for (let i = start; i < (end < 0 ? lines.length : end); i++) {
    const line = indented(i) ? lines[i]! : lines[i]!.replace(/\s+/g, " ");
    text += i === start ? line : indented(i) || indented(i - 1) ? `\n${line}` : ` ${line}`;
  }
  return text.slice(label.length + 1).trim();
}

export function listLessons(root = ROOT): Lesson[] {
  const dir = join(root, "lessons");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^\d\d-[a-z0-9-]+\.ts$/.test(f))
    .sort()
    .map((f) => {
      const { tags } = parseHeader(readFileSync(join(dir, f), "utf8"));
      const number = f.slice(0, 2);
      return {
        number,
        slug: f.slice(3, -3),
        file: `lessons/${f}`,
        title: tags.get("title")?.[0] ?? f,
        summary: tags.get("summary")?.[0] ?? "",
        run: tags.get("run")?.[0] ?? `npm run lesson ${Number(number)}`,
      };
    });
}

export function listExercises(root = ROOT): Exercise[] {
  const dir = join(root, "exercises");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^\d\d[a-z]-[a-z0-9-]+\.ts$/.test(f) && !f.endsWith(".test.ts"))
    .sort()
    .map((f) => {
      const name = f.slice(0, -3);
      const source = readFileSync(join(dir, f), "utf8");
      const { first, tags } = parseHeader(source);
      return {
        id: f.slice(0, 3),
        lesson: tags.get("lesson")?.[0] ?? "",
        name,
        title: first.replace(/^Exercise\s+\w+\s*·\s*/, ""),
        hint: hintFor(f.slice(0, 3)),
        goal: headerParagraph(source, "Goal"),
        file: `exercises/${f}`,
        test: `exercises/${name}.test.ts`,
        solution: `solutions/${f}`,
      };
    });
}

/** Finds a lesson by "1", "01", "01-timeout-truths" or "timeout-truths". */
export function findLesson(query: string, lessons = listLessons()): Lesson | undefined {
  const q = query.trim().toLowerCase();
  return lessons.find((l) => (/^\d+$/.test(q) && Number(q) === Number(l.number)) || q === `${l.number}-${l.slug}` || q === l.slug);
}

/** Finds exercises by "01a" (one), "1"/"01" (a lesson's), or a name. */
export function findExercises(query: string, exercises = listExercises()): Exercise[] {
  const q = query.trim().toLowerCase();
  if (/^\d+$/.test(q)) return exercises.filter((e) => Number(e.lesson) === Number(q));
  return exercises.filter((e) => e.id === q || e.name === q || e.name.slice(4) === q);
}
