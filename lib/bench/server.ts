/**
 * A server to benchmark, in a child process of its own: the load generator runs in this process,
 * the server in the child, so the two never share an event loop. They talk over Node's IPC
 * channel (the child's "listening" message with its port; "count" and "close" from here) and,
 * for the measurement itself, only over HTTP on 127.0.0.1.
 */

import { fileURLToPath } from "node:url";
import { t } from "../core/i18n.ts";
import { spawnTsChild } from "../core/ts-child.ts";
import type { BenchServerConfig, FromBenchServer, ToBenchServer } from "./server-messages.ts";

export interface BenchServer {
  readonly port: number;
  readonly pid: number;
  /** The settings in effect, read back from SQLite (journal, synchronous) or PostgreSQL (synchronous_commit, fsync). */
  readonly journalMode: string | undefined;
  readonly synchronous: string | undefined;
  /** How many reports the server's database holds. */
  countReports(): Promise<number>;
  /** PostgreSQL rows: the statements (round trips) and commits the tracker has sent so far. */
  statements(): Promise<{ roundTrips: number; commits: number }>;
  /** CPU time the server process has used so far (user + system), µs. */
  cpuMicros(): Promise<number>;
  /** Stops the server (SIGKILL if it does not stop within 5 s). */
  close(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL("./server-entry.ts", import.meta.url));

export async function startBenchServer(config: BenchServerConfig): Promise<BenchServer> {
  const child = spawnTsChild(
    ENTRY,
    [JSON.stringify(config)],
    ["ignore", "inherit", "inherit", "ipc"],
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  /** The next message of this type from the child; rejects if it exits first. */
  const next = <T extends FromBenchServer["type"]>(
    type: T,
  ): Promise<Extract<FromBenchServer, { type: T }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (m: FromBenchServer): void => {
        if (m.type !== type) return;
        child.off("message", onMessage);
        resolve(m as Extract<FromBenchServer, { type: T }>);
      };
      child.on("message", onMessage);
      void exited.then(() =>
        reject(new Error(t('the benchmark server exited before saying "{type}"', { type }))),
      );
    });

  const listening = await next("listening");
  return {
    port: listening.port,
    pid: child.pid!,
    journalMode: listening.journalMode,
    synchronous: listening.synchronous,
    async countReports() {
      const answer = next("count");
      child.send({ type: "count" } satisfies ToBenchServer);
      return (await answer).reports;
    },
    async statements() {
      const answer = next("statements");
      child.send({ type: "statements" } satisfies ToBenchServer);
      const { roundTrips, commits } = await answer;
      return { roundTrips, commits };
    },
    async cpuMicros() {
      const answer = next("cpu");
      child.send({ type: "cpu" } satisfies ToBenchServer);
      return (await answer).micros;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const stopper = setTimeout(() => child.kill("SIGKILL"), 5_000);
      child.send({ type: "close" } satisfies ToBenchServer, () => {});
      await exited;
      clearTimeout(stopper);
    },
  };
}
