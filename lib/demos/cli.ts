/**
 * `npm run demos`: the demo server. Prints its URL and serves until Ctrl-C (or SIGTERM), then
 * stops cleanly: connections closed, each demo's processes and files cleaned up.
 */
import { spawn } from "node:child_process";
import { intFlag, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
import { startDemoServer } from "./server.ts";

const spec = {
  usage: "npm run demos -- [--port <p>] [--open]",
  description: t(
    "Serves the workbook's browser demos on 127.0.0.1, from an index at /: Demo 1, the thundering herd live (/herd), and Demo 2, stepping through a fault on the real tracker (/step). Every byte the pages use comes from this server: they work with no network. Each page speaks English or Chinese: ?lang=en or ?lang=zh, else the browser's preferred language. Stop with Ctrl-C.",
  ),
  options: {
    port: { type: "string" },
    open: { type: "boolean" },
  },
  optionHelp: {
    port: t("the port to listen on, 0 to 65535 (default 0: a free one, printed at start)"),
    open: t("also open the index in the system's browser, if there is one"),
  },
} as const;

/** The system's "open this URL" command, or undefined. */
function opener(): { command: string; args: string[] } | undefined {
  if (process.platform === "darwin") return { command: "open", args: [] };
  if (process.platform === "win32") return { command: "cmd", args: ["/c", "start", '""'] };
  return { command: "xdg-open", args: [] };
}

function openBrowser(url: string): void {
  const o = opener();
  if (o === undefined) return;
  const child = spawn(o.command, [...o.args, url], { stdio: "ignore", detached: true });
  child.on("error", () =>
    process.stderr.write(`${t("(no browser to open: open {url} yourself)", { url })}\n`),
  );
  child.unref();
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseCommand(spec);
  } catch (error) {
    if (error instanceof UsageError)
      throw new UsageError(
        t("{message} (valid: --port <p>, --open, --lang <zh|en>, --help)", {
          message: error.message,
        }),
      );
    throw error;
  }
  const { values } = parsed;
  const port = intFlag("port", values.port, 0, 0, 65535);
  const server = await startDemoServer({ port });
  process.stdout.write(`${t("demos: {url}  (Ctrl-C to stop)", { url: `${server.url}/` })}\n`);
  if (values.open === true) openBrowser(`${server.url}/`);
  const stop = (): void => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    server.close().then(
      () => process.stdout.write(`${t("demos: stopped")}\n`),
      (error: unknown) => {
        process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exitCode = 1;
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

runMain(main);
