/**
 * Lesson 11's four servers, one bug-report handler behind each (fixed names: `--only` and `--json`
 * use them): express-idempotency, @node-idempotency/core, Powertools' makeIdempotent, and the
 * workbook's own `fenced` tracker as the reference. Each is started fresh for each case on its own
 * SQLite file, in this process, with hooks into its handler; for the crash case, in a child process
 * that kills itself after the INSERT and is started again on the same file.
 */

import type { Crasher, ServiceHooks } from "../probe/checks.ts";
import { Faults } from "../tracker/faults.ts";
import { startTracker } from "../tracker/service.ts";
import { countReportsIn } from "../tracker/store.ts";
import { superviseTracker } from "../tracker/supervisor.ts";
import { type ServerProcess, startServerProcess } from "./child.ts";
import { HandlerPlan } from "./handler.ts";
import { MIDDLEWARE_NAMES, startMiddlewareServer } from "./packages.ts";
import { countReportsInFile, ReportsDb } from "./reports-db.ts";
import type { HeaderRewrite } from "./server-kit.ts";

export const SERVER_NAMES = [...MIDDLEWARE_NAMES, "fenced"] as const;
export type ServerName = (typeof SERVER_NAMES)[number];

export function isServerName(s: string): s is ServerName {
  return (SERVER_NAMES as readonly string[]).includes(s);
}

/** The packages behind each server, whose installed versions the lesson prints. */
export const PACKAGES: Record<ServerName, readonly string[]> = {
  "express-idempotency": ["express-idempotency", "express"],
  "node-idempotency": [
    "@node-idempotency/core",
    "@node-idempotency/storage-adapter-memory",
    "express",
  ],
  powertools: ["@aws-lambda-powertools/idempotency"],
  fenced: [],
};

/** A server started for one case. */
export interface CaseServer {
  url: string;
  hooks: ServiceHooks;
  /** Reports in its SQLite file now. */
  rows(): number;
  close(): Promise<void>;
}

/** A server in this process, with hooks into its handler. `rewrite`: exercise 11a's wrapper. */
export async function startCaseServer(
  name: ServerName,
  db: string,
  rewrite?: HeaderRewrite,
): Promise<CaseServer> {
  if (name === "fenced") {
    const faults = new Faults();
    const tracker = await startTracker({ variant: "fenced", db, faults });
    const next = (): number => tracker.requests + 1;
    return {
      url: tracker.url,
      hooks: {
        holdNextHandler() {
          const n = next();
          faults.at(n, "slow");
          return { held: faults.reached(n, "held"), release: () => faults.release(n) };
        },
        // The tracker has one way to fail: its work throws, and it answers 500 (internal-error).
        failNextHandler: () => void faults.at(next(), "internal-error"),
      },
      rows: () => tracker.store.countReports(),
      close: () => tracker.close(),
    };
  }
  const reports = new ReportsDb(db);
  const plan = new HandlerPlan();
  const server = await startMiddlewareServer(name, {
    db: reports,
    plan,
    dbPath: db,
    ...(rewrite ? { rewrite } : {}),
  });
  return {
    url: server.url,
    hooks: { holdNextHandler: () => plan.holdNext(), failNextHandler: (how) => plan.failNext(how) },
    rows: () => reports.count(),
    async close() {
      await server.close();
      reports.close();
    },
  };
}

/**
 * A server in a child process whose first handler call kills it after the INSERT; restarted on
 * demand.
 */
export interface CrashingServer {
  url: string;
  crasher: Crasher;
  rows(): number;
  close(): Promise<void>;
}

export async function startCrashingServer(name: ServerName, db: string): Promise<CrashingServer> {
  if (name === "fenced") {
    const tracker = await superviseTracker({
      variant: "fenced",
      db,
      faults: { 1: "crash-between-commits" },
    });
    let restarted: Promise<unknown> | undefined;
    return {
      url: tracker.url,
      crasher: {
        arm: async (url) => url,
        recovered: () => {
          restarted ??= tracker.restartAfterExit();
          return restarted.then(() => {});
        },
      },
      rows: () => countReportsIn(db),
      close: () => tracker.close().then(() => {}),
    };
  }
  let current: ServerProcess = await startServerProcess({
    server: name,
    db,
    port: 0,
    crashFirst: true,
  });
  const first = current;
  let restarted: Promise<void> | undefined;
  const restart = async (): Promise<void> => {
    await first.exited;
    current = await startServerProcess({ server: name, db, port: first.port, crashFirst: false });
  };
  return {
    url: first.url,
    crasher: { arm: async (url) => url, recovered: () => (restarted ??= restart()) },
    rows: () => countReportsInFile(db),
    async close() {
      await current.stop();
      await first.stop();
    },
  };
}
