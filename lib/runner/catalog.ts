/**
 * The workbook's commands (npm start, lesson, check, hint, progress, reset) and what they read. This
 * module is the catalog: which lessons and exercises exist. A lesson is `lessons/NN-slug.ts` with
 * `@title`, `@summary` and `@run` in its JSDoc header. An exercise is an entry of the manifest,
 * `exercises/info.toml` (its lesson, order, title, goal and hint; see manifest.ts), and its files:
 * `exercises/NNx-slug.ts` (what the learner edits), its test beside it (`NNx-slug.test.ts`) and a
 * reference answer `solutions/NNx-slug.ts`, NNx being the entry's id.
 *
 * Titles, summaries, goals and hints come in the language chosen (lib/core/lang.ts): a lesson's title
 * and summary from the lessons' catalogues, an exercise's from its `[exercises.zh]` table, each text in
 * English where that has none.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readLessonHeader } from "../core/header.ts";
import { currentLang, formatList, type Lang, t, translate } from "../core/i18n.ts";
import { flowText, MANIFEST, ManifestError, readManifest } from "./manifest.ts";

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
  /** The brief the watch mode shows; "\n" separates lines that stay lines (a formula). */
  goal: string;
  /** The hint, step by step: the first a nudge, each next one closer to the answer. */
  hintSteps: readonly string[];
  /** Its answer is pure functions: its check gets the short time limit. */
  pure: boolean;
  /** Paths relative to the root. */
  file: string;
  test: string;
  solution: string;
}

/**
 * The paragraph of the first JSDoc block that starts with `label:` (e.g. "Goal"), label removed,
 * flowed as the manifest's texts are (flowText): lines indented in the source (a formula, one per
 * line) stay lines; everything else runs together as prose. The tests hold an exercise's "Goal:"
 * paragraph equal to its goal in the manifest.
 */
export function headerParagraph(source: string, label: string): string {
  const m = /\/\*\*([\s\S]*?)\*\//.exec(source);
  if (!m) return "";
  const raw = m[1]!.split("\n").map((l) => l.replace(/^\s*\*\s?/, ""));
  const lines = raw.map((l) => l.trim());
  const start = lines.findIndex((l) => l.startsWith(`${label}:`));
  if (start < 0) return "";
  const end = lines.findIndex((l, i) => i > start && (l === "" || l.startsWith("@")));
  return flowText(raw.slice(start, end < 0 ? undefined : end).join("\n"))
    .slice(label.length + 1)
    .trim();
}

export function listLessons(root = ROOT): Lesson[] {
  const dir = join(root, "lessons");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^\d\d-[a-z0-9-]+\.ts$/.test(f))
    .sort()
    .map((f) => {
      const header = readLessonHeader(join(dir, f));
      return {
        ...header,
        title: translate(header.title),
        summary: translate(header.summary),
        slug: f.slice(3, -3),
        file: `lessons/${f}`,
      };
    });
}

const EXERCISE_FILE = /^(\d\d[a-z])-[a-z0-9-]+\.ts$/;

/**
 * The exercises, in the manifest's order. Each entry's files are found by its id: the learner's file
 * `exercises/<id>-<slug>.ts`, or, when the learner has deleted it, its test (the exercise is still
 * listed, and npm run reset can bring the file back). A ManifestError, in one line, when the manifest
 * is missing or malformed, an exercise file has no entry, or an entry has no file.
 */
export function listExercises(root = ROOT, lang: Lang = currentLang()): Exercise[] {
  const dir = join(root, "exercises");
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir).sort();
  const files = names.filter((f) => EXERCISE_FILE.test(f) && !f.endsWith(".test.ts"));
  if (files.length === 0 && !existsSync(join(root, MANIFEST))) return [];
  const entries = readManifest(root);
  const ids = new Set(entries.map((e) => e.id));
  for (const f of files) {
    if (!ids.has(f.slice(0, 3)))
      throw new ManifestError(
        t('{file} has no entry in {manifest} (add an [[exercises]] table with id = "{id}")', {
          file: `exercises/${f}`,
          manifest: MANIFEST,
          id: f.slice(0, 3),
        }),
      );
  }
  return entries.map((entry) => {
    const own = files.filter((f) => f.startsWith(`${entry.id}-`));
    if (own.length > 1)
      throw new ManifestError(
        t("exercise {id} has {count} files, {files}: keep one", {
          id: entry.id,
          count: own.length,
          files: formatList(own.map((f) => `exercises/${f}`)),
        }),
      );
    const test = names.find((f) => f.startsWith(`${entry.id}-`) && f.endsWith(".test.ts"));
    const name = own[0]?.slice(0, -3) ?? test?.slice(0, -".test.ts".length);
    if (!name)
      throw new ManifestError(
        t("{manifest}: exercise {id} has no file (no {pattern}, nor its test)", {
          manifest: MANIFEST,
          id: entry.id,
          pattern: `exercises/${entry.id}-*.ts`,
        }),
      );
    const translated = lang === "en" ? undefined : entry.translations[lang];
    return {
      id: entry.id,
      lesson: entry.lesson,
      name,
      title: translated?.title ?? entry.texts.title,
      goal: translated?.goal ?? entry.texts.goal,
      hintSteps: translated?.hint ?? entry.texts.hint,
      pure: entry.pure,
      file: `exercises/${name}.ts`,
      test: `exercises/${name}.test.ts`,
      solution: `solutions/${name}.ts`,
    };
  });
}

/** Finds a lesson by "1", "01", "01-timeout-truths" or "timeout-truths". */
export function findLesson(query: string, lessons = listLessons()): Lesson | undefined {
  const q = query.trim().toLowerCase();
  return lessons.find(
    (l) =>
      (/^\d+$/.test(q) && Number(q) === Number(l.number)) ||
      q === `${l.number}-${l.slug}` ||
      q === l.slug,
  );
}

/** Finds exercises by "01a" (one), "1"/"01" (a lesson's), or a name. */
export function findExercises(query: string, exercises = listExercises()): Exercise[] {
  const q = query.trim().toLowerCase();
  if (/^\d+$/.test(q)) return exercises.filter((e) => Number(e.lesson) === Number(q));
  return exercises.filter((e) => e.id === q || e.name === q || e.name.slice(4) === q);
}
