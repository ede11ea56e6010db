/**
 * `npm run demos`: the demo server. Prints its URL and serves until Ctrl-C (or SIGTERM), then
 * stops cleanly: connections closed, each demo's processes and files cleaned up.
 */
import { spawn } from "node:child_process";
import { intFlag, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { startDemoServer } from "./server.ts";

const spec = {
  usage: "npm run demos -- [--port <p>] [--open]",
  description:
    "Serves the workbook's browser demos on 127.0.0.1, from an index at /: Demo 1, the thundering " +
    "herd live (/herd), and Demo 2, stepping through a fault on the real tracker (/step). Every byte " +
    "the pages use comes from this server: they work with no network. Stop with Ctrl-C.",
  options: {
    port: { type: "string" },
    open: { type: "boolean" },
  },
  optionHelp: {
    port: "the port to listen on, 0 to 65535 (default 0: a free one, printed at start)",
    open: "also open the index in the system's browser, if there is one",
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
  child.on("error", () => process.stderr.write(`(no browser to open: open ${url} yourself)\n`));
  child.unref();
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseCommand(spec);
  } catch (error) {
    if (error instanceof UsageError)
      throw new UsageError(`${error.message} (valid: --port <p>, --open, --help)`);
    throw error;
  }
  const { values } = parsed;
  const port = intFlag("port", values.port, 0, 0, 65535);
  const server = await startDemoServer({ port });
  process.stdout.write(`demos: ${server.url}/  (Ctrl-C to stop)\n`);
  if (values.open === true) openBrowser(`${server.url}/`);
  const stop = (): void => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    server.close().then(
      () => process.stdout.write("demos: stopped\n"),
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
