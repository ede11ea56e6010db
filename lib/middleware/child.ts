/**
 * A middleware server in a child process (child-entry.ts), started, waited for, and started again
 * on the same SQLite file and port once it has died: what a service manager does after a crash.
 */

import { fileURLToPath } from "node:url";
import { type ChildExit, spawnEntry } from "../core/child-pipe.ts";
import { t } from "../core/i18n.ts";
import type { MiddlewareChildConfig } from "./child-entry.ts";

const ENTRY = fileURLToPath(new URL("./child-entry.ts", import.meta.url));
const START_TIMEOUT_MS = 15_000;

type FromChild =
  | { type: "listening"; url: string; port: number }
  | { type: "failed"; message: string };

export interface ServerProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Resolves once the process is gone. */
  readonly exited: Promise<ChildExit>;
  /** Stops it (SIGTERM) and waits until it is gone. */
  stop(): Promise<ChildExit>;
}

/** Starts one middleware server in a child process; resolves once it listens. */
export async function startServerProcess(config: MiddlewareChildConfig): Promise<ServerProcess> {
  let listening: ((m: { url: string; port: number }) => void) | undefined;
  let failed: ((message: string) => void) | undefined;
  const started = new Promise<{ url: string; port: number }>((resolve, reject) => {
    listening = resolve;
    failed = (message) =>
      reject(
        new Error(
          t("the {server} process did not start: {message}", { server: config.server, message }),
        ),
      );
  });
  const { child, exited } = spawnEntry<FromChild>(ENTRY, JSON.stringify(config), (m) => {
    if (m.type === "listening") listening?.(m);
    else failed?.(m.message);
  });
  void exited.then((e) =>
    failed?.(
      e.signal
        ? t("it exited ({signal})", { signal: e.signal })
        : t("it exited (code {code})", { code: String(e.code) }),
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  let address: { url: string; port: number };
  try {
    address = await Promise.race([
      started,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                t("the {server} process did not start within {ms} ms", {
                  server: config.server,
                  ms: START_TIMEOUT_MS,
                }),
              ),
            ),
          START_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (err) {
    child.kill("SIGKILL");
    await exited;
    throw err;
  } finally {
    clearTimeout(timer);
  }
  failed = undefined;
  return {
    url: address.url,
    port: address.port,
    pid: child.pid!,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
