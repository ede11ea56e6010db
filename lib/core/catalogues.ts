/**
 * The catalogues checked against the code: every `t("…")` (and `tIn(lang, "…")`) of a file that
 * imports them from i18n.ts is found by parsing the file (`@babel/parser`), and set beside the
 * catalogue that holds that file's translations. What is wrong is said one line each: a message
 * without its translation, a translation whose English is gone, a translation whose values
 * (`{count}`, `{ms}`) are not the English's, an ICU message that does not parse, one English message
 * translated two ways. `updateCatalogues` writes the catalogues afresh from the code, keeping every
 * translation whose English is still there (or differs only in white space).
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { parse } from "@babel/parser";
import { type GetTextTranslation, type GetTextTranslations, po } from "gettext-parser";
import { IntlMessageFormat } from "intl-messageformat";
import { parseHeader } from "./header.ts";
import { catalogueFor } from "./i18n.ts";
import { type Lang, LOCALE } from "./lang.ts";

/** One use of a message in the code. */
export interface Message {
  /** The English text, as written. */
  id: string;
  /** Given values: an ICU message. */
  icu: boolean;
  /** Relative to the root. */
  file: string;
  line: number;
}

/** Something wrong, said in one line. */
export interface Problem {
  where: string;
  text: string;
}

/** The files whose messages are translated: the lessons, lib/, the exercises' checks. */
export function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      const rel = `${dir}/${name}`;
      if (statSync(join(root, rel)).isDirectory()) walk(rel);
      else if (name.endsWith(".ts")) out.push(rel);
    }
  };
  for (const dir of ["lessons", "lib"]) if (existsSync(join(root, dir))) walk(dir);
  if (existsSync(join(root, "exercises")))
    for (const f of readdirSync(join(root, "exercises")).sort())
      if (f.endsWith(".test.ts")) out.push(`exercises/${f}`);
  return out;
}

type Node = { type: string; loc?: { start: { line: number } }; [key: string]: unknown };

function isNode(x: unknown): x is Node {
  return typeof x === "object" && x !== null && typeof (x as { type?: unknown }).type === "string";
}

/** Calls each node of the tree, depth first. */
function visit(node: unknown, fn: (n: Node) => void): void {
  if (Array.isArray(node)) {
    for (const n of node) visit(n, fn);
    return;
  }
  if (!isNode(node)) return;
  fn(node);
  for (const [key, value] of Object.entries(node))
    if (key !== "loc" && typeof value === "object") visit(value, fn);
}

/** The text of a string literal, or of a template literal without `${}`; undefined for anything else. */
function literalText(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (node.type === "StringLiteral") return node.value as string;
  if (node.type === "TemplateLiteral" && (node.expressions as unknown[]).length === 0) {
    const quasi = (node.quasis as { value: { cooked: string } }[])[0];
    return quasi?.value.cooked;
  }
  return undefined;
}

/** The messages of one source file, and its calls whose message is not a literal. */
export function extractMessages(
  file: string,
  source: string,
): { messages: Message[]; problems: Problem[] } {
  const messages: Message[] = [];
  const problems: Problem[] = [];
  // A lesson's @title and @summary are messages too (lessonSetup prints them, translated).
  if (/^lessons\/\d\d-[a-z0-9-]+\.ts$/.test(file)) {
    const { tags } = parseHeader(source);
    for (const tag of ["title", "summary"]) {
      const text = tags.get(tag)?.[0];
      if (text) messages.push({ id: text, icu: false, file, line: 1 });
    }
  }
  if (!/\bi18n\.ts["']/.test(source)) return { messages, problems };
  let ast;
  try {
    ast = parse(source, { sourceType: "module", plugins: ["typescript"] });
  } catch (err) {
    const at = (err as { loc?: { line: number } }).loc?.line ?? 0;
    problems.push({
      where: `${file}:${at}`,
      text: `cannot be read for messages: ${(err as Error).message}`,
    });
    return { messages, problems };
  }
  // The local names under which this file imports t and tIn from i18n.ts.
  const names = new Map<string, "t" | "tIn">();
  visit(ast.program, (n) => {
    if (
      n.type !== "ImportDeclaration" ||
      !String((n.source as { value: string }).value).endsWith("/i18n.ts")
    )
      return;
    for (const s of n.specifiers as Node[]) {
      const imported =
        s.type === "ImportSpecifier"
          ? ((s.imported as { name?: string; value?: string }).name ?? "")
          : "";
      if (imported === "t" || imported === "tIn")
        names.set((s.local as { name: string }).name, imported);
    }
  });
  if (names.size === 0) return { messages, problems };
  visit(ast.program, (n) => {
    if (n.type !== "CallExpression" || !isNode(n.callee) || n.callee.type !== "Identifier") return;
    const kind = names.get(n.callee.name as string);
    if (!kind) return;
    const args = n.arguments as unknown[];
    const at = kind === "t" ? 0 : 1;
    const line = n.loc?.start.line ?? 0;
    const id = literalText(args[at]);
    if (id === undefined) {
      problems.push({
        where: `${file}:${line}`,
        text: `${kind}() takes its message as a literal string (so that it can be translated), not an expression`,
      });
      return;
    }
    messages.push({ id, icu: args.length > at + 1, file, line });
  });
  return { messages, problems };
}

/** The names of the values an ICU message uses ({n}, {n, plural, …}); throws if it does not parse. */
export function messageArguments(message: string, lang: Lang): string[] {
  const names = new Set<string>();
  type Element = {
    type: number;
    value?: unknown;
    options?: Record<string, { value: Element[] }>;
    children?: Element[];
  };
  const walk = (elements: Element[]): void => {
    for (const e of elements) {
      // 1 argument, 2 number, 3 date, 4 time, 5 select, 6 plural (intl-messageformat's TYPE).
      if (e.type >= 1 && e.type <= 6 && typeof e.value === "string") names.add(e.value);
      for (const option of Object.values(e.options ?? {})) walk(option.value);
      if (e.children) walk(e.children);
    }
  };
  walk(
    new IntlMessageFormat(message, LOCALE[lang], undefined, {
      ignoreTag: true,
    }).getAst() as Element[],
  );
  return [...names].sort();
}

export interface CatalogueState {
  /** Every message of the code, by catalogue file, in the order the code says them (each once). */
  byCatalogue: Map<string, Message[]>;
  /** The files that say each message. */
  files: Map<string, string[]>;
  problems: Problem[];
}

/** Reads the code and the catalogues of `lang`, and says what is wrong. */
export function checkCatalogues(root: string, lang: Exclude<Lang, "en">): CatalogueState {
  const problems: Problem[] = [];
  const byCatalogue = new Map<string, Message[]>();
  const usage = new Map<string, Message>();
  const files = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const found = extractMessages(file, readFileSync(join(root, file), "utf8"));
    problems.push(...found.problems);
    for (const m of found.messages) {
      const catalogue = catalogueFor(m.file, lang);
      if (!catalogue) {
        problems.push({
          where: `${m.file}:${m.line}`,
          text: "this file's messages have no catalogue",
        });
        continue;
      }
      const seen = usage.get(m.id);
      if (seen && seen.icu !== m.icu)
        problems.push({
          where: `${m.file}:${m.line}`,
          text: `"${short(m.id)}" is given values here but not at ${seen.file}:${seen.line} (or the other way round)`,
        });
      usage.set(m.id, m);
      const saidIn = files.get(m.id) ?? [];
      if (!saidIn.includes(m.file)) saidIn.push(m.file);
      files.set(m.id, saidIn);
      if (m.icu) {
        try {
          messageArguments(m.id, "en");
        } catch (err) {
          problems.push({
            where: `${m.file}:${m.line}`,
            text: `"${short(m.id)}" is not a valid ICU message: ${(err as Error).message}`,
          });
        }
      }
      const list = byCatalogue.get(catalogue) ?? [];
      if (!list.some((x) => x.id === m.id)) list.push(m);
      byCatalogue.set(catalogue, list);
    }
  }
  const translatedAs = new Map<string, { text: string; catalogue: string }>();
  const catalogues = new Set([...byCatalogue.keys(), ...existingCatalogues(root, lang)]);
  for (const catalogue of [...catalogues].sort()) {
    const messages = byCatalogue.get(catalogue) ?? [];
    const entries = existsSync(join(root, catalogue))
      ? readEntries(join(root, catalogue))
      : new Map<string, GetTextTranslation>();
    const ids = new Set(messages.map((m) => m.id));
    for (const m of messages) {
      const entry = entries.get(m.id);
      const text = entry?.msgstr[0] ?? "";
      if (!entry || text === "" || entry.comments?.flag?.includes("fuzzy")) {
        problems.push({
          where: `${m.file}:${m.line}`,
          text: `no ${lang} translation in ${catalogue} for "${short(m.id)}"`,
        });
        continue;
      }
      const other = translatedAs.get(m.id);
      if (other && other.text !== text)
        problems.push({
          where: catalogue,
          text: `"${short(m.id)}" is translated one way here and another in ${other.catalogue}`,
        });
      else translatedAs.set(m.id, { text, catalogue });
      if (!m.icu) continue;
      try {
        const english = messageArguments(m.id, "en");
        const translated = messageArguments(text, lang);
        if (english.join() !== translated.join())
          problems.push({
            where: catalogue,
            text: `"${short(m.id)}" uses {${english.join("}, {")}} but its translation uses {${translated.join("}, {")}}`,
          });
      } catch (err) {
        problems.push({
          where: catalogue,
          text: `the translation of "${short(m.id)}" is not a valid ICU message: ${(err as Error).message}`,
        });
      }
    }
    for (const id of entries.keys())
      if (!ids.has(id))
        problems.push({
          where: catalogue,
          text: `a translation whose English is no longer in the code: "${short(id)}"`,
        });
  }
  return { byCatalogue, files, problems };
}

/** The catalogue files of `lang` that exist now. */
function existingCatalogues(root: string, lang: Lang): string[] {
  const out: string[] = [];
  const lessons = join(root, "lessons", lang);
  if (existsSync(lessons))
    for (const f of readdirSync(lessons)) if (f.endsWith(".po")) out.push(`lessons/${lang}/${f}`);
  if (existsSync(join(root, "lib")))
    for (const d of readdirSync(join(root, "lib")))
      if (existsSync(join(root, "lib", d, `${lang}.po`))) out.push(`lib/${d}/${lang}.po`);
  if (existsSync(join(root, "exercises", `${lang}.po`))) out.push(`exercises/${lang}.po`);
  return out;
}

/** A catalogue's entries by English message (the header left out). */
function readEntries(path: string): Map<string, GetTextTranslation> {
  const parsed = po.parse(readFileSync(path));
  const out = new Map<string, GetTextTranslation>();
  for (const entries of Object.values(parsed.translations))
    for (const [id, entry] of Object.entries(entries)) if (id !== "") out.set(id, entry);
  return out;
}

const squeeze = (s: string): string => s.replace(/\s+/g, " ").trim();

/** The first 60 characters of a message on one line, for a problem's text. */
function short(message: string): string {
  const s = squeeze(message);
  return s.length > 60 ? `${s.slice(0, 59)}…` : s;
}

/**
 * Writes the catalogues of `lang` afresh from the code: one entry per message, in the order the code
 * says them, each with the file that says it; a translation is kept where its English is still
 * there, or differs only in white space. Returns what changed: messages added (untranslated) and
 * translations dropped (their English is gone).
 */
export function updateCatalogues(
  root: string,
  lang: Exclude<Lang, "en">,
): { added: Message[]; dropped: { catalogue: string; id: string }[] } {
  const { byCatalogue, files } = checkCatalogues(root, lang);
  const added: Message[] = [];
  const dropped: { catalogue: string; id: string }[] = [];
  const catalogues = new Set([...byCatalogue.keys(), ...existingCatalogues(root, lang)]);
  for (const catalogue of [...catalogues].sort()) {
    const path = join(root, catalogue);
    const old = existsSync(path) ? readEntries(path) : new Map<string, GetTextTranslation>();
    const bySqueezed = new Map([...old.values()].map((e) => [squeeze(e.msgid), e]));
    const messages = byCatalogue.get(catalogue) ?? [];
    const used = new Set<string>();
    const table: GetTextTranslations = {
      charset: "utf-8",
      headers: {
        "Content-Type": "text/plain; charset=UTF-8",
        Language: lang === "zh" ? "zh_CN" : lang,
        "MIME-Version": "1.0",
        "Content-Transfer-Encoding": "8bit",
      },
      translations: { "": {} },
    };
    for (const m of messages) {
      const previous = old.get(m.id) ?? bySqueezed.get(squeeze(m.id));
      if (previous) used.add(previous.msgid);
      const msgstr = previous?.msgstr[0] ?? "";
      if (msgstr === "") added.push(m);
      const comments: GetTextTranslation["comments"] = {
        reference: (files.get(m.id) ?? [m.file])
          .filter((f) => catalogueFor(f, lang) === catalogue)
          .join(" "),
      };
      if (previous?.comments?.translator) comments.translator = previous.comments.translator;
      if (previous?.comments?.flag && msgstr !== "") comments.flag = previous.comments.flag;
      if (m.icu)
        comments.extracted =
          "ICU message: keep every {name}; plural forms as {n, plural, other {…}}";
      table.translations[""]![m.id] = { msgid: m.id, msgstr: [msgstr], comments };
    }
    for (const id of old.keys()) if (!used.has(id)) dropped.push({ catalogue, id });
    if (messages.length === 0) {
      rmSync(path, { force: true });
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, po.compile(table, { foldLength: 0 }));
  }
  return { added, dropped };
}
