/**
 * One server against the ten cases: for each case a fresh server on its own SQLite file, the fault
 * proxy in front of it, the same-key client of lib/probe/checks.ts, and the rows counted in the
 * file. The cells of lesson 11's table, every one from this run.
 */
import { seeded } from "../core/random.ts";
import { type CaseRun, type Endpoint, runCase } from "../probe/checks.ts";
import { startLossyProxy } from "../probe/proxy.ts";
import { CASES, type CaseName } from "../probe/verdict.ts";
import { type HeaderRewrite, OTHER_ROUTE, REPORT_ROUTE } from "./server-kit.ts";
import { SERVER_NAMES, type ServerName, startCaseServer, startCrashingServer } from "./servers.ts";

/** The two callers, as their Authorization headers name them. */
export const CALLERS = { first: "Bearer alice", second: "Bearer bob" } as const;

/** The report every case files (`unique` tells the operations of a case apart). */
export function reportBody(unique: string): { title: string; body: string } {
  return {
    title: `Login button does nothing (${unique})`,
    body: "Clicking 'Log in' on /login has no effect.",
  };
}

export interface CellOptions {
  /** The path of a scratch file by name. */
  scratch(name: string): string;
  seed: number;
  /** Only these cases (default: all ten). */
  cases?: readonly CaseName[];
  /** Exercise 11a: a header rewrite in front of the package (not for the crash case). */
  rewrite?: HeaderRewrite;
  /** Hears each case as it ends. */
  onCase?(run: CaseRun): void;
}

/** The ten cases, in order, against one server. */
export async function runServerCases(server: ServerName, options: CellOptions): Promise<CaseRun[]> {
  const runs: CaseRun[] = [];
  for (const name of options.cases ?? CASES) {
    const run = await runCell(server, name, options);
    options.onCase?.(run);
    runs.push(run);
  }
  return runs;
}

/** One cell: one server, one case. */
export async function runCell(
  server: ServerName,
  name: CaseName,
  options: CellOptions,
): Promise<CaseRun> {
  const db = options.scratch(`${server}-${name}.sqlite`);
  const random = seeded(
    options.seed * 1000 + SERVER_NAMES.indexOf(server) * 100 + CASES.indexOf(name),
  );
  const started =
    name === "crash"
      ? await startCrashingServer(server, db).then((s) => ({ ...s, hooks: { crash: s.crasher } }))
      : await startCaseServer(server, db, options.rewrite);
  const proxy = await startLossyProxy(started.url);
  try {
    const endpoint: Endpoint = {
      url: started.url + REPORT_ROUTE,
      otherUrl: started.url + OTHER_ROUTE,
      headers: { authorization: CALLERS.first },
      secondCaller: { authorization: CALLERS.second },
      body: reportBody,
      bodyVaries: true,
      rows: async () => started.rows(),
    };
    return await runCase(name, { endpoint, hooks: started.hooks, proxy, random });
  } finally {
    await proxy.close();
    await started.close();
  }
}

/** Every server's ten cases, the servers side by side (each server's cases one after another). */
export async function runServers(
  servers: readonly ServerName[],
  options: Omit<CellOptions, "onCase">,
  onServer?: (server: ServerName, runs: CaseRun[], ms: number) => void,
): Promise<Map<ServerName, CaseRun[]>> {
  const done = await Promise.all(
    servers.map(async (server) => {
      const t0 = performance.now();
      const runs = await runServerCases(server, options);
      onServer?.(server, runs, Math.round(performance.now() - t0));
      return [server, runs] as const;
    }),
  );
  return new Map(done);
}
