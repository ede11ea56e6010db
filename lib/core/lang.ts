/**
 * Which language the workbook speaks, English or Chinese: `--lang zh|en` on the command line; else
 * the language a command chose for the processes it starts (`WORKBOOK_LANG`); else the environment,
 * read the way gettext reads it: the first of `LC_ALL`, `LC_MESSAGES` and `LANG` that is set decides,
 * `zh…` is Chinese and anything else English.
 *
 * The choice is read from the process's own arguments and environment on first use, not handed
 * down by the command line's parser: a module may build its texts when it is imported, before any
 * parser has run.
 */

export type Lang = "en" | "zh";

export const LANGS: readonly Lang[] = ["en", "zh"];

/** The `Intl` locale of each language: numbers, lists and plural rules follow it. */
export const LOCALE: Record<Lang, string> = { en: "en", zh: "zh-CN" };

export function isLang(value: unknown): value is Lang {
  return value === "en" || value === "zh";
}

/** The language the environment asks for: the first of LC_ALL, LC_MESSAGES, LANG that is set. */
export function langFromEnv(env: NodeJS.ProcessEnv = process.env): Lang {
  for (const name of ["LC_ALL", "LC_MESSAGES", "LANG"]) {
    const value = env[name];
    if (value !== undefined && value !== "") return /^zh/i.test(value) ? "zh" : "en";
  }
  return "en";
}

/**
 * The value of `--lang` among the arguments (`--lang zh` or `--lang=zh`), if it names a language;
 * undefined without one, or for a value that is not a language (the command's parser reports that).
 */
export function langFromArgv(argv: readonly string[]): Lang | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    const value =
      arg === "--lang"
        ? argv[i + 1]
        : arg.startsWith("--lang=")
          ? arg.slice("--lang=".length)
          : undefined;
    if (isLang(value)) return value;
  }
  return undefined;
}

/** The language for a process with these arguments and this environment. */
export function chooseLang(argv: readonly string[], env: NodeJS.ProcessEnv): Lang {
  const fromArgv = langFromArgv(argv);
  if (fromArgv) return fromArgv;
  const fromParent = env.WORKBOOK_LANG;
  if (isLang(fromParent)) return fromParent;
  return langFromEnv(env);
}

let chosen: Lang | undefined;

/**
 * This process's language, chosen once. A language given with `--lang` is handed on to the
 * processes this one starts, through `WORKBOOK_LANG`.
 */
export function currentLang(): Lang {
  if (chosen === undefined) {
    chosen = chooseLang(process.argv.slice(2), process.env);
    if (langFromArgv(process.argv.slice(2))) process.env.WORKBOOK_LANG = chosen;
  }
  return chosen;
}

/**
 * Sets this process's language (and the one its children inherit). For a process that serves one
 * language chosen otherwise, and for tests.
 */
export function setLang(lang: Lang): void {
  chosen = lang;
  process.env.WORKBOOK_LANG = lang;
}
