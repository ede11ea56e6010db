/**
 * The outbox dispatcher as a separate process (dispatcher-entry.ts), so that a lesson can kill
 * it with SIGKILL at a named point: after the notifier accepted a row, before the row is marked sent.
 * The kill is not timed: the dispatcher kills itself when its code reaches that point, as the
 * tracker's crash faults do. One run is one pass over the 'to_send' rows of the SQLite file.
 */
import { fileURLToPath } from "node:url";
import { type ChildExit, spawnEntry } from "../core/child-pipe.ts";
import { t } from "../core/i18n.ts";
import type { Trace } from "../core/trace.ts";
import type { DispatcherConfig, FromDispatcher } from "./dispatcher-messages.ts";

export interface DispatcherRun {
  exit: ChildExit;
  /** Rows delivered and marked sent in this run. */
  delivered: number;
  failed: number;
  /** The process died by SIGKILL. */
  killed: boolean;
}

const ENTRY = fileURLToPath(new URL("./dispatcher-entry.ts", import.meta.url));

/** Runs one dispatcher pass in a child process and resolves when the process is gone. */
export async function runDispatcher(
  config: DispatcherConfig,
  onEvent?: (text: string, mark?: "ok" | "bad" | "warn") => void,
): Promise<DispatcherRun> {
  let done: { delivered: number; failed: number } | undefined;
  let failure: string | undefined;
  const { exited } = spawnEntry<FromDispatcher>(ENTRY, JSON.stringify(config), (m) => {
    if (m.type === "say") onEvent?.(m.text, m.mark);
    else if (m.type === "done") done = m;
    else failure = m.message;
  });
  const exit = await exited;
  if (failure !== undefined) throw new Error(`the dispatcher failed: ${failure}`);
  return {
    exit,
    delivered: done?.delivered ?? 0,
    failed: done?.failed ?? 0,
    killed: exit.signal === "SIGKILL",
  };
}

/**
 * Lesson 07's redelivery: two dispatcher processes over one file, one after the other, told in the
 * trace. The first is killed (SIGKILL) right after the notifier accepted a row, before marking it
 * sent; the second, a fresh one, finds that row still to send and delivers it again, with the row's
 * key or with none, as `withKey` says.
 */
export async function redeliverAfterKill(
  trace: Trace,
  config: Omit<DispatcherConfig, "killAfterAccepted">,
): Promise<void> {
  for (const kill of [true, false]) {
    trace.event(
      "lesson",
      t(
        `dispatcher process started, {keys, select, row {sending each row with its key} other \
{sending no key}}{fresh, select, yes { (a fresh one)} other {}}`,
        { keys: config.withKey ? "row" : "none", fresh: kill ? "no" : "yes" },
      ),
    );
    const run = await runDispatcher({ ...config, killAfterAccepted: kill }, (text, mark) =>
      trace.event("outbox", text, mark),
    );
    trace.event(
      "lesson",
      run.killed
        ? t("the dispatcher process is gone (SIGKILL)")
        : t("the dispatcher exited: {n} row(s) delivered and marked sent", { n: run.delivered }),
      run.killed ? "warn" : "ok",
    );
  }
}
