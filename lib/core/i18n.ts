/**
 * Every line a person reads, in their language. English is the source and stays in the code:
 * `t("The agent waits {ms} ms.", { ms })` prints the English as written, or its Chinese from the
 * catalogue beside the code that says it (gettext's PO format, keyed by the English text):
 * - a lesson's, in `lessons/zh/NN-slug.po`;
 * - a folder of lib/'s, in `lib/<folder>/zh.po` (the runner's screens, what the tracker narrates…);
 * - the exercises' checks, in `exercises/zh.po`.
 * A message given values is an ICU message (plurals, numbers: `{n, plural, one {# report} other {#
 * reports}}`), formatted by `intl-messageformat` with the language's `Intl` rules; a message without
 * values is printed as it is, braces and all. `npm run translations` finds every `t("…")` in the code
 * and says which messages lack their Chinese; test/translations.test.ts fails on any.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { IntlMessageFormat } from "intl-messageformat";
import { currentLang, type Lang, LOCALE } from "./lang.ts";

export { currentLang, type Lang, setLang } from "./lang.ts";

/** The values a message may hold. */
export type MessageValues = Record<string, string | number | bigint | boolean | null | undefined>;

/** The project's root, where the catalogues are, found from this module's URL when first needed. */
function projectRoot(): string {
  return fileURLToPath(new URL("../..", import.meta.url));
}

/** The catalogues of a language other than English, relative to the project's root. */
export function catalogueFiles(lang: Exclude<Lang, "en">, root = projectRoot()): string[] {
  const files: string[] = [];
  const lessons = join(root, "lessons", lang);
  if (existsSync(lessons))
    for (const f of readdirSync(lessons).sort())
      if (f.endsWith(".po")) files.push(`lessons/${lang}/${f}`);
  const lib = join(root, "lib");
  if (existsSync(lib))
    for (const folder of readdirSync(lib).sort())
      if (existsSync(join(lib, folder, `${lang}.po`))) files.push(`lib/${folder}/${lang}.po`);
  if (existsSync(join(root, "exercises", `${lang}.po`))) files.push(`exercises/${lang}.po`);
  return files;
}

/**
 * The catalogue that holds the messages of a source file (a path relative to the root), or
 * undefined for a file whose messages have none (tests, for one).
 */
export function catalogueFor(file: string, lang: Exclude<Lang, "en">): string | undefined {
  const lesson = /^lessons\/(\d\d-[a-z0-9-]+)\.ts$/.exec(file);
  if (lesson) return `lessons/${lang}/${lesson[1]}.po`;
  const lib = /^lib\/([^/]+)\//.exec(file);
  if (lib) return `lib/${lib[1]}/${lang}.po`;
  if (/^exercises\/[^/]+\.ts$/.test(file)) return `exercises/${lang}.po`;
  return undefined;
}

/** A catalogue's translations: English message → translation, only those translated and not fuzzy. */
export function readCatalogue(path: string): Map<string, string> {
  // Loaded here, not with the module: an English run never reads a catalogue, and gettext-parser's
  // load (20-40 ms) would slow every exercise check, which imports this module.
  const { po } = createRequire(import.meta.url)(
    "gettext-parser",
  ) as typeof import("gettext-parser");
  const parsed = po.parse(readFileSync(path));
  const out = new Map<string, string>();
  for (const entries of Object.values(parsed.translations)) {
    for (const [id, entry] of Object.entries(entries)) {
      const text = entry.msgstr[0] ?? "";
      if (id === "" || text === "" || entry.comments?.flag?.includes("fuzzy")) continue;
      out.set(id, text);
    }
  }
  return out;
}

const loaded = new Map<Lang, Map<string, string>>();

/** Every catalogue of `lang`, merged (the catalogue test holds one English message to one translation). */
function translations(lang: Exclude<Lang, "en">): Map<string, string> {
  let map = loaded.get(lang);
  if (!map) {
    map = new Map();
    const root = projectRoot();
    for (const file of catalogueFiles(lang, root))
      for (const [id, text] of readCatalogue(join(root, file))) map.set(id, text);
    loaded.set(lang, map);
  }
  return map;
}

const formats = new Map<string, IntlMessageFormat>();

/** Formats an ICU message with `values`, in `lang`'s locale; tags (`<b>`) are plain text. */
export function formatMessage(message: string, values: MessageValues, lang: Lang): string {
  const key = `${lang}\u0000${message}`;
  let format = formats.get(key);
  if (!format) {
    format = new IntlMessageFormat(message, LOCALE[lang], undefined, { ignoreTag: true });
    formats.set(key, format);
  }
  const out = format.format(values as Record<string, string | number | boolean | null | undefined>);
  return Array.isArray(out) ? out.join("") : String(out);
}

/**
 * A message in this process's language. `message` is the English, written as a string literal so
 * that `npm run translations` can find it; with `values` it is an ICU message (`{name}`).
 * A message with no translation yet is printed in English.
 */
export function t(message: string, values?: MessageValues): string {
  return tIn(currentLang(), message, values);
}

/** `t` in a given language (a server that answers each client in its own). */
export function tIn(lang: Lang, message: string, values?: MessageValues): string {
  const text = lang === "en" ? message : (translations(lang).get(message) ?? message);
  return values === undefined ? text : formatMessage(text, values, lang);
}

/**
 * A message whose English is not a literal of the code but is still in a catalogue: a lesson's
 * @title and @summary, which lib/core/catalogues.ts reads from the lesson's header.
 */
export function translate(message: string): string {
  const lang = currentLang();
  return lang === "en" ? message : (translations(lang).get(message) ?? message);
}

/** "a, b and c" / "a、b和c": a list joined in this process's language. */
export function formatList(
  items: readonly string[],
  type: "conjunction" | "disjunction" = "conjunction",
): string {
  return new Intl.ListFormat(LOCALE[currentLang()], { type }).format(items);
}

/** A number with the language's grouping: "12,345". */
export function formatNumber(n: number, options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(LOCALE[currentLang()], options).format(n);
}
