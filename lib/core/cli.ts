/**
 * The command line shared by lessons and tools: `--seed`, `--step`, `--no-color`, `--help`, and
 * friendly errors (one line naming what is valid, exit code 2, never a stack trace).
 */
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { readLessonHeader } from "./header.ts";
import { t, translate } from "./i18n.ts";
import { isLang } from "./lang.ts";
import { displayWidth, terminalWidth, wrap, wrapHanging, wrapKeepingSpaces } from "./text.ts";
import { colorWanted, Trace } from "./trace.ts";

/** Thrown for bad command-line input; `runMain` prints it as one line and exits 2. */
export class UsageError extends Error {}

export interface CommandSpec<O extends ParseArgsOptionsConfig> {
  /** How to call it, e.g. "npm run lesson 1 -- [--seed <int>]". */
  usage: string;
  /** What it does, one paragraph. */
  description: string;
  /** Extra options, beyond --help. */
  options: O;
  /** Help text per option, by name. */
  optionHelp: Partial<Record<keyof O & string, string>>;
  /** Whether positional arguments are allowed. */
  positionals?: boolean;
}

export function helpText<O extends ParseArgsOptionsConfig>(
  spec: CommandSpec<O>,
  width = terminalWidth(),
): string {
  // Each option's text wraps between words under itself, to the terminal's width.
  const option = (flag: string, text: string): string =>
    wrapHanging(`  ${flag.padEnd(24)} `, text, width)
      .map((l) => l.trimEnd())
      .join("\n");
  const rows = Object.entries(spec.options).map(([name, o]) => {
    const flag = `--${name}${o.type === "string" ? " <value>" : ""}`;
    return option(flag, spec.optionHelp[name as keyof O & string] ?? "");
  });
  rows.push(option("--lang <zh|en>", langHelp()));
  rows.push(option("--help", t("show this help")));
  return `${wrapKeepingSpaces(spec.usage, width, 4).join("\n")}\n\n${fitText(spec.description, width)}\n\n${t("Options:")}\n${rows.join("\n")}\n`;
}

/**
 * A description as written when it fits; else each paragraph (lines that do not start with a space)
 * with a line too wide is reflowed to the width, and each indented line (a list item) wraps under itself.
 */
function fitText(text: string, width: number): string {
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = (): void => {
    if (paragraph.some((l) => displayWidth(l) > width))
      out.push(...wrap(paragraph.join("\n"), width));
    else out.push(...paragraph);
    paragraph = [];
  };
  for (const line of text.split("\n")) {
    if (line.trim() !== "" && !/^\s/.test(line)) {
      paragraph.push(line);
      continue;
    }
    flush();
    out.push(...wrapKeepingSpaces(line, width));
  }
  flush();
  return out.join("\n");
}

/** The help line of `--lang`, which every command takes. */
export function langHelp(): string {
  return t(
    "the language of what it prints: zh (Chinese) or en (English); without it, the first of LC_ALL, LC_MESSAGES and LANG that is set decides (zh… is Chinese, anything else English)",
  );
}

/**
 * Parses argv against the spec. Prints help and exits 0 on --help; throws UsageError on bad input.
 */
export function parseCommand<O extends ParseArgsOptionsConfig>(
  spec: CommandSpec<O>,
  argv: string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
) {
  const kept = [...flagsNpmKept(spec.options, env), ...langNpmKept(argv, env)];
  if (kept.length > 0) {
    const command =
      env.WORKBOOK_NPM_COMMAND ??
      npmCommand(
        env,
        argv.filter((a) => !isLang(a)),
      );
    throw new UsageError(
      t("npm kept {flags} for itself; put flags after --: {command} -- {flags}", {
        flags: kept.join(" "),
        command,
      }),
    );
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv, spec.options),
      options: { ...spec.options, lang: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: spec.positionals ?? false,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(cleanParseError(err));
  }
  const lang = (parsed.values as { lang?: string }).lang;
  if (lang !== undefined && !isLang(lang))
    throw new UsageError(t("--lang takes zh or en, got {value}", { value: `"${lang}"` }));
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(helpText(spec));
    process.exit(0);
  }
  return parsed;
}

/**
 * The command's flags that were given to `npm run` before `--`: npm takes them as its own settings and
 * passes them on only as `npm_config_<name>` in the environment (`npm run lesson 1 --step` runs the
 * lesson without stepping). Empty when not run by npm. Names that are npm settings of its own (yes,
 * all, color…) are left out: their values may come from the learner's .npmrc or environment, not from
 * this command line.
 */
const NPM_OWN_SETTINGS = new Set([
  "help",
  "no-color",
  "color",
  "yes",
  "all",
  "only",
  "json",
  "long",
]);

export function flagsNpmKept(
  options: ParseArgsOptionsConfig,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  if (!env.npm_lifecycle_event) return [];
  return Object.entries(options)
    .filter(([name]) => !NPM_OWN_SETTINGS.has(name))
    .filter(([name]) => {
      const value = env[`npm_config_${name.replace(/-/g, "_")}`];
      return value !== undefined && value !== "";
    })
    .map(([name, o]) => (o.type === "string" ? `--${name} <value>` : `--${name}`));
}

/**
 * `npm run lesson 1 --lang zh` gives npm `--lang`, which it reads as its own `--long` (npm accepts
 * a setting's abbreviation), and passes on "zh" alone: ["--lang <value>"] when that is what happened.
 */
export function langNpmKept(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  if (
    !npmSettingGiven("long", env) ||
    argv.includes("--lang") ||
    argv.some((a) => a.startsWith("--lang="))
  )
    return [];
  const stray = argv.find((a) => isLang(a));
  return stray ? [`--lang ${stray}`] : [];
}

/**
 * True when run by npm with `name` among npm's settings (npm_config_<name>). For the flags that are
 * npm settings of its own (all, yes…), which flagsNpmKept leaves out: a command asks only where it
 * would otherwise fail, so a value from the learner's .npmrc changes nothing.
 */
export function npmSettingGiven(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!env.npm_lifecycle_event) return false;
  const value = env[`npm_config_${name.replace(/-/g, "_")}`];
  return value !== undefined && value !== "" && value !== "false";
}

/** "npm start" or "npm run <script> <its arguments>", from npm's environment and the arguments npm passed on. */
function npmCommand(env: NodeJS.ProcessEnv, argv: readonly string[]): string {
  const event = env.npm_lifecycle_event ?? "";
  const head = event === "start" || event === "test" ? `npm ${event}` : `npm run ${event}`;
  return [head, ...argv.filter((a) => !a.startsWith("-"))].join(" ");
}

/**
 * `--ops -1` would make node:util read "-1" as an option ("ambiguous"); a number that follows an
 * option taking a value is that option's value, so it is joined as `--ops=-1` and the usual range
 * check answers it.
 */
function joinNegativeValues(argv: readonly string[], options: ParseArgsOptionsConfig): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.startsWith("--") ? arg.slice(2) : undefined;
    const next = argv[i + 1];
    if (
      name !== undefined &&
      options[name]?.type === "string" &&
      next !== undefined &&
      /^-\d/.test(next)
    ) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * node:util's complaint in one line of the chosen language. Its messages carry advice about "--" that
 * does not fit npm scripts: only what was wrong is kept, the option or argument quoted as given.
 */
function cleanParseError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string }).code;
  const quoted = /'(.*?)'(?= |\.|$)/.exec(message)?.[0];
  if (quoted !== undefined) {
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION")
      return t("unknown option {option}", { option: quoted });
    if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
      return t("Unexpected argument {argument}: this command takes none", { argument: quoted });
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && / argument missing$/.test(message))
      return t("Option {option} argument missing", { option: quoted });
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && /does not take an argument/.test(message))
      return t("Option {option} does not take an argument", { option: quoted });
  }
  return message.split(/\. To specify|\n/)[0]!;
}

/** Parses an integer flag, with a clear error. */
export function intFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value.trim()))
    throw new UsageError(
      t("--{name} takes a whole number, got {value}", { name, value: `"${value}"` }),
    );
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(
      t("--{name} must be between {min} and {max}, got {value}", {
        name,
        min: String(min),
        max: String(max),
        value,
      }),
    );
  return n;
}

/** Parses a comma-separated list of integers (e.g. "10,50,100"), each checked like `intFlag`. */
export function intListFlag(
  name: string,
  value: string | undefined,
  fallback: readonly number[],
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
): number[] {
  if (value === undefined) return [...fallback];
  const parts = value.split(",");
  if (parts.some((p) => !/^\s*-?\d+\s*$/.test(p)))
    throw new UsageError(
      t("--{name} takes whole numbers separated by commas (e.g. 10,50,100), got {value}", {
        name,
        value: `"${value}"`,
      }),
    );
  return parts.map((p) => intFlag(name, p, 0, min, max));
}

/**
 * Runs `fn` (a lesson checking its own flags); a UsageError it throws is printed as one line and the
 * process exits 2, as for the flags every lesson takes.
 */
export function exitOnUsageError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    exitWithUsage(err.message);
  }
}

/**
 * Runs a command's main function: a UsageError becomes one line on stderr and exit code 2; any
 * other error is printed briefly (message only) with exit code 1.
 */
export function runMain(main: () => Promise<void> | void): void {
  quietOnClosedPipe();
  Promise.resolve()
    .then(main)
    .catch((err: unknown) => {
      if (err instanceof UsageError) {
        process.stderr.write(`${usageLine(err.message)}\n`);
        process.exitCode = 2;
      } else {
        const message = err instanceof Error ? err.message : String(err);
        process.stderr.write(`${t("error: {message}", { message })}\n`);
        if (process.env.WORKBOOK_DEBUG && err instanceof Error)
          process.stderr.write(`${err.stack}\n`);
        process.exitCode = 1;
      }
    });
}

/**
 * `npm run lesson 2 | head` closes the pipe early: stop quietly (exit 0) instead of dying with an
 * EPIPE stack trace.
 */
export function quietOnClosedPipe(): void {
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
}

/** The line a usage error is printed as: `error: … (try --help)`. */
export function usageLine(message: string): string {
  return t("error: {message} (try --help)", { message });
}

/** For a lesson's own checks of its flags: prints one line, `error: … (try --help)`, and exits 2. */
export function exitWithUsage(message: string): never {
  process.stderr.write(`${usageLine(message)}\n`);
  process.exit(2);
}

/** The help line of `--no-color`, for every command that takes it. */
export function noColorHelp(): string {
  return t("no colour (also NO_COLOR, or when output is not a terminal)");
}

const lessonOptions = {
  seed: { type: "string" },
  step: { type: "boolean" },
  "no-color": { type: "boolean" },
} as const satisfies ParseArgsOptionsConfig;

/**
 * The command line of a lesson: its own options plus --seed, --step, --no-color, --lang and --help.
 * `lesson` is the lesson's own `import.meta`: its title, summary and run line are read from the
 * file's JSDoc header, where they are written once (@title, @summary, @run), for --help and for
 * `heading`, the title the lesson prints ("Lesson 01 · The three truths behind a timeout", in the
 * chosen language).
 */
export function lessonSetup<O extends ParseArgsOptionsConfig>(
  lesson: { url: string },
  extra: { options: O; optionHelp: Partial<Record<keyof O & string, string>> } = {
    options: {} as O,
    optionHelp: {},
  },
  argv: string[] = process.argv.slice(2),
) {
  const header = readLessonHeader(lesson.url);
  const title = translate(header.title);
  const spec: CommandSpec<O & typeof lessonOptions> = {
    usage: t("{run} -- [options]", { run: header.run }),
    description: t("{title}: {summary}", { title, summary: translate(header.summary) }),
    options: { ...lessonOptions, ...extra.options },
    optionHelp: {
      ...extra.optionHelp,
      seed: t(
        "seed for everything random (default 1); the same seed prints the same trace, times aside",
      ),
      step: t("pause after each event until Enter (only on a terminal)"),
      "no-color": noColorHelp(),
    } as CommandSpec<O & typeof lessonOptions>["optionHelp"],
  };
  quietOnClosedPipe();
  const { values, seed } = exitOnUsageError(() => {
    const values = parseCommand(spec, argv).values;
    return {
      values,
      seed: intFlag("seed", (values as Record<string, unknown>).seed as string | undefined, 1),
    };
  });
  const v = values as Record<string, string | boolean | undefined>;
  const step = v.step === true;
  const color = colorWanted(v["no-color"] === true);
  const heading = t("Lesson {number} · {title}", { number: header.number, title });
  return { seed, step, color, trace: new Trace({ color, step }), values, heading };
}
