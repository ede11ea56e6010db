/**
 * The bug tracker's database: one SQLite file (or `:memory:`) through `node:sqlite`, prepared
 * statements, WAL mode, and short synchronous transactions.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";

/**
 * The largest report id, on every route: the largest whole number a JSON client reads exactly
 * (2^53 - 1). GET and PUT refuse a larger id; POST refuses to create one (NoReportIdLeft, nothing stored).
 */
export const MAX_REPORT_ID = Number.MAX_SAFE_INTEGER;

/**
 * A new report cannot be stored: the next id would be past MAX_REPORT_ID (a PUT took the last one).
 * Either store throws it, and its transaction rolls back; the service answers 507 Insufficient Storage.
 */
export class NoReportIdLeft extends Error {
  constructor() {
    super(`no report id is left: ids go up to ${MAX_REPORT_ID}`);
    this.name = "NoReportIdLeft";
  }
}

/** What a client sends to file a report. */
export interface NewReport {
  title: string;
  body?: string;
  module?: string;
  run?: string;
}

/** A stored report, as the API returns it. */
export interface Report {
  id: number;
  title: string;
  body: string;
  module: string | null;
  run: string | null;
}

interface ReportRow {
  id: number;
  title: string;
  body: string;
  module: string | null;
  run: string | null;
}

/**
 * The normalised title used to find a report ("look it up first"): lower case, punctuation dropped,
 * white space folded. "Login button: does NOTHING!" and "login button does nothing" are the same.
 */
export function normalizeTitle(title: string): string {
  return title
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

export class ReportStore {
  readonly db: DatabaseSync;
  readonly path: string;
  readonly #insert: StatementSync;
  readonly #upsert: StatementSync;
  readonly #exists: StatementSync;
  readonly #get: StatementSync;
  readonly #list: StatementSync;
  readonly #byTitle: StatementSync;
  readonly #count: StatementSync;
  readonly #page: StatementSync;
  readonly #pageByTitle: StatementSync;
  // BEGIN, COMMIT and ROLLBACK prepared once: `exec` would parse them again for every request.
  readonly #begin: StatementSync;
  readonly #commit: StatementSync;
  readonly #rollback: StatementSync;
  #inTransaction = false;
  #afterInsert: ((report: Report) => void) | undefined;

  /**
   * Opens (and creates) the database at `path`, or an in-memory one for ":memory:". A statement that
   * needs the write lock while another connection holds it waits up to `busyTimeoutMs` (default
   * 5 s), and the whole process waits with it: node:sqlite is synchronous. The tracker passes 0 and
   * waits for the lock itself, without blocking its other requests (sqlite-database.ts).
   */
  constructor(path: string, options: { busyTimeoutMs?: number } = {}) {
    this.path = path;
    this.db = new DatabaseSync(path);
    // WAL lets readers run beside one writer, neither blocking the other (sqlite.org/wal.html);
    // several processes may share the file in either journal mode.
    // synchronous=NORMAL in WAL mode: a commit survives a process crash (kill -9); only a power
    // loss may drop the last commits. busy_timeout makes a second process wait for the write lock
    // (the set-up below waits 5 s whatever the option says: nothing else is served yet).
    this.db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA busy_timeout = 5000;
      PRAGMA foreign_keys = ON;
      -- No AUTOINCREMENT: reports are never deleted, so the rowid's own rule (the largest id + 1)
      -- never hands an id out twice, and each insert is spared the sqlite_sequence row that
      -- AUTOINCREMENT reads and rewrites (one page more in every commit).
      CREATE TABLE IF NOT EXISTS reports (
        id         INTEGER PRIMARY KEY CONSTRAINT report_id_range CHECK (id <= ${MAX_REPORT_ID}),
        title      TEXT NOT NULL,
        title_norm TEXT NOT NULL,
        body       TEXT NOT NULL DEFAULT '',
        module     TEXT,
        run        TEXT
      );
      CREATE INDEX IF NOT EXISTS reports_by_title ON reports (title_norm);
    `);
    const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
    if (busyTimeoutMs !== 5_000)
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    const cols = "id, title, body, module, run";
    this.#insert = this.db.prepare(
      `INSERT INTO reports (title, title_norm, body, module, run) VALUES (?, ?, ?, ?, ?) RETURNING ${cols}`,
    );
    this.#upsert = this.db.prepare(
      `INSERT INTO reports (id, title, title_norm, body, module, run) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, title_norm = excluded.title_norm,
         body = excluded.body, module = excluded.module, run = excluded.run
       RETURNING ${cols}`,
    );
    this.#exists = this.db.prepare("SELECT 1 AS found FROM reports WHERE id = ?");
    this.#get = this.db.prepare(`SELECT ${cols} FROM reports WHERE id = ?`);
    this.#list = this.db.prepare(`SELECT ${cols} FROM reports ORDER BY id`);
    this.#byTitle = this.db.prepare(`SELECT ${cols} FROM reports WHERE title_norm = ? ORDER BY id`);
    this.#count = this.db.prepare("SELECT count(*) AS n FROM reports");
    this.#page = this.db.prepare(`SELECT ${cols} FROM reports WHERE id > ? ORDER BY id LIMIT ?`);
    this.#pageByTitle = this.db.prepare(
      `SELECT ${cols} FROM reports WHERE title_norm = ? AND id > ? ORDER BY id LIMIT ?`,
    );
    this.#begin = this.db.prepare("BEGIN IMMEDIATE");
    this.#commit = this.db.prepare("COMMIT");
    this.#rollback = this.db.prepare("ROLLBACK");
  }

  /**
   * Runs `work` inside BEGIN IMMEDIATE … COMMIT, rolling back if it throws. `work` must be
   * synchronous: with one shared connection, a transaction left open across an `await` would take in
   * every other request's statements that run meanwhile, and one rollback would undo them all.
   */
  transaction<T>(work: () => T): T {
    if (this.#inTransaction) throw new Error("transactions do not nest");
    this.#begin.run();
    this.#inTransaction = true;
    try {
      const result = work();
      if (
        result instanceof Promise ||
        (typeof result === "object" && result !== null && "then" in result)
      ) {
        throw new Error("a transaction must not span an await: pass a synchronous function");
      }
      this.#commit.run();
      return result;
    } catch (err) {
      this.#rollback.run();
      throw err;
    } finally {
      this.#inTransaction = false;
    }
  }

  /** Inserts a new report, then runs the `onInsert` hook, if any, in the same transaction. Call it inside `transaction`. */
  insertReport(r: NewReport): Report {
    let row: ReportRow;
    try {
      row = this.#insert.get(
        r.title,
        normalizeTitle(r.title),
        r.body ?? "",
        r.module ?? null,
        r.run ?? null,
      ) as unknown as ReportRow;
    } catch (err) {
      // The next id would be past MAX_REPORT_ID (a PUT took the last one). The CHECK refuses it
      // before the row exists: an id past 2^53 - 1 would not even read back into JavaScript.
      if (!String((err as Error).message).includes("report_id_range")) throw err;
      throw new NoReportIdLeft();
    }
    const report = toReport(row);
    this.#afterInsert?.(report);
    return report;
  }

  /**
   * Runs `hook` right after every insertReport, inside the caller's transaction: what it writes is
   * committed or rolled back with the report (an outbox row, lesson 07). A hook that throws rolls
   * the transaction back.
   */
  onInsert(hook: (report: Report) => void): void {
    this.#afterInsert = hook;
  }

  /** Creates or replaces the report with this id (what PUT does). */
  putReport(id: number, r: NewReport): { report: Report; created: boolean } {
    const created = this.#exists.get(id) === undefined;
    const row = this.#upsert.get(
      id,
      r.title,
      normalizeTitle(r.title),
      r.body ?? "",
      r.module ?? null,
      r.run ?? null,
    );
    return { report: toReport(row as unknown as ReportRow), created };
  }

  getReport(id: number): Report | undefined {
    const row = this.#get.get(id) as unknown as ReportRow | undefined;
    return row && toReport(row);
  }

  listReports(): Report[] {
    return (this.#list.all() as unknown as ReportRow[]).map(toReport);
  }

  /** At most `limit` reports with an id above `after`, oldest first; `title` keeps those with this normalised title. */
  page(after: number, limit: number, title?: string): Report[] {
    const rows =
      title === undefined
        ? this.#page.all(after, limit)
        : this.#pageByTitle.all(normalizeTitle(title), after, limit);
    return (rows as unknown as ReportRow[]).map(toReport);
  }

  findByTitle(title: string): Report[] {
    return (this.#byTitle.all(normalizeTitle(title)) as unknown as ReportRow[]).map(toReport);
  }

  countReports(): number {
    return Number((this.#count.get() as { n: number }).n);
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

/** How many reports a database file holds, read after its tracker has stopped (or died). */
export function countReportsIn(path: string): number {
  const store = new ReportStore(path);
  try {
    return store.countReports();
  } finally {
    store.close();
  }
}

function toReport(row: ReportRow): Report {
  return { id: Number(row.id), title: row.title, body: row.body, module: row.module, run: row.run };
}
