// `npm run probe -- --url <endpoint> --count-url <url> | --count-cmd "<cmd>" [flags]`: lesson 11's
// cases against your own service. Exit 0 when every check it could run held, 1 when one failed,
// 2 on a bad command line (one line saying what is wrong).
import { readFileSync } from "node:fs";
import { styleText } from "node:util";
import { intFlag, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
import { terminalWidth, wrapHanging } from "../core/text.ts";
import { colorWanted } from "../core/trace.ts";
import {
  DEFAULT_BODY,
  fillBody,
  isLoopback,
  PLACEHOLDER,
  type ProbeOptions,
  runProbe,
} from "./probe.ts";
import { checkLines, closingLine, probeHeading, probeJson, tally } from "./report.ts";

const spec = {
  usage:
    'npm run probe -- --url <endpoint> (--count-url <url> | --count-cmd "<command>") [options]',
  description: t(`Sends your endpoint what lesson 11 sends the middleware: the same key twice, with
another body, on another route, twice at once, after a lost answer (through a fault proxy), across
a restart, from two callers, quoted and bare. Counts the rows stored before and after each check,
prints each check with its evidence and a one-line reading, and exits 1 when one fails. It sends
duplicates on purpose: it runs against loopback addresses only, unless --allow-remote.`),
  options: {
    url: { type: "string" },
    "count-url": { type: "string" },
    "count-cmd": { type: "string" },
    "other-url": { type: "string" },
    header: { type: "string", multiple: true },
    body: { type: "string" },
    "caller-header": { type: "string", multiple: true },
    "restart-cmd": { type: "string" },
    seed: { type: "string" },
    json: { type: "boolean" },
    "allow-remote": { type: "boolean" },
  },
  optionHelp: {
    url: t("the endpoint that creates something, POSTed to (e.g. http://127.0.0.1:3000/orders)"),
    "count-url": t(
      'a URL whose GET answers the rows stored: a number, a JSON array (pages followed by Link: rel=next), or {"count": n}',
    ),
    "count-cmd": t("a shell command that prints the number of rows stored"),
    "other-url": t("a second route that also creates something, for the different-path check"),
    header: t('"Name: value" on every request (repeat it), e.g. the first caller\'s Authorization'),
    body: t(
      "a JSON file, the request body; {placeholder} in it is replaced to make bodies differ (default {body})",
      { placeholder: PLACEHOLDER, body: DEFAULT_BODY },
    ),
    "caller-header": t(
      '"Name: value" that makes a request the second caller\'s, for the other-caller check',
    ),
    "restart-cmd": t(
      "a shell command that kills your service (kill -9) and starts it again, returning once it listens",
    ),
    seed: t(
      "seed of the keys (default: a new one each run, printed); a seed used before against the same service reuses its keys",
    ),
    json: t("print the result as JSON (its readings in English, the same on every machine)"),
    "allow-remote": t(
      "allow a URL that is not on this machine (only for a service you own and may send duplicates to)",
    ),
  },
} as const;

/** "Name: value" → [name, value]. */
function header(flag: string, text: string): [string, string] {
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(text);
  if (!m) throw new UsageError(t('--{flag} takes "Name: value", got "{text}"', { flag, text }));
  return [m[1]!.toLowerCase(), m[2]!];
}

function httpUrl(flag: string, text: string, allowRemote: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(t('--{flag} takes an http:// URL, got "{text}"', { flag, text }));
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(t('--{flag} takes an http:// URL, got "{text}"', { flag, text }));
  if (!allowRemote && !isLoopback(text)) {
    throw new UsageError(
      t(
        "refusing --{flag} {text}: the probe sends duplicates on purpose (the same request again, twice at once, after a lost answer), so it runs against this machine only (127.0.0.1, localhost, ::1); add --allow-remote for a service you own and may send duplicates to",
        { flag, text },
      ),
    );
  }
  return text;
}

/** The command line as probe options; every mistake is a UsageError of one line. */
export function probeOptions(argv: string[]): { options: ProbeOptions; json: boolean } {
  const { values } = parseCommand(spec, argv);
  const remote = values["allow-remote"] === true;
  if (values.url === undefined)
    throw new UsageError(
      t(
        "--url is required: the endpoint that creates something, e.g. --url http://127.0.0.1:3000/orders",
      ),
    );
  if (values["count-url"] !== undefined && values["count-cmd"] !== undefined)
    throw new UsageError(t("give --count-url or --count-cmd, not both"));
  let body = DEFAULT_BODY;
  if (values.body !== undefined) {
    try {
      body = readFileSync(values.body, "utf8");
    } catch {
      throw new UsageError(t('--body: cannot read "{file}"', { file: values.body }));
    }
    try {
      fillBody(body, "probe");
    } catch (err) {
      throw new UsageError(
        t('--body: "{file}" is not JSON once {placeholder} is filled in ({why})', {
          file: values.body,
          placeholder: PLACEHOLDER,
          why: (err as Error).message,
        }),
      );
    }
  }
  const callers = (values["caller-header"] ?? []).map((h) => header("caller-header", h));
  const options: ProbeOptions = {
    url: httpUrl("url", values.url, remote),
    headers: Object.fromEntries((values.header ?? []).map((h) => header("header", h))),
    body,
    seed: intFlag("seed", values.seed, Math.floor(Math.random() * 1e9), 0),
    ...(values["count-url"] !== undefined
      ? { countUrl: httpUrl("count-url", values["count-url"], remote) }
      : {}),
    ...(values["count-cmd"] !== undefined ? { countCmd: values["count-cmd"] } : {}),
    ...(values["other-url"] !== undefined
      ? { otherUrl: httpUrl("other-url", values["other-url"], remote) }
      : {}),
    ...(callers.length > 0 ? { callerHeaders: Object.fromEntries(callers) } : {}),
    ...(values["restart-cmd"] !== undefined ? { restartCmd: values["restart-cmd"] } : {}),
  };
  return { options, json: values.json === true };
}

runMain(async () => {
  const { options, json } = probeOptions(process.argv.slice(2));
  const color = colorWanted(false);
  const paint = (c: "green" | "red" | "gray", t: string): string => (color ? styleText(c, t) : t);
  const width = terminalWidth();
  const say = (line: string): void => void (json ? undefined : process.stdout.write(`${line}\n`));
  say(probeHeading(options.url, options.seed));
  const result = await runProbe(options, (run) => {
    const { mark, name, lines } = checkLines(run);
    const painted = paint(mark === "✓" ? "green" : mark === "✗" ? "red" : "gray", mark);
    const [first = "", ...rest] = lines;
    for (const l of wrapHanging(`  ${painted} ${name.padEnd(15)} `, first, width, " ".repeat(20)))
      say(l);
    for (const line of rest) for (const l of wrapHanging(" ".repeat(20), line, width)) say(l);
  });
  const t = tally(result.runs);
  if (json) process.stdout.write(`${probeJson(result)}\n`);
  else say(closingLine(t));
  if (t.failed > 0) process.exitCode = 1;
});
