/**
 * The exercise manifest, `exercises/info.toml`: one `[[exercises]]` table per exercise with its id,
 * lesson, order, title, goal, hint (in steps) and what its TODOs ask (`[exercises.todo]`), and room
 * for a translation of the texts in a table under it (`[exercises.zh]`, `[exercises.zh.todo]`). A
 * person edits it; this module reads it and refuses, in one line, a file that is not what the runner
 * needs. The file's own comment says how to write it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, TomlError } from "smol-toml";

/** Where the manifest is, relative to the project's root. */
export const MANIFEST = "exercises/info.toml";

/** The languages a translation table may be written in (English, the source, is the exercise's own keys). */
export const TRANSLATIONS = ["zh"] as const;
export type Translation = (typeof TRANSLATIONS)[number];

/** The words of an exercise, in one language. */
export interface ExerciseTexts {
  title: string;
  /** The brief; "\n" separates lines that stay lines (see flowText). */
  goal: string;
  /** The hint, step by step: the first a nudge, the last may give the answer away. */
  hint: string[];
  /**
   * What each TODO of the exercise file asks, by the name of the function (or `Class.method`, or the
   * class) it stands in: the name a stub's error gives, "TODO: write <name> (exercise 01a)". The same
   * words as the file's `// TODO:` comment (npm test checks it), so that a screen can say what a
   * failing stub asks for, in the learner's language.
   */
  todo?: Record<string, string>;
}

export interface ManifestEntry {
  /** "01a": the prefix of the exercise's files. */
  id: string;
  /** "01": the lesson it belongs to. */
  lesson: string;
  /** Where it comes in the list, smallest first. */
  order: number;
  /** Its answer is pure functions (no server, database or child process), so its check may be short. */
  pure: boolean;
  /** The English texts. */
  texts: ExerciseTexts;
  /** Translations, each as far as it goes. */
  translations: Partial<Record<Translation, Partial<ExerciseTexts>>>;
}

/** The manifest is missing or malformed, or does not match the exercise files. The message is one line. */
export class ManifestError extends Error {}

const ID = /^\d\d[a-z]$/;
const KEYS = [
  "id",
  "lesson",
  "order",
  "pure",
  "title",
  "goal",
  "hint",
  "todo",
  ...TRANSLATIONS,
] as const;
const TEXT_KEYS = ["title", "goal", "hint", "todo"] as const;

/** Chinese characters, CJK punctuation and full-width forms (lib/core/text.ts breaks lines beside them). */
const CHINESE = String.raw`[\u2e80-\u2fff\u3000-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]`;
/** Full-width punctuation: no space beside it, whatever the other side is. */
const FULL_WIDTH_PUNCTUATION = String.raw`[\u3000-\u303f\uff00-\uffef]`;
/** Where a line break joins two lines with nothing between them. */
const JOINED = new RegExp(
  `(?:${CHINESE}\n${CHINESE}|${FULL_WIDTH_PUNCTUATION}\n|\n${FULL_WIDTH_PUNCTUATION})`,
  "u",
);

/**
 * A text as the manifest (or an exercise file's header) writes it, as the runner shows it: lines of
 * prose run together into one line (wrapped when shown); a line indented by two spaces or more (a
 * formula) stays a line of its own, and so does the line after it; a blank line starts a new
 * paragraph (an empty line in the result). Lines of the result are separated by "\n". Lines of
 * Chinese run together without a space where both sides of the line break are Chinese characters or
 * full-width punctuation, as a browser (and the terminal's wrap) joins them.
 */
export function flowText(raw: string): string {
  const lines = raw.replace(/\r\n?/g, "\n").split("\n");
  const indented = (i: number): boolean => i >= 0 && /^\s{2,}\S/.test(lines[i]!);
  let text = "";
  let gap = false;
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") {
      gap = text !== "";
      continue;
    }
    const shown = indented(i) ? line.trim() : line.trim().replace(/\s+/g, " ");
    if (text === "") text = shown;
    else if (gap) text += `\n\n${shown}`;
    else if (indented(i) || indented(i - 1)) text += `\n${shown}`;
    else text += JOINED.test(`${text.slice(-1)}\n${shown.slice(0, 1)}`) ? shown : ` ${shown}`;
    gap = false;
  }
  return text;
}

/** Reads the manifest of the project at `root`; a ManifestError when it is missing or malformed. */
export function readManifest(root: string): ManifestEntry[] {
  const path = join(root, MANIFEST);
  if (!existsSync(path))
    throw new ManifestError(
      `${MANIFEST} is missing: it lists the exercises (their lesson, order, title, goal and hint)`,
    );
  return parseManifest(readFileSync(path, "utf8"));
}

/** The entries of a manifest's text, in the order they are offered; a ManifestError (one line) for anything wrong. */
export function parseManifest(text: string): ManifestEntry[] {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const what = err.message.split("\n")[0]!.replace(/^Invalid TOML document:\s*/, "");
    throw new ManifestError(
      `${MANIFEST}, line ${err.line}, column ${err.column}: ${what} (not valid TOML)`,
    );
  }
  for (const key of Object.keys(doc)) {
    if (key !== "exercises")
      throw new ManifestError(
        `${MANIFEST}: unknown key "${key}" at the top; every exercise is an [[exercises]] table`,
      );
  }
  const tables = doc.exercises;
  if (!Array.isArray(tables) || tables.length === 0 || !tables.every(isTable))
    throw new ManifestError(`${MANIFEST} has no [[exercises]] tables`);
  const entries = tables.map((table, i) => readEntry(table, i));
  const seen = new Map<string, ManifestEntry>();
  const orders = new Map<number, ManifestEntry>();
  for (const e of entries) {
    if (seen.has(e.id)) throw new ManifestError(`${MANIFEST}: exercise ${e.id} is there twice`);
    seen.set(e.id, e);
    const other = orders.get(e.order);
    if (other)
      throw new ManifestError(
        `${MANIFEST}: exercises ${other.id} and ${e.id} have the same order (${e.order}); each needs its own`,
      );
    orders.set(e.order, e);
  }
  return entries.sort((a, b) => a.order - b.order);
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readEntry(table: Record<string, unknown>, index: number): ManifestEntry {
  const id = table.id;
  if (typeof id !== "string" || !ID.test(id)) {
    const nth = `the [[exercises]] table number ${index + 1}`;
    throw new ManifestError(
      `${MANIFEST}: ${nth} ${id === undefined ? "has no id" : `has the id ${JSON.stringify(id)}`}; an id is two digits and a letter, e.g. id = "01a"`,
    );
  }
  const where = `${MANIFEST}: exercise ${id}`;
  for (const key of Object.keys(table)) {
    if (!(KEYS as readonly string[]).includes(key))
      throw new ManifestError(`${where}: unknown key "${key}" (the keys are ${KEYS.join(", ")})`);
  }
  const { lesson, order, pure = false } = table;
  if (!Number.isInteger(lesson) || (lesson as number) < 1 || (lesson as number) > 99)
    throw new ManifestError(
      `${where}: lesson must be a lesson's number, e.g. lesson = 1, not ${show(lesson)}`,
    );
  if (!Number.isInteger(order) || (order as number) < 0)
    throw new ManifestError(
      `${where}: order must be a whole number, e.g. order = 10, not ${show(order)}`,
    );
  if (typeof pure !== "boolean")
    throw new ManifestError(`${where}: pure must be true or false, not ${show(pure)}`);
  const texts = readTexts(table, where, true) as ExerciseTexts;
  const translations: ManifestEntry["translations"] = {};
  for (const lang of TRANSLATIONS) {
    const t = table[lang];
    if (t === undefined) continue;
    if (!isTable(t))
      throw new ManifestError(
        `${where}: ${lang} must be a table, [exercises.${lang}], under the exercise`,
      );
    for (const key of Object.keys(t)) {
      if (!(TEXT_KEYS as readonly string[]).includes(key))
        throw new ManifestError(
          `${where}: unknown key "${key}" in [exercises.${lang}] (the keys are ${TEXT_KEYS.join(", ")})`,
        );
    }
    translations[lang] = readTexts(t, `${where}, [exercises.${lang}]`, false);
  }
  return {
    id,
    lesson: String(lesson).padStart(2, "0"),
    order: order as number,
    pure,
    texts,
    translations,
  };
}

/**
 * title, goal, hint and todo of a table, each flowed; the first three required in English, each
 * optional in a translation, and todo optional in both.
 */
function readTexts(
  table: Record<string, unknown>,
  where: string,
  required: boolean,
): Partial<ExerciseTexts> {
  const out: Partial<ExerciseTexts> = {};
  for (const key of ["title", "goal"] as const) {
    const value = table[key];
    if (value === undefined && !required) continue;
    if (typeof value !== "string" || flowText(value) === "")
      throw new ManifestError(
        `${where}: ${key} must be a text, ${value === undefined ? "and there is none" : `not ${show(value)}`}`,
      );
    if (key === "title" && flowText(value).includes("\n"))
      throw new ManifestError(`${where}: the title must be one line`);
    out[key] = flowText(value);
  }
  const todo = table.todo;
  if (todo !== undefined) {
    if (
      !isTable(todo) ||
      !Object.values(todo).every((s) => typeof s === "string" && flowText(s) !== "")
    )
      throw new ManifestError(
        `${where}: todo must be a table of texts, one per TODO of the file: [exercises.todo] with name = "…"`,
      );
    out.todo = Object.fromEntries(
      Object.entries(todo).map(([name, text]) => [name, flowText(text as string)]),
    );
  }
  const hint = table.hint;
  if (hint === undefined && !required) return out;
  if (
    !Array.isArray(hint) ||
    hint.length === 0 ||
    !hint.every((s) => typeof s === "string" && flowText(s) !== "")
  ) {
    throw new ManifestError(
      `${where}: hint must be a list of steps, each a text: hint = ['''…''', '''…''']`,
    );
  }
  out.hint = hint.map((s: string) => flowText(s));
  return out;
}

/** A value as the error message quotes it. */
function show(value: unknown): string {
  return value === undefined
    ? "nothing"
    : typeof value === "string"
      ? JSON.stringify(value)
      : String(value);
}
