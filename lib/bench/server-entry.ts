/**
 * The child side of lib/bench/server.ts: one server to measure, alone in its process, so that it
 * does not share an event loop (or a core) with the load generator. Either the tracker with a
 * variant over a SQLite file, or a bare `node:http` server that answers 201 without touching SQLite
 * (the ceiling). No trace events: nothing but the request's own work is measured.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startTracker } from "../tracker/service.ts";
import type { BenchServerConfig, FromBenchServer, ToBenchServer } from "./server-messages.ts";

/** What the ceiling answers: a report of the tracker's shape, so both send about the same bytes. */
const CEILING_BODY = `${JSON.stringify({ id: 1, title: "Login button does nothing", body: "", module: "auth", run: null })}\n`;

function tell(message: FromBenchServer): void {
  process.send?.(message);
}

/** Answers the questions both kinds of server share; false for "close", which each does its own way. */
function answer(m: ToBenchServer, reports: () => number): boolean {
  if (m.type === "count") tell({ type: "count", reports: reports() });
  else if (m.type === "cpu") {
    const { user, system } = process.cpuUsage();
    tell({ type: "cpu", micros: user + system });
  } else return false;
  return true;
}

// The parent is gone (its IPC channel closed): do not outlive it.
process.on("disconnect", () => process.exit(0));

const config = JSON.parse(process.argv[2] ?? "{}") as BenchServerConfig;

if (config.kind === "bare") {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(201, {
        "content-type": "application/json",
        location: "/reports/1",
        "content-length": Buffer.byteLength(CEILING_BODY),
      });
      res.end(CEILING_BODY);
    });
  });
  server.listen(0, "127.0.0.1", () =>
    tell({ type: "listening", port: (server.address() as AddressInfo).port }),
  );
  process.on("message", (m: ToBenchServer) => {
    if (!answer(m, () => 0)) {
      server.closeAllConnections();
      server.close(() => {
        tell({ type: "closed" });
        process.exit(0);
      });
    }
  });
} else if (config.kind === "postgres-tracker") {
  const tracker = await startTracker({ variant: config.variant, postgres: config.url });
  const show = async (name: string): Promise<string> =>
    String(
      (await tracker.store.pool.query<{ v: string }>(`SELECT current_setting('${name}') AS v`))
        .rows[0]?.v,
    );
  let reports = 0;
  tell({
    type: "listening",
    port: tracker.port,
    journalMode: `fsync=${await show("fsync")}`,
    synchronous: `synchronous_commit=${await show("synchronous_commit")}`,
  });
  process.on("message", (m: ToBenchServer) => {
    if (m.type === "statements") {
      tell({ type: "statements", ...tracker.store.counts });
      return;
    }
    if (m.type === "count") {
      void tracker.store.countReports().then((n) => {
        reports = n;
        tell({ type: "count", reports });
      });
      return;
    }
    if (!answer(m, () => reports)) {
      void tracker.close().then(() => {
        tell({ type: "closed" });
        process.exit(0);
      });
    }
  });
} else {
  if (config.synchronous !== "NORMAL" && config.synchronous !== "FULL")
    throw new Error(`bad synchronous level ${String(config.synchronous)}`);
  const tracker = await startTracker({ variant: config.variant, db: config.db });
  // The store opens with journal_mode=WAL, synchronous=NORMAL; FULL is set here, for its row only.
  tracker.store.db.exec(`PRAGMA synchronous = ${config.synchronous}`);
  const pragma = (name: string): string =>
    String(Object.values(tracker.store.db.prepare(`PRAGMA ${name}`).get() ?? {})[0]);
  const SYNCHRONOUS = ["OFF", "NORMAL", "FULL", "EXTRA"];
  tell({
    type: "listening",
    port: tracker.port,
    journalMode: pragma("journal_mode"),
    synchronous: SYNCHRONOUS[Number(pragma("synchronous"))] ?? pragma("synchronous"),
  });
  process.on("message", (m: ToBenchServer) => {
    if (!answer(m, () => tracker.store.countReports())) {
      void tracker.close().then(() => {
        tell({ type: "closed" });
        process.exit(0);
      });
    }
  });
}
