/**
 * The chaos run: many agents file distinct reports through `same-key` clients, against several
 * tracker processes over one SQLite file (or one PostgreSQL schema), while the seeded plan (schedule.ts) strikes requests with
 * faults: lost responses and requests, slow handlers, holders paused past their lease, processes
 * killed with SIGKILL (and started again). Then every fault stops, every operation still unanswered is
 * retried with its own key until the system answers (the settle phase), and the database is counted
 * (tally.ts).
 *
 *   agents ──same-key──► proxy (proxy.ts) ──round robin──► tracker processes (fleet.ts) ──► one SQLite file / PostgreSQL schema
 *
 * The agents (agents.ts) run in a worker thread of their own, this thread keeps the proxy, the
 * processes and the books: which operations are open, what each was answered, what struck them.
 *
 * The plan reaches the processes through the proxy: it counts each operation's requests as they
 * come (its key names the operation), and before sending one that the plan strikes, sets the fault
 * on it by its number in the process that will serve it (the child tracker's setFault, over IPC).
 * Held requests go on when the run says: a `slow` one once its client has given up on it, a paused
 * holder once its operation has been answered through another request (its key taken over), the
 * worst moment for it. Every wait is such a gate; nothing is ordered by sleeping.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Worker } from "node:worker_threads";
import { currentLang, t } from "../core/i18n.ts";
import { LOCALE } from "../core/lang.ts";
import { tempFolder } from "../core/scratch.ts";
import { openScratchSchema, type StoreName } from "../postgres/scratch-schema.ts";
import type { Answer } from "../protocol/http.ts";
import { keyHeaderValues, parseIdempotencyKey } from "../protocol/idempotency-key.ts";
import type { FaultName } from "../tracker/faults.ts";
import { keyStoreOf } from "../tracker/key-store.ts";
import { PostgresStore } from "../tracker/postgres-store.ts";
import { ReportStore } from "../tracker/store.ts";
import type { VariantName } from "../tracker/variant.ts";
import type { AgentsConfig, FromAgents, ToAgents } from "./agents.ts";
import { bundleTrackerChild } from "./bundle.ts";
import { startFleet } from "./fleet.ts";
import type { ChaosProgress } from "./progress.ts";
import { startProxy, type Target } from "./proxy.ts";
import {
  CHAOS_FAULTS,
  type ChaosFault,
  FAULTED_ARRIVALS,
  type LogicalOp,
  planOp,
  planSummary,
} from "./schedule.ts";
import { SeenTitles } from "./seen.ts";
import { type StoredRow, type Tally, tally } from "./tally.ts";

export interface ChaosOptions {
  variant: VariantName;
  ops: number;
  seed: number;
  /** Where the processes keep reports and keys (default sqlite: one file in a scratch folder). */
  store?: StoreName;
  /** With store postgres: the server (default DATABASE_URL, else one the run starts); the run works in a schema of its own. */
  databaseUrl?: string;
  /** Concurrent agents; each files its operations in their order, a few at a time (default 50). */
  agents?: number;
  /**
   * The most operations each agent has in flight at once (default 3); fewer while the system answers
   * slowly, one at least (pace.ts).
   */
  inFlight?: number;
  /** Tracker processes over the one database file (default 3). */
  processes?: number;
  /** The faults that may be planned (default: all). */
  faults?: readonly ChaosFault[];
  /** The chance that an operation's first request meets a fault, 0…1 (default 0.25). */
  rate?: number;
  /** How long one attempt waits for its answer, ms (default 400). */
  timeoutMs?: number;
  /** The keyed variants' lease, ms (default 700). */
  leaseMs?: number;
  /** Hears the run's progress every half second, and once at the end. */
  onProgress?: (progress: ChaosProgress) => void;
}

export const CHAOS_DEFAULTS = {
  agents: 50,
  inFlight: 3,
  processes: 3,
  timeoutMs: 400,
  leaseMs: 700,
} as const;

export interface ChaosResult {
  variant: VariantName;
  store: StoreName;
  seed: number;
  /** The plan's digest: the same for every run of the same seed and flags. */
  digest: string;
  agents: number;
  inFlight: number;
  processes: number;
  timeoutMs: number;
  leaseMs: number;
  tally: Tally;
  /**
   * Acknowledged operations whose key now holds another answer than the one its client was told
   * (a replay would name another report). Always 0 for naive, which keeps no keys.
   */
  changedAnswers: number;
  planned: Record<ChaosFault, number>;
  /** Planned for operations' first requests, for their second ones. */
  plannedByArrival: number[];
  /** Faults that struck a request (it reached the process with its fault set). */
  injected: Record<ChaosFault, number>;
  /** The same, at operations' first requests and at their second ones. */
  injectedByArrival: number[];
  /** Tracker processes that died and were started again. */
  restarts: number;
  /** Processes restarted because a request vanished on its way (expected: 0). */
  watchdogKills: number;
  /** HTTP attempts the clients made. */
  attempts: number;
  /** Calls in which every attempt failed; the agent called again with the same key. */
  gaveUp: number;
  /** How many operations were in flight at once on average while faults struck (at most agents × inFlight). */
  inFlightMean: number;
  /** Operations answered only in the settle phase. */
  settled: number;
  ms: number;
  /** A line for each of the first few duplicated or lost operations: its faults and attempts. */
  examples: string[];
}

/** One operation as the run follows it (its agent, in the agents' thread, follows its attempts). */
interface OpState {
  op: LogicalOp;
  /** How many of its requests have reached the proxy. */
  arrivals: number;
  /** Its paused holders, waiting for it to be answered. */
  holds: Target[];
}

/** What the proxy keeps about one request. */
interface Passing {
  op: OpState | undefined;
  fault: ChaosFault | undefined;
  /** Which of its operation's requests this is: 1, 2, … (0: no operation's). */
  arrival: number;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const started = performance.now();
  const agents = options.agents ?? CHAOS_DEFAULTS.agents;
  const inFlight = options.inFlight ?? CHAOS_DEFAULTS.inFlight;
  const processes = options.processes ?? CHAOS_DEFAULTS.processes;
  const timeoutMs = options.timeoutMs ?? CHAOS_DEFAULTS.timeoutMs;
  const leaseMs = options.leaseMs ?? CHAOS_DEFAULTS.leaseMs;
  const planOptions = {
    seed: options.seed,
    ops: options.ops,
    agents,
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.rate !== undefined ? { rate: options.rate } : {}),
  };
  // The plan is walked once for its digest and counts; each operation is made again (planOp) when
  // its agent comes to it, and forgotten once answered. What the summary needs is kept in arrays of
  // fixed size, allocated once: the id each operation was acknowledged with and a refusal; titles and
  // keys are made again from the plan when the run is counted. Only operations that needed more than
  // one attempt keep their attempts, folded into one short line.
  const plan = planSummary(planOptions);
  const ackedIds = new Float64Array(options.ops).fill(Number.NaN);
  const refusals = new Uint16Array(options.ops);
  const logs = new Map<number, string>();
  let settledCount = 0;
  /** The operations being worked on, by key (the proxy finds a request's operation here). */
  const byKey = new Map<string, OpState>();
  /** The same, by number, while their agents work on them. */
  const byIndex = new Map<number, OpState>();
  const open = (index: number): void => {
    const op = planOp(planOptions, index);
    const s: OpState = { op, arrivals: 0, holds: [] };
    byKey.set(op.key, s);
    byIndex.set(index, s);
  };
  const finish = (m: Extract<FromAgents, { type: "done" }>): void => {
    const s = byIndex.get(m.index);
    if (!s) throw new Error(`the agents finished operation ${m.index}, which was not open`);
    for (const h of s.holds) release(h);
    byKey.delete(s.op.key);
    byIndex.delete(m.index);
    const i = m.index - 1;
    if (m.acked !== undefined) ackedIds[i] = m.acked;
    if (m.refused !== undefined) refusals[i] = m.refused;
    if (m.acked !== undefined || m.refused !== undefined) done += 1;
    if (m.settled && m.acked !== undefined) settledCount += 1;
    if (m.log !== undefined) logs.set(m.index, m.log);
  };
  const injected = Object.fromEntries(CHAOS_FAULTS.map((f) => [f, 0])) as Record<
    ChaosFault,
    number
  >;
  const injectedByArrival = new Array<number>(FAULTED_ARRIVALS).fill(0);
  let faultsOn = true;
  let attempts = 0;
  let gaveUp = 0;
  let inFlightMean = 0;
  // Progress: operations answered so far.
  let done = 0;
  /** Held requests not yet let go: released when their gate opens, or all at once when faults stop. */
  const held = new Set<Target>();
  const release = (target: Target): void => {
    if (held.delete(target)) void target.tracker.release(target.requestNo);
  };

  const store = options.store ?? "sqlite";
  // The tables exist before the processes start, so that none of them races another to create them.
  const database =
    store === "postgres" ? await postgresChaosDatabase(options.databaseUrl) : sqliteChaosDatabase();

  // The tracker processes start from one bundle of their entry (lib/chaos/bundle.ts): a restart costs
  // a fifth of the CPU of one started from the TypeScript sources.
  const bundleFolder = tempFolder("retry-workbook-chaos-bundle-"); // removed on Ctrl-C too
  const entry = await bundleTrackerChild(bundleFolder.dir).catch(async (err: unknown) => {
    bundleFolder.remove();
    await database.close();
    throw err;
  });
  const fleet = await startFleet({
    variant: options.variant,
    ...database.where,
    processes,
    leaseMs,
    entry,
  }).catch(async (err: unknown) => {
    bundleFolder.remove();
    await database.close();
    throw err;
  });
  let proxy: Awaited<ReturnType<typeof startProxy<Passing>>> | undefined;
  let agentsThread: Worker | undefined;
  // Progress: duplicates read from the database as rows arrive (only new rows each time;
  // SeenTitles keeps one byte per operation, not the titles).
  let phase: ChaosProgress["phase"] = "main";
  const seen = new SeenTitles(options.ops, (index) => planOp(planOptions, index).report.title);
  let lastId = 0;
  let reading: Promise<void> | undefined;
  const readProgress = async (): Promise<void> => {
    for (const row of await database.rowsAfter(lastId)) {
      lastId = Number(row.id);
      seen.add(row.title);
    }
    options.onProgress?.({
      variant: options.variant,
      done,
      ops: options.ops,
      duplicates: seen.duplicates,
      kills: fleet.restarts,
      elapsedMs: performance.now() - started,
      phase,
    });
  };
  /** One progress report at a time (PostgreSQL answers later than the next tick may come). */
  const report = (): Promise<void> => {
    if (!options.onProgress) return Promise.resolve();
    reading ??= readProgress().finally(() => (reading = undefined));
    return reading;
  };
  let runFailed = false;
  const ticker = options.onProgress
    ? setInterval(() => void report().catch(() => {}), 500)
    : undefined;
  try {
    proxy = await startProxy<Passing>(fleet, {
      accept(exchange) {
        const parsed = parseIdempotencyKey(keyHeaderValues(exchange.rawHeaders));
        const op = parsed.ok ? byKey.get(parsed.key) : undefined;
        if (!op) return { op, fault: undefined, arrival: 0 };
        op.arrivals += 1;
        const fault =
          faultsOn && op.arrivals <= FAULTED_ARRIVALS ? op.op.faults[op.arrivals - 1] : undefined;
        return { op, fault, arrival: op.arrivals };
      },
      // Only a struck request needs its number in the process (its fault is set by it); the others
      // go out without waiting their turn.
      numbered: (p) => p.fault !== undefined,
      async beforeSend(p, target) {
        if (p.fault && p.fault !== "kill")
          await target.tracker.setFault(target.requestNo, p.fault satisfies FaultName);
      },
      arrived(p, target) {
        if (!p.fault) return;
        injected[p.fault] += 1;
        injectedByArrival[p.arrival - 1]! += 1;
        if (p.fault === "kill") void fleet.kill(target.backend);
        if (p.fault === "slow" || p.fault === "pause-past-lease") held.add(target);
        if (p.fault === "pause-past-lease") p.op!.holds.push(target);
      },
      ended(p, target, status) {
        // A slow handler goes on once its client has given up on it (or been answered, after a release).
        if (p.fault === "slow" && target) release(target);
        // A paused holder goes on once its operation has been answered through another request.
        if (p.op && status !== undefined && status >= 200 && status < 300)
          for (const h of p.op.holds) release(h);
      },
    });
    // The agents, in a thread of their own (agents.ts), through the proxy.
    const config: AgentsConfig = {
      url: proxy.url,
      plan: planOptions,
      inFlight,
      timeoutMs,
      leaseMs,
    };
    agentsThread = new Worker(new URL("./agents-worker.ts", import.meta.url), {
      workerData: config,
    });
    const thread = agentsThread;
    const tell = (m: ToAgents): void => thread.postMessage(m);
    await new Promise<void>((resolve, reject) => {
      thread.once("error", reject);
      thread.once("exit", (code) =>
        reject(new Error(`the agents' thread stopped before the end (exit code ${code})`)),
      );
      thread.on("message", (m: FromAgents) => {
        try {
          hear(m);
        } catch (err) {
          reject(err);
        }
      });
      const hear = (m: FromAgents): void => {
        switch (m.type) {
          case "open":
            open(m.index);
            tell({ type: "opened", index: m.index });
            return;
          case "left":
            // Left to settle: its paused holders go on; it stays open, without faults from now on.
            for (const h of byIndex.get(m.index)?.holds ?? []) release(h);
            return;
          case "done":
            finish(m);
            return;
          case "main-phase-over":
            // The settle phase: every fault stops, every held request goes on, every process is up;
            // then the agents retry each operation still unanswered with its key until answered.
            faultsOn = false;
            phase = "settling";
            for (const target of [...held]) release(target);
            fleet.allLive().then(() => tell({ type: "settle" }), reject);
            return;
          case "finished":
            attempts = m.attempts;
            gaveUp = m.gaveUp;
            inFlightMean = m.inFlightMean;
            resolve();
            return;
        }
      };
    });
  } catch (err) {
    runFailed = true;
    throw err;
  } finally {
    clearInterval(ticker);
    await agentsThread?.terminate();
    await proxy?.close();
    await fleet.close();
    bundleFolder.remove();
    await reading?.catch(() => {});
    await report().catch(() => {});
    if (runFailed) await database.close().catch(() => {});
  }

  const rows = await database.allRows();
  // What each key would replay now, beside what its client was told.
  let changedAnswers = 0;
  const titles = new Array<string>(options.ops);
  for (let i = 0; i < options.ops; i++) {
    const op = planOp(planOptions, i + 1);
    titles[i] = op.report.title;
    if (Number.isNaN(ackedIds[i]!)) continue;
    const stored = await database.storedResponse(op.caller, op.key);
    if (stored !== undefined && (stored.body as { id?: unknown }).id !== ackedIds[i])
      changedAnswers += 1;
  }
  const counted = tally(
    titles.map((title, i) => ({
      index: i + 1,
      title,
      ...(Number.isNaN(ackedIds[i]!) ? {} : { acked: ackedIds[i]! }),
      ...(refusals[i] !== 0 ? { refused: refusals[i]! } : {}),
    })),
    rows,
  );
  await database.close();
  const examples = [...counted.duplicatedOps.slice(0, 5), ...counted.lostOps.slice(0, 5)].map(
    (i) => {
      const acked = ackedIds[i - 1]!;
      return example(
        planOp(planOptions, i),
        Number.isNaN(acked) ? undefined : acked,
        counted.rowsOf.get(i)!,
        logs.get(i) ?? "201",
      );
    },
  );
  return {
    variant: options.variant,
    store,
    seed: options.seed,
    digest: plan.digest,
    agents,
    inFlight,
    processes,
    timeoutMs,
    leaseMs,
    tally: counted,
    changedAnswers,
    planned: plan.planned,
    plannedByArrival: plan.plannedByArrival,
    injected,
    injectedByArrival,
    restarts: fleet.restarts,
    watchdogKills: proxy?.watchdogKills ?? 0,
    attempts,
    gaveUp,
    inFlightMean,
    settled: settledCount,
    ms: performance.now() - started,
    examples,
  };
}

/** The run's one database, as the run reads it (the tracker processes open it themselves). */
interface ChaosDatabase {
  /** What the fleet is given to open. */
  where: { db: string } | { postgres: string };
  /** Reports with an id above `after`, oldest first (id and title). */
  rowsAfter(after: number): Promise<Iterable<StoredRow>>;
  /** Every report, oldest first, once the processes have stopped. */
  allRows(): Promise<Iterable<StoredRow>>;
  /** What the key would replay now. */
  storedResponse(caller: string, key: string): Promise<Answer | undefined>;
  /** Closes it and deletes it: the scratch folder, or the schema (and the server the run started). */
  close(): Promise<void>;
}

/** One SQLite file (WAL) in a scratch folder. Its rows are streamed into the tally, never held as one array. */
function sqliteChaosDatabase(): ChaosDatabase {
  const folder = tempFolder("retry-workbook-chaos-"); // removed on Ctrl-C too
  const db = join(folder.dir, "tracker.sqlite");
  const schema = new ReportStore(db);
  keyStoreOf(schema);
  schema.close();
  let reader: DatabaseSync | undefined;
  let store: ReportStore | undefined;
  return {
    where: { db },
    async rowsAfter(after) {
      reader ??= new DatabaseSync(db, { readOnly: true });
      return reader
        .prepare("SELECT id, title FROM reports WHERE id > ? ORDER BY id")
        .iterate(after) as Iterable<StoredRow>;
    },
    async allRows() {
      store ??= new ReportStore(db);
      return store.db
        .prepare("SELECT id, title FROM reports ORDER BY id")
        .iterate() as Iterable<StoredRow>;
    },
    async storedResponse(caller, key) {
      store ??= new ReportStore(db);
      return keyStoreOf(store).get(caller, key)?.response;
    },
    async close() {
      reader?.close();
      store?.close();
      folder.remove();
    },
  };
}

/**
 * A schema of the run's own on PostgreSQL (DATABASE_URL's server, or one the run starts), dropped at
 * the end. Its rows are read in one list at the end (ids and titles: a few MB for 100 000 operations).
 */
async function postgresChaosDatabase(databaseUrl: string | undefined): Promise<ChaosDatabase> {
  const scratch = await openScratchSchema(
    "chaos",
    databaseUrl !== undefined ? { databaseUrl } : {},
  );
  let store: PostgresStore;
  try {
    store = await PostgresStore.open(scratch.url, { connections: 2 });
  } catch (err) {
    await scratch.close();
    throw err;
  }
  const rowsAfter = async (after: number): Promise<StoredRow[]> =>
    (
      await store.pool.query<{ id: string; title: string }>(
        "SELECT id, title FROM reports WHERE id > $1 ORDER BY id",
        [after],
      )
    ).rows.map((r) => ({ id: Number(r.id), title: r.title }));
  return {
    where: { postgres: scratch.url },
    rowsAfter,
    allRows: () => rowsAfter(0),
    async storedResponse(caller, key) {
      return (await store.getKey(caller, key))?.response;
    },
    async close() {
      await store.close().catch(() => {});
      await scratch.close();
    },
  };
}

/** "a, b, c" in English, "a、b、c" in Chinese: a list of names or figures. */
export function listOf(items: readonly string[]): string {
  return new Intl.ListFormat(LOCALE[currentLang()], { style: "narrow" }).format(items);
}

/**
 * One duplicated or lost operation in a line: its reports, what its client was told, its faults and
 * its attempts ("timeout ×2, 409, 201", as the agents folded them).
 */
function example(
  op: LogicalOp,
  ackedId: number | undefined,
  ids: number[],
  attempts: string,
): string {
  const faults = op.faults
    .map((f, i) => (f ? t("{fault} on request {n}", { n: i + 1, fault: f }) : undefined))
    .filter((f) => f !== undefined);
  const stored =
    ids.length === 0
      ? t("no report")
      : t("{n, plural, one {# report} other {# reports}} ({ids})", {
          n: ids.length,
          ids: listOf(ids.map((id) => `#${id}`)),
        });
  const acked =
    ackedId === undefined
      ? t("never acknowledged")
      : t("acknowledged as #{id}", { id: String(ackedId) });
  return t(
    "op {index} ({caller}, key {key}…): {stored}, {acked}; faults: {faults}; attempts: {attempts}",
    {
      index: op.index,
      caller: op.caller,
      key: op.key.slice(0, 8),
      stored,
      acked,
      faults: faults.length === 0 ? t("none") : listOf(faults),
      attempts,
    },
  );
}
