/**
 * The child side of child.ts: one middleware server over a SQLite file, in a process of its own, so
 * that the crash case can kill it for real. With `crashFirst`, its handler's first call kills the
 * process with SIGKILL right after the INSERT has committed, before any answer: no unwinding, no
 * `finally`, nothing the package could do on the way out. Tells its parent its URL on fd 3.
 */
import { tellParent } from "../core/child-pipe.ts";
import { HandlerPlan } from "./handler.ts";
import { type MiddlewareName, startMiddlewareServer } from "./packages.ts";
import { ReportsDb } from "./reports-db.ts";

export interface MiddlewareChildConfig {
  server: MiddlewareName;
  db: string;
  port: number;
  crashFirst: boolean;
}

// The parent is gone (its IPC channel closed, even if it was killed): do not outlive it.
process.on("disconnect", () => process.exit(0));

const config = JSON.parse(process.argv[2] ?? "{}") as MiddlewareChildConfig;

async function start(): Promise<void> {
  const db = new ReportsDb(config.db);
  const plan = new HandlerPlan();
  if (config.crashFirst) plan.crashNext();
  const server = await startMiddlewareServer(
    config.server,
    { db, plan, dbPath: config.db, crash: () => process.kill(process.pid, "SIGKILL") },
    config.port,
  );
  tellParent({ type: "listening", url: server.url, port: server.port });
}

start().catch((err: unknown) => {
  tellParent({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
